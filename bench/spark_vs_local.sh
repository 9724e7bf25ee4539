#!/usr/bin/env bash
# Local against Spark: the same release built by `kcurate run` on one machine and by
# the Spark driver (integrations/spark/kcurate_spark.py) with local[2] and local[4], over the
# full shared NSMC + Wikinews corpora (configs/nsmc-wikinews.toml). Prints wall time, the
# peak RSS of the whole process tree (every descendant summed, sampled every 0.1 s by
# bench/tree_rss.py: the JVM, the Python driver and the kcurate processes together) and
# whether the two releases are byte-identical (diff -r) and verify.
# Needs ../shared, the release binary (make build) and .venv-spark (make .venv-spark/.installed).
# Usage: bash bench/spark_vs_local.sh [masters...]   (default: local[2] local[4])
set -euo pipefail
cd "$(dirname "$0")/.."
export KCURATE_SHARED="${KCURATE_SHARED:-$(cd .. && pwd)/shared}"
export KCURATE_PII_KEY="${KCURATE_PII_KEY:-kcurate-samples-not-secret}"
[ -d "$KCURATE_SHARED/corpora" ] || { echo "spark_vs_local needs ../shared"; exit 1; }
[ -x .venv-spark/bin/python ] || { echo "spark_vs_local needs .venv-spark (make .venv-spark/.installed)"; exit 1; }
[ -n "${NO_BUILD:-}" ] || nice -n 5 cargo build --release -q -p kcurate-cli
KC=$PWD/target/release/kcurate
RECIPE=${RECIPE:-configs/nsmc-wikinews.toml}
masters=("$@")
[ ${#masters[@]} -gt 0 ] || masters=("local[2]" "local[4]")
DIR=target/bench/spark
rm -rf "$DIR" && mkdir -p "$DIR"
echo "# host: $(nproc) cores; $(uptime | sed 's/.*load/load/'); recipe $RECIPE"
printf '%-22s %9s %12s %s\n' run wall_s peak_rss_mb release
row() { # name cmd...
  local name=$1; shift
  local out; out=$(python3 bench/tree_rss.py "$@" 2> "$DIR/$name.log") || {
    s=$?; [ $s -eq 3 ] || { echo "$name failed ($s), see $DIR/$name.log"; exit 1; }; }
  echo "$out"
}
res=$(row local "$KC" run "$RECIPE" --out "$DIR/local")
read -r wall rss <<< "$res"
rel=$(ls -d "$DIR"/local/*/*)
"$KC" verify "$rel" > /dev/null
printf '%-22s %9s %12s %s\n' "kcurate run" "$wall" "$rss" "verify ok"
for m in "${masters[@]}"; do
  n=${m//[^0-9]/}
  res=$(row "spark$n" .venv-spark/bin/python integrations/spark/kcurate_spark.py \
    "$RECIPE" --out "$DIR/spark$n" --master "$m" --partitions "$n" --kcurate "$KC" \
    --work "$DIR/work$n")
  read -r wall rss <<< "$res"
  srel=$(ls -d "$DIR/spark$n"/*/*)
  "$KC" verify "$srel" > /dev/null
  if diff -r "$rel" "$srel" > /dev/null; then same="verify ok, diff -r identical"; else same="DIFFERS"; fi
  printf '%-22s %9s %12s %s\n' "spark $m" "$wall" "$rss" "$same"
done
