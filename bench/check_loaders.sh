#!/usr/bin/env bash
# Builds the default release and loads it the way users will: JSONL with Hugging Face
# `datasets`, Parquet with polars. Installs both into a venv under target/ on first use.
set -euo pipefail
cd "$(dirname "$0")/.."
export KCURATE_PII_KEY="${KCURATE_PII_KEY:-kcurate-samples-not-secret}"
venv=target/py-loaders
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check datasets polars
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cargo run --quiet -p kcurate-cli -- run configs/default.toml --out "$out" || [ $? -eq 3 ]
"$venv/bin/python" bench/check_loaders.py "$out"/kcurate-samples/1.0.0
