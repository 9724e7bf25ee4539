#!/usr/bin/env bash
# `make bench-peers` (agreement row): kcurate agree --aggregate majority|dawid-skene (whole
# CLI process, /usr/bin/time -v) against crowd-kit 1.4.2 (.venv-peers, pinned in
# bench/requirements-peers.txt; timed in-process from reading the file to labels) on the same
# input in the same run: time ratio, peak RSS and the share of identical labels.
# Input: the reference 100k items × 5 labels, crowd of 2,000 (gen_crowd example, byte for byte
# ../shared/reference/agreement/bench/input.tsv.gz). Needs no ../shared.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=.venv-peers/bin/python
[ -x "$PY" ] || { echo "bench-peers needs .venv-peers (make bench-peers creates it)"; exit 1; }
[ -n "${NO_BUILD:-}" ] || cargo build -q --release -p kcurate-cli
[ -n "${NO_BUILD:-}" ] || cargo build -q --release -p kcurate-agree --example gen_crowd
DIR=target/agree-bench
mkdir -p "$DIR"
IN="$DIR/1x-crowd2000.tsv"
[ -s "$IN" ] || target/release/examples/gen_crowd > "$IN"
echo "# input: $IN (100000 items x 5 labels, crowd of 2000; target/release/examples/gen_crowd)"
"$PY" bench/agree_peers.py "$IN" "$DIR/peer" > "$DIR/peer.txt"
for how in majority dawid-skene; do
  /usr/bin/time -v target/release/kcurate agree --input "$IN" --aggregate "$how" > "$DIR/kc-$how.jsonl" 2> "$DIR/kc-$how.time"
  wall=$(grep 'Elapsed (wall' "$DIR/kc-$how.time" | awk '{print $NF}' | awk -F: '{print $1 * 60 + $2}')
  rss=$(grep 'Maximum resident' "$DIR/kc-$how.time" | awk '{print $NF / 1024}')
  read -r _ _ pt prss < <(grep "^peer $how " "$DIR/peer.txt")
  "$PY" - "$DIR/kc-$how.jsonl" "$DIR/peer-$how.tsv" "$how" "$wall" "$rss" "$pt" "$prss" <<'PYEOF'
import json, sys
kc_path, peer_path, how, wall, rss, pt, prss = sys.argv[1:]
kc = {}
for line in open(kc_path):
    r = json.loads(line)
    kc[r["item"]] = None if r["label"] is None else str(r["label"])
peer = dict(l.rstrip("\n").split("\t") for l in open(peer_path))
same = sum(1 for k, v in peer.items() if kc.get(k) == v)
nogold = sum(1 for v in kc.values() if v is None)
print(f"bench peers agree {how}: kcurate {float(wall):.2f} s {float(rss):.0f} MB, crowd-kit {float(pt):.2f} s {float(prss):.0f} MB, "
      f"{float(pt) / max(float(wall), 1e-9):.1f}x (target >= 10x); identical labels {same}/{len(peer)} = {100 * same / len(peer):.2f}%"
      + (f" (kcurate: {nogold} ties without gold, crowd-kit picks one)" if how == "majority" else " (target >= 99.9%)"))
PYEOF
done
echo "# commands: target/release/kcurate agree --input $IN --aggregate majority|dawid-skene; $PY bench/agree_peers.py $IN $DIR/peer"
