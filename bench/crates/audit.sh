#!/usr/bin/env bash
# Audit over 10M synthetic decisions (pipeline/audit/benches/audit.rs): column scan of
# decisions.parquet vs the simple JSONL parse, same counts checked.
cargo bench -q -p kcurate-audit --bench audit 2>/dev/null | grep '^bench'
