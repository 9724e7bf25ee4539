#!/usr/bin/env bash
# kcurate agree at scale, whole CLI process: majority, Dawid–Skene and `--json` statistics
# (default bootstrap, 1000 replicates) on synthetic crowd files written by the gen_crowd
# example (the reference generator of ../shared/reference/agreement/bench: 1× is its
# 100k items × 5 labels from a crowd of 2,000, byte for byte), then 10× the items (1M) and
# crowds of 20 and 20,000. Prints wall and CPU seconds and peak RSS (/usr/bin/time -v).
# Needs no ../shared. Usage: bash bench/agree_scale.sh [KCURATE_BINARY]
set -euo pipefail
cd "$(dirname "$0")/.."
[ -n "${NO_BUILD:-}" ] || cargo build -q --release -p kcurate-cli
[ -n "${NO_BUILD:-}" ] || cargo build -q --release -p kcurate-agree --example gen_crowd
BIN=${1:-target/release/kcurate}
GEN=target/release/examples/gen_crowd
DIR=target/agree-bench
mkdir -p "$DIR"
row() { # name, file, args...
  local name=$1 file=$2; shift 2
  /usr/bin/time -v "$BIN" agree --input "$file" "$@" > "$DIR/out.txt" 2> "$DIR/time.txt" || true
  local wall user sys rss
  wall=$(grep 'Elapsed (wall' "$DIR/time.txt" | awk '{print $NF}')
  user=$(grep 'User time' "$DIR/time.txt" | awk '{print $NF}')
  sys=$(grep 'System time' "$DIR/time.txt" | awk '{print $NF}')
  rss=$(grep 'Maximum resident' "$DIR/time.txt" | awk '{print $NF}')
  printf 'bench agree %-28s wall %8s  cpu %6.2f s  peak RSS %7.1f MB\n' "$name" "$wall" "$(echo "$user + $sys" | bc)" "$(echo "$rss / 1024" | bc -l)"
}
for spec in "1x-crowd2000 100000 2000" "1x-crowd20 100000 20" "1x-crowd20000 100000 20000" "10x-crowd2000 1000000 2000"; do
  set -- $spec
  f="$DIR/$1.tsv"
  [ -s "$f" ] || "$GEN" --items "$2" --workers "$3" > "$f"
  echo "# $1: $2 items x 5 labels, crowd of $3 ($(($(wc -l < "$f") - 1)) rows; $GEN --items $2 --workers $3)"
  row "$1 majority" "$f" --aggregate majority
  row "$1 dawid-skene" "$f" --aggregate dawid-skene
  row "$1 --json" "$f" --json
done
sha=$(sha256sum "$DIR/1x-crowd2000.tsv" | cut -d' ' -f1)
echo "# 1x input sha256 $sha (reference 86d30caafb64060943534518b86eba2c5723a9d7140650ff9b01da394571af96)"
