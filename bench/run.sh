#!/usr/bin/env bash
# make bench: every benchmark, each printing `bench <what>: <value> <unit> (target ...)`.
# Needs ../shared (KCURATE_SHARED). Release builds; run on an otherwise idle machine.
set -euo pipefail
cd "$(dirname "$0")/.."
export KCURATE_SHARED="${KCURATE_SHARED:-$(cd .. && pwd)/shared}"
[ -d "$KCURATE_SHARED" ] || { echo "bench needs ../shared"; exit 1; }
bin=target/release/kcurate
cargo build --release -q -p kcurate-cli

echo "== spine: ingest + write (NSMC raw JSON arrays, no stages)"
bytes=$(du -sb "$KCURATE_SHARED/corpora/nsmc/raw" | cut -f1)
for k in 1 4 16; do
  out=$(mktemp -d)
  /usr/bin/time -f "%e %M" -o "$out/time" "$bin" run "bench/recipes/ingest-${k}x.toml" --out "$out" >/dev/null
  read -r secs rss_kb < "$out/time"
  python3 - "$bytes" "$k" "$secs" "$rss_kb" <<'PY'
import sys
b, k, s, rss = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
print(f"bench ingest+write {k}x: {b*k/1e6/max(s,1e-9):.1f} MB/s over {b*k/1e6:.1f} MB in {s:.2f} s (target >= 100 MB/s)")
print(f"bench ingest+write {k}x peak RSS: {rss/1024:.1f} MB (target: flat as input grows)")
PY
  rm -rf "$out"
done

for b in bench/crates/*.sh; do
  [ -e "$b" ] || continue
  echo "== $(basename "$b" .sh)"
  bash "$b"
done
