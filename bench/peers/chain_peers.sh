#!/usr/bin/env bash
# The whole default chain beside a datatrove pipeline (`make bench-peers`): `kcurate run` of
# bench/flat_memory.sh's 1x recipe (900k NSMC-shaped reviews, configs/default.toml's stages)
# and bench/peers/datatrove_chain.py (datatrove 0.10.1: length, Hangul-share and Gopher
# repetition filters, MinHash dedup, PII formatter) over the same JSONL, each under
# /usr/bin/time -v: wall time, peak RSS, records kept. See datatrove_chain.py for what the
# two pipelines do differently. PY (default .venv-peers/bin/python) runs datatrove.
set -euo pipefail
cd "$(dirname "$0")/../.."
export KCURATE_PII_KEY="${KCURATE_PII_KEY:-kcurate-samples-not-secret}"
PY="${PY:-.venv-peers/bin/python}"
KC=target/release/kcurate
dir=target/bench/flat
[ -f "$dir/flat-1x.toml" ] || GENERATE_ONLY=1 NO_BUILD=1 bash bench/flat_memory.sh 1
measure() { # name, command...: prints "name wall_s peak_MB"
  local name=$1
  shift
  /usr/bin/time -v -o "$dir/peer-$name.time" "$@" >/dev/null 2>"$dir/peer-$name.err" || {
    echo "$name failed: $(tail -1 "$dir/peer-$name.err")" >&2
    return 1
  }
  awk -v n="$name" -F': ' '/Elapsed \(wall/ {split($2, t, ":"); w = t[1] * 60 + t[2]; if (length(t) == 3) w = t[1] * 3600 + t[2] * 60 + t[3]}
    /Maximum resident/ {r = $2 / 1024} END {printf "%-16s %8.1f %8.0f\n", n, w, r}' "$dir/peer-$name.time"
}
out=$(mktemp -d "$dir/out-XXXX")
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) cores)"
printf '%-16s %8s %8s\n' pipeline "wall s" "peak MB"
measure kcurate "$KC" run "$dir/flat-1x.toml" --out "$out"
measure datatrove-chain "$PY" bench/peers/datatrove_chain.py "$dir/nsmc-1x.jsonl" "$out/dt"
grep -h 'peer datatrove-chain' "$dir/peer-datatrove-chain.err" || true
rm -rf "$out"
