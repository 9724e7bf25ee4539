#!/usr/bin/env bash
# Greedy Sentence Matching: fast vs naive, and the large NSMC pools (see bench/README.md).
cargo bench -q -p kcurate-tasks --bench gsm 2>/dev/null | grep '^bench'
