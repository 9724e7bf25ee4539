#!/usr/bin/env bash
# Audit over 10M synthetic decisions (pipeline/audit/benches/audit.rs): the column scan of
# decisions.parquet and the polars lazy query vs the simple JSONL parse, same counts checked.
# The first run compiles polars in release mode (about 15 minutes on 2 cores).
cargo bench -q -p kcurate-audit --features polars --bench audit 2>/dev/null | grep '^bench'
