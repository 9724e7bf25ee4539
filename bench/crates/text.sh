#!/usr/bin/env bash
# Sentence splitter speed on bench_text.jsonl and the whole text chain over NSMC.
cargo bench -q -p kcurate-text --bench ssplit 2>/dev/null | grep '^bench'
cargo bench -q -p kcurate-text --bench text 2>/dev/null | grep '^bench'
