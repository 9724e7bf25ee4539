#!/usr/bin/env bash
# `make bench-peers` (agreement rows; needs no ../shared): kcurate agree --aggregate
# majority|dawid-skene|one-coin|wawa|zero-based-skill|mace|glad|mmsr|kos|gold-majority (the whole CLI process under
# /usr/bin/time -v) against crowd-kit 1.4.2 (.venv-peers, pinned in bench/requirements-peers.txt; bench/agree_peers.py, one method per
# process, run under /usr/bin/time -v: timed in-process from reading the file to labels,
# imports not counted, AND as the whole Python process a user runs, imports and writing the
# labels included; both ratios are printed) on the same input in the same run; then kcurate
# agree --json (α, Fleiss, per-annotator reliability, bootstrap of 1000), which crowd-kit has
# no counterpart of. Prints one markdown table: time,
# peak RSS, ratio and agreement of the labels (over all items, and over the items where
# kcurate's majority is not tied: kcurate gives no gold on a tie, crowd-kit picks one label).
# Each side runs AGREE_REPEAT times (default 3), alternating; medians are printed.
# Inputs from the gen_crowd example of pipeline/agree: 1x = the reference 100k items x 5
# labels from a crowd of 2,000 (byte for byte ../shared/reference/agreement/bench/input.tsv.gz),
# crowds of 20 and 20,000, 10x = 1M items, and 0.1x = 10k items from a crowd of 2,000.
# AGREE_INPUTS="1x-crowd2000 ..." runs a subset, AGREE_METHODS="wawa mace ..." a subset of the
# methods, AGREE_JSON=0 skips the --json row, KC=path another kcurate binary and GEN=path another
# gen_crowd (with NO_BUILD=1).
# Two of crowd-kit's methods only finish on some inputs, so by default they run there alone
# and print a "skipped" row elsewhere (AGREE_ALL=1 runs every method everywhere): GLAD
# (pandas per step of scipy's CG: 7 min at 0.1x, over an hour at 1x) on 0.1x, the only
# method run there; MMSR (a workers x items matrix, a Python loop over worker pairs: hours
# with a crowd of 2,000) on the crowd of 20.
# KOS takes two labels: it runs on 1x-crowd2000-2class (the 1x crowd with two classes) alone,
# and prints a "skipped" row on the three-class inputs. gold-majority fits its skills on a
# stand-in gold file, NAME.gold.tsv: the first answer of every second item (the generator
# writes no truth; every annotator answers some of those items, as GoldMajorityVote needs).
# MACE runs on the same rows with each item's answers by worker (sorted copy *.by-worker.tsv):
# crowd-kit's MACE labels depend on the row order (tests/fixtures/agree/README.md), and that
# is the order kcurate holds them in; so does KOS's random start (one draw per row), so KOS
# runs on that copy too.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=.venv-peers/bin/python
[ -x "$PY" ] || { echo "bench-peers needs .venv-peers (make bench-peers creates it)"; exit 1; }
[ -n "${NO_BUILD:-}" ] || cargo build -q --release -p kcurate-cli
[ -n "${NO_BUILD:-}" ] || cargo build -q --release -p kcurate-agree --example gen_crowd
KC=${KC:-target/release/kcurate}
GEN=${GEN:-target/release/examples/gen_crowd}
DIR=target/agree-bench
mkdir -p "$DIR"
declare -A ITEMS=([0.1x-crowd2000]=10000 [1x-crowd2000]=100000 [1x-crowd20]=100000 [1x-crowd20000]=100000 [10x-crowd2000]=1000000)
declare -A CROWD=([0.1x-crowd2000]=2000 [1x-crowd2000]=2000 [1x-crowd20]=20 [1x-crowd20000]=20000 [10x-crowd2000]=2000)
ITEMS[1x-crowd2000-2class]=100000 CROWD[1x-crowd2000-2class]=2000
declare -A CLASSES=([1x-crowd2000-2class]=2)
INPUTS=${AGREE_INPUTS:-1x-crowd2000 1x-crowd20 1x-crowd20000 10x-crowd2000 0.1x-crowd2000 1x-crowd2000-2class}
# One run of a 0.2 s process moves by tens of percent on a shared host: each side runs
# AGREE_REPEAT times (alternating) and the medians are compared.
REPEAT=${AGREE_REPEAT:-3}
# time_of FILE -> "wall_seconds rss_mb" from /usr/bin/time -v
time_of() {
  local wall rss
  wall=$(grep 'Elapsed (wall' "$1" | awk '{print $NF}' | awk -F: '{ if (NF == 3) print $1 * 3600 + $2 * 60 + $3; else print $1 * 60 + $2 }')
  rss=$(grep 'Maximum resident' "$1" | awk '{print $NF / 1024}')
  echo "$wall $rss"
}
# median V... / largest V...: of the REPEAT runs of one side.
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
largest() { printf '%s\n' "$@" | sort -g | tail -1; }
# skipped INPUT METHOD -> why crowd-kit's METHOD is not run on INPUT (empty: it is run).
skipped() {
  [ "${AGREE_ALL:-0}" = 1 ] && return
  case "$2" in
    glad) [[ "$1" == 0.1x-* ]] || echo "crowd-kit's GLAD takes over an hour here: see 0.1x" ;;
    mmsr) [[ "$1" == *-crowd20 ]] || echo "crowd-kit's MMSR loops over worker pairs in Python: see 1x-crowd20" ;;
    kos) [[ "$1" == *-2class ]] || echo "KOS takes two labels: see 1x-crowd2000-2class" ;;
  esac
}
# methods INPUT -> the methods run on INPUT.
methods() {
  if [ -n "${AGREE_METHODS:-}" ]; then echo "$AGREE_METHODS"
  elif [[ "$1" == 0.1x-* ]] && [ "${AGREE_ALL:-0}" != 1 ]; then echo glad
  elif [[ "$1" == *-2class ]]; then echo kos
  else echo "majority dawid-skene one-coin wawa zero-based-skill mace glad mmsr kos gold-majority"; fi
}
echo "# host: $(nproc) cores; $(uptime | sed 's/.*load/load/'); each side run $REPEAT times, medians (RSS: the largest)"
for name in $INPUTS; do
  f="$DIR/$name.tsv"
  classes=${CLASSES[$name]:-3}
  [ -s "$f" ] || "$GEN" --items "${ITEMS[$name]}" --workers "${CROWD[$name]}" --classes "$classes" > "$f"
  echo "# $name: ${ITEMS[$name]} items x 5 labels, crowd of ${CROWD[$name]}, $classes classes: $f ($(($(wc -l < "$f") - 1)) rows; $GEN --items ${ITEMS[$name]} --workers ${CROWD[$name]} --classes $classes)"
done
echo
echo "| input | method | kcurate s | kcurate MB | crowd-kit s (in-process) | crowd-kit s (process) | crowd-kit MB | ratio in-process (target >= 10x) | ratio process | identical labels | identical where kcurate's majority is not tied |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
for name in $INPUTS; do
  f="$DIR/$name.tsv"
  for how in $(methods "$name"); do
    why=$(skipped "$name" "$how")
    if [ -n "$why" ]; then
      echo "| $name | $how | - | - | - | - | - | skipped: $why | - | - | - |"
      continue
    fi
    in="$f" gold=()
    if [ "$how" = gold-majority ]; then
      g="$DIR/$name.gold.tsv"
      [ -s "$g" ] || awk -F'\t' 'NR == 1 { print "item\tlabel"; next } !seen[$1]++ && n++ % 2 == 0 { print $1 "\t" $3 }' "$f" > "$g"
      gold=("$g")
    fi
    if [ "$how" = mace ] || [ "$how" = kos ]; then
      in="$DIR/$name.by-worker.tsv"
      [ -s "$in" ] || { head -1 "$f"; tail -n +2 "$f" | LC_ALL=C sort -t$'\t' -k1,1 -k2,2; } > "$in"
    fi
    # Each side REPEAT times, runs alternating; the medians are printed (peak RSS: the largest).
    pts=() pwalls=() prsss=() walls=() rsss=()
    for _ in $(seq "$REPEAT"); do
      /usr/bin/time -v "$PY" bench/agree_peers.py "$in" "$how" "$DIR/peer-$name-$how.tsv" "${gold[@]}" > "$DIR/peer-$name-$how.out" 2> "$DIR/peer-$name-$how.time"
      read -r _ _ pt _ < "$DIR/peer-$name-$how.out"
      read -r pwall prss < <(time_of "$DIR/peer-$name-$how.time")
      /usr/bin/time -v "$KC" agree --input "$in" --aggregate "$how" ${gold:+--gold "${gold[0]}"} > "$DIR/kc-$name-$how.jsonl" 2> "$DIR/kc-$name-$how.time"
      read -r wall rss < <(time_of "$DIR/kc-$name-$how.time")
      pts+=("$pt") pwalls+=("$pwall") prsss+=("$prss") walls+=("$wall") rsss+=("$rss")
    done
    "$PY" bench/agree_compare.py "$DIR/kc-$name-$how.jsonl" "$DIR/peer-$name-$how.tsv" "$name" "$how" \
      "$(median "${walls[@]}")" "$(largest "${rsss[@]}")" "$(median "${pts[@]}")" "$(median "${pwalls[@]}")" "$(largest "${prsss[@]}")"
  done
  [ "${AGREE_JSON:-1}" = 1 ] || continue
  walls=() rsss=()
  for _ in $(seq "$REPEAT"); do
    /usr/bin/time -v "$KC" agree --input "$f" --json > "$DIR/kc-$name-json.json" 2> "$DIR/kc-$name-json.time"
    read -r wall rss < <(time_of "$DIR/kc-$name-json.time")
    walls+=("$wall") rsss+=("$rss")
  done
  awk -v n="$name" -v w="$(median "${walls[@]}")" -v r="$(largest "${rsss[@]}")" 'BEGIN { printf "| %s | --json (targets < 2 s, < 300 MB) | %.2f | %.0f | - | - | - | - | - | - | - |\n", n, w, r }'
done
echo
echo "# commands: $KC agree --input $DIR/NAME.tsv --aggregate METHOD; $KC agree --input $DIR/NAME.tsv --json;"
echo "#           $PY bench/agree_peers.py $DIR/NAME.tsv METHOD OUT.tsv (each under /usr/bin/time -v; mace on NAME.by-worker.tsv;"
echo "#           crowd-kit s (in-process): its own timer, reading to labels; (process): the whole Python process's wall time)"
