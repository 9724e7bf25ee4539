#!/usr/bin/env bash
# make bench: every benchmark, each printing `bench <what>: <value> <unit> (target ...)`.
# Needs ../shared (KCURATE_SHARED). Release builds; run on an otherwise idle machine.
set -euo pipefail
cd "$(dirname "$0")/.."
export KCURATE_SHARED="${KCURATE_SHARED:-$(cd .. && pwd)/shared}"
[ -d "$KCURATE_SHARED" ] || { echo "bench needs ../shared"; exit 1; }
bin=target/release/kcurate
cargo build --release -q -p kcurate-cli

echo "== spine: ingest + write (NSMC raw JSON arrays, no stages; median of 5 runs, 3 at 64x)"
bytes=$(du -sb "$KCURATE_SHARED/corpora/nsmc/raw" | cut -f1)
# 64x (96,512 input files; three runs) is the 16x recipe's source repeated, written here
# rather than kept as a 1,000-line file.
mkdir -p target/bench
python3 - <<'PY'
text = open("bench/recipes/ingest-16x.toml").read()
head, _, rest = text.partition("[[source]]")
block = "[[source]]" + rest.split("[[source]]")[0]
out = head.replace("bench-ingest-16x", "bench-ingest-64x").replace("16 copies", "64 copies")
out += "".join(block.replace('id = "nsmc0"', f'id = "nsmc{i}"') for i in range(64))
open("target/bench/ingest-64x.toml", "w").write(out)
PY
for k in 1 4 16 64; do
  python3 - "$bin" "$bytes" "$k" <<'PY'
import os, shutil, subprocess, sys, tempfile, time
binary, b, k = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
recipe = f"bench/recipes/ingest-{k}x.toml" if k < 64 else f"target/bench/ingest-{k}x.toml"
secs, rss = [], []
for _ in range(5 if k < 64 else 3):
    out = tempfile.mkdtemp()
    t0 = time.perf_counter()
    # /usr/bin/time for the peak RSS; the wall time is taken here, to the millisecond
    # (its own is in hundredths of a second: 10% of a 1x run).
    subprocess.run(["/usr/bin/time", "-f", "%M", "-o", f"{out}/rss", binary, "run",
                    recipe, "--out", out],
                   check=True, stdout=subprocess.DEVNULL)
    secs.append(time.perf_counter() - t0)
    rss.append(int(open(f"{out}/rss").read().split()[-1]))
    shutil.rmtree(out)
mb = b * k / 1e6
s = sorted(secs)
m = len(s) // 2
print(f"bench ingest+write {k}x: {mb/s[m]:.1f} MB/s over {mb:.1f} MB in {s[m]:.3f} s "
      f"(runs {mb/s[-1]:.1f}-{mb/s[0]:.1f} MB/s; target >= 100 MB/s)")
print(f"bench ingest+write {k}x peak RSS: {max(rss)/1024:.1f} MB (target: flat as input grows)")
PY
done

for b in bench/crates/*.sh; do
  [ -e "$b" ] || continue
  echo "== $(basename "$b" .sh)"
  bash "$b"
done
