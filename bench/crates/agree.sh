#!/usr/bin/env bash
# Agreement and aggregation over the 100k × 5 benchmark input (../shared/reference/agreement/bench).
cargo bench -q -p kcurate-agree --bench agree 2>/dev/null | grep '^bench'
