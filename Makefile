# kcurate: `make run` builds the default release from data-samples/; `make test` runs the
# test suite (no ../shared needed); `make test-shared` adds the tests over ../shared.
SHELL := /bin/bash
CARGO ?= cargo
export KCURATE_SHARED ?= $(abspath ../shared)
# The PII pseudonymisation key for the sample release. Not a secret: set your own for a
# real release (the key never enters the release; rebuild needs the same key).
export KCURATE_PII_KEY ?= kcurate-samples-not-secret
KCURATE := target/release/kcurate

.PHONY: run build test test-shared test-hf test-polars test-spark test-labelstudio fuzz bench bench-peers lint unused-deps fmt clean

build:
	$(CARGO) build --release -p kcurate-cli

# Exit status 3 means "written, with quarantined input": the samples plant bad lines on purpose.
run: build
	$(KCURATE) run configs/default.toml --out releases --overwrite; s=$$?; [ $$s -eq 0 ] || [ $$s -eq 3 ]
	$(KCURATE) verify releases/kcurate-samples/1.0.0

test:
	$(CARGO) test --workspace

# The tests over ../shared are #[ignore]d with the reason "needs ../shared": `make test`
# lists them as ignored, this target runs those, from the same build (no rebuild). The one
# other ignored test, the 9M-id memory measurement of the duplicate-id table, is skipped: it
# measures its own process's peak and wants an optimised build (see its doc comment).
test-shared:
	@test -d "$(KCURATE_SHARED)" || { echo "test-shared needs ../shared (KCURATE_SHARED=$(KCURATE_SHARED))"; exit 1; }
	$(CARGO) test --workspace -- --ignored --skip nine_million_ids_in_bounded_memory

# Fuzz targets (proptest, stable Rust) for every reader and parser a user's file reaches:
# JSONL/CSV/TSV/JSON-array ingest, recipe TOML, Label Studio exports, the sentence splitter,
# the PII detector, audit's Parquet reader, judgements, finalise's parts and dedup's key
# lines and verdicts. Each target runs FUZZ_SECONDS, from the same workspace build as `make
# test` (nothing is rebuilt), in two lanes of seven side by side (one per core): the five
# ingest targets, finalise's parts and dedup's verdicts in one; the recipe TOML, the release
# manifest and the other crates' targets in the other. `make test`
# runs each for a few hundred cases (KCURATE_FUZZ_CASES).
FUZZ_SECONDS ?= 60
FUZZ = KCURATE_FUZZ_SECONDS=$(FUZZ_SECONDS) $(CARGO) test --workspace
FUZZ_ARGS = -- --nocapture --test-threads=1
fuzz:
	$(CARGO) test --workspace --no-run -q --test fuzz_readers --test fuzz_label_studio \
		--test fuzz_split --test fuzz_detect --test fuzz_parquet --test fuzz_judgements \
		--test fuzz_parts --test fuzz_verdicts
	$(FUZZ) --test fuzz_readers --test fuzz_parts --test fuzz_verdicts $(FUZZ_ARGS) \
		ingest deep fuzz_parts_reader fuzz_dedup_verdicts & lane=$$!; \
	$(FUZZ) --test fuzz_readers --test fuzz_label_studio --test fuzz_split --test fuzz_detect \
		--test fuzz_parquet --test fuzz_judgements \
		$(FUZZ_ARGS) --skip ingest --skip deep; s=$$?; wait $$lane && exit $$s

# Hugging Face `datasets` (pinned in integrations/hf/requirements.txt, installed into
# .venv-hf) loads the sample release and the TC sample (ClassLabel) in each form (the
# directory with its card, the JSONL files, the Parquet twins) and compares features and
# row counts with the card; any warning fails. Needs python3 and the network once; not in
# `make test`.
HF_RELEASES = kcurate-samples:configs/default.toml klue-tc-samples:configs/klue-tc.toml
test-hf: .venv-hf/.installed
	$(CARGO) build -q -p kcurate-cli
	rm -rf target/hf-test
	@for r in $(HF_RELEASES); do \
		name=$${r%%:*}; recipe=$${r#*:}; \
		target/debug/kcurate run $$recipe --out target/hf-test >/dev/null; s=$$?; \
		[ $$s -eq 0 ] || [ $$s -eq 3 ] || exit $$s; \
		HF_HUB_OFFLINE=1 .venv-hf/bin/python integrations/hf/check_release.py \
			target/hf-test/$$name/1.0.0 || exit 1; \
	done

.venv-hf/.installed: integrations/hf/requirements.txt
	python3 -m venv .venv-hf
	.venv-hf/bin/pip install -q -r integrations/hf/requirements.txt
	touch $@

# The polars engine of `kcurate audit` (feature `polars`; polars compiles for minutes, so the
# default build and `make test` leave it out).
# The engine's equivalence with the column scan is tested inside the audit crate
# (frame.rs). The CLI's unit tests build in the same command so that its `--engine polars`
# wiring compiles against the same feature resolution: a later `cargo build -p kcurate-cli
# --features polars` then reuses every polars crate instead of compiling them again.
test-polars:
	$(CARGO) test -p kcurate-audit -p kcurate-cli --features kcurate-cli/polars --lib --bins

# The Spark driver (integrations/spark) against `kcurate run`: the release built with
# local[2] on data-samples (1, 2, 4 partitions) and on a generated 200k-record corpus (2)
# must be byte-identical. Needs Java 17+ and python3; pyspark (pinned) goes into .venv-spark.
# `make test` never needs them.
# SPARK_KCURATE picks the binary under test: CI passes the debug one `make test` built, so
# it does not compile the release profile only for this check.
SPARK_RECORDS ?= 200000
SPARK_KCURATE ?= $(KCURATE)
test-spark: .venv-spark/.installed
	@command -v java >/dev/null || { echo "test-spark needs Java 17+ (apt-get install openjdk-17-jre-headless)"; exit 1; }
	@[ "$(SPARK_KCURATE)" != "$(KCURATE)" ] || $(MAKE) --no-print-directory build
	.venv-spark/bin/python integrations/spark/test_spark.py --kcurate $(SPARK_KCURATE) \
		--work target/spark-test --records $(SPARK_RECORDS) --master 'local[2]'

.venv-spark/.installed: integrations/spark/requirements.txt
	python3 -m venv .venv-spark
	.venv-spark/bin/pip install -q -r integrations/spark/requirements.txt
	touch $@

# Label Studio round trip (integrations/labelstudio/README.md): kcurate's NLI and STS batches
# go through a real Label Studio server (pinned in integrations/labelstudio/requirements.txt,
# installed into .venv-labelstudio) on a free loopback port with a throwaway data directory:
# project from kcurate's labeling config, kcurate's tasks.json imported, seeded simulated votes
# submitted as annotations, JSON, JSON-MIN and CSV exported through the API; `kcurate agree`
# must aggregate each export exactly as the same votes written directly. When label-studio
# cannot be installed (no python3, no PyPI), the check prints SKIPPED with pip's reason and
# does not fail. Not in `make test`. LABELSTUDIO_KCURATE picks the binary under test; given,
# it is used as it is (CI passes the debug one `make test` built), else the debug one is built.
LABELSTUDIO_KCURATE ?= target/debug/kcurate
test-labelstudio:
	@[ "$(origin LABELSTUDIO_KCURATE)" != file ] || $(CARGO) build -q -p kcurate-cli
	@if $(MAKE) --no-print-directory .venv-labelstudio/.installed; then \
		.venv-labelstudio/bin/python integrations/labelstudio/roundtrip.py \
			--kcurate $(LABELSTUDIO_KCURATE) --venv .venv-labelstudio --work target/labelstudio-test; \
	else \
		echo "test-labelstudio: SKIPPED, not passed: label-studio could not be installed:"; \
		tail -n 5 target/labelstudio-install.log; \
	fi

.venv-labelstudio/.installed: integrations/labelstudio/requirements.txt
	@mkdir -p target
	@echo "installing label-studio into .venv-labelstudio (log: target/labelstudio-install.log)"
	@command -v python3 >/dev/null || { echo "python3 not found" > target/labelstudio-install.log; exit 1; }
	@: > target/labelstudio-install.log
	@start=$$SECONDS; python3 -m venv .venv-labelstudio >> target/labelstudio-install.log 2>&1 && \
		.venv-labelstudio/bin/pip install -q -r integrations/labelstudio/requirements.txt \
			>> target/labelstudio-install.log 2>&1 && \
		echo "label-studio installed in $$((SECONDS - start)) s"
	@touch $@

bench: build
	bash bench/run.sh

# Side-by-side with the tools users would pick, installed into .venv-peers from pinned
# requirements (needs python3 and the network once; `make test` never needs Python).
# Agreement rows: crowd-kit's MajorityVote, (one-coin) DawidSkene, Wawa, ZBS and MACE against kcurate agree (no ../shared).
# Text rows (need ../shared): kss against kcurate text split, Presidio against kcurate pii
# detect, datatrove's MinHash dedup against kcurate's dedup stage. Run it on an idle machine.
bench-peers: build .venv-peers/.installed
	bash bench/agree_peers.sh
	NO_BUILD=1 bash bench/text_peers.sh
	bash bench/peers/chain_peers.sh

.venv-peers/.installed: bench/requirements-peers.txt
	python3 -m venv .venv-peers
	.venv-peers/bin/pip install -q -r bench/requirements-peers.txt
	touch $@

# Every declared dependency is used by the crate that declares it: cargo-machete, pinned,
# installed once per version into the user's cache (as pip keeps its wheels: a fresh clone
# does not compile it again; a version bump installs the new one beside it). The install is
# not linted: CI's clippy wrapper is for this workspace's crates.
MACHETE_VERSION = 0.9.2
MACHETE_ROOT ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/kcurate/tools/cargo-machete-$(MACHETE_VERSION)
MACHETE = $(MACHETE_ROOT)/bin/cargo-machete
unused-deps:
	@$(MACHETE) --version 2>/dev/null | grep -qx "$(MACHETE_VERSION)" || \
		env -u RUSTC_WORKSPACE_WRAPPER -u CLIPPY_ARGS $(CARGO) install cargo-machete \
			--version $(MACHETE_VERSION) --locked --root $(MACHETE_ROOT)
	$(MACHETE)

lint: unused-deps
	$(CARGO) fmt --all --check
	$(CARGO) clippy --workspace --all-targets -- -D warnings
	$(CARGO) clippy --workspace --all-targets --features kcurate-cli/polars -- -D warnings

# The docs pages printed by the binary (tests/onboarding.rs and tests/docs_tutorial.rs fail
# when one is stale); stages.md and rules.md keep their opening paragraph.
.PHONY: gen-docs
gen-docs:
	$(CARGO) build -q -p kcurate-cli
	target/debug/kcurate recipe --doc > docs/recipe.md
	{ sed '/^## /,$$d' docs/stages.md; target/debug/kcurate stages --doc; } > docs/stages.md.new
	mv docs/stages.md.new docs/stages.md
	{ sed '/^```text$$/,$$d' docs/rules.md; echo '```text'; target/debug/kcurate rules; echo '```'; } > docs/rules.md.new
	mv docs/rules.md.new docs/rules.md

fmt:
	$(CARGO) fmt --all

clean:
	rm -rf releases target
