#!/usr/bin/env bash
# Flat memory of `kcurate run`: the default stage chain (configs/default.toml:
# normalize, noise, split, filter, dedup, toxicity, pii, assign_split) over NSMC reviews
# repeated under distinct ids, at 1x (900k records, ~190 MB of JSONL), 4x and 10x
# (9M records, ~1.7 GB). The inputs are generated here, under target/bench/flat (never
# committed). Prints time and peak RSS per size (/usr/bin/time -v), and the run under
# `ulimit -v 1000000` (the address space a small machine or a batch scheduler may allow).
# Usage: bash bench/flat_memory.sh [sizes...]   (default: 1 4 10)
set -euo pipefail
cd "$(dirname "$0")/.."
export KCURATE_SHARED="${KCURATE_SHARED:-$(cd .. && pwd)/shared}"
export KCURATE_PII_KEY="${KCURATE_PII_KEY:-kcurate-samples-not-secret}"
[ -d "$KCURATE_SHARED/corpora/nsmc/raw" ] || { echo "flat_memory needs ../shared"; exit 1; }
bin=target/release/kcurate
[ -n "${NO_BUILD:-}" ] || nice -n 5 cargo build --release -q -p kcurate-cli
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(1 4 10)
dir=target/bench/flat
mkdir -p "$dir"

python3 - "$KCURATE_SHARED/corpora/nsmc/raw" "$dir" "$PWD" "${sizes[@]}" <<'PY'
import glob, json, os, sys
raw, out, repo, sizes = sys.argv[1], sys.argv[2], sys.argv[3], [int(x) for x in sys.argv[4:]]
reviews = []
for f in sorted(glob.glob(os.path.join(raw, "*.json"))):
    reviews.extend(json.load(open(f, encoding="utf-8")))
per_x = 900_000
for k in sizes:
    path = os.path.join(out, f"nsmc-{k}x.jsonl")
    n = per_x * k
    if not (os.path.exists(path) and os.path.exists(path + ".done")):
        with open(path, "w", encoding="utf-8") as w:
            for i in range(n):
                r = dict(reviews[i % len(reviews)])
                # Distinct ids: the copy number, then the review's own id.
                r["review_id"] = f"{i // len(reviews)}-{r['review_id']}"
                w.write(json.dumps(r, ensure_ascii=False) + "\n")
        open(path + ".done", "w").close()
    # The default recipe's stages over this one source (paths made absolute).
    text = open(os.path.join(repo, "configs/default.toml"), encoding="utf-8").read()
    stages = text[text.index("[[stage]]"):]
    stages = stages.replace('"../', f'"{repo}/')
    recipe = f'''name = "bench-flat-{k}x"
version = "1"
seed = 42
on_error = "quarantine"

[[source]]
id = "nsmc"
path = "{os.path.abspath(path)}"
format = "jsonl"
license = "CC0-1.0"
domain = "reviews"
style = "colloquial"
attribution = "Lucy Park, Naver sentiment movie corpus v1.0 (repeated under distinct ids)"
[source.fields]
text = "review"
id = "review_id"
date = "date"
label = "rating"
extra = ["movie_id"]

''' + stages
    open(os.path.join(out, f"flat-{k}x.toml"), "w", encoding="utf-8").write(recipe)
print(f"{len(reviews)} distinct reviews, repeated under distinct ids")
PY

printf '%-5s %10s %10s %9s %10s\n' size records "input MB" "wall s" "peak MB"
for k in "${sizes[@]}"; do
  out=$(mktemp -d "$dir/out-XXXX")
  /usr/bin/time -v -o "$dir/time-$k.txt" "$bin" run "$dir/flat-${k}x.toml" --out "$out" \
    >/dev/null 2>"$dir/stderr-$k.txt" || true
  wall=$(grep 'Elapsed (wall' "$dir/time-$k.txt" | awk '{print $NF}')
  rss=$(grep 'Maximum resident' "$dir/time-$k.txt" | awk '{print $NF}')
  status=$(grep 'Exit status' "$dir/time-$k.txt" | awk '{print $NF}')
  mb=$(du -m "$dir/nsmc-${k}x.jsonl" | cut -f1)
  printf '%-5s %10s %10s %9s %10.0f  (exit %s)\n' "${k}x" "$((900000 * k))" "$mb" "$wall" \
    "$(echo "$rss / 1024" | bc -l)" "$status"
  rm -rf "$out"
done
# 1 GB of virtual memory is enough for a 1x run.
out=$(mktemp -d "$dir/out-XXXX")
k=${sizes[0]}
if (ulimit -v 1000000; "$bin" run "$dir/flat-${k}x.toml" --out "$out" >/dev/null 2>"$dir/ulimit.txt"); then
  echo "ulimit -v 1000000, ${k}x: ok"
else
  echo "ulimit -v 1000000, ${k}x: failed (exit $?; see $dir/ulimit.txt)"
fi
rm -rf "$out"
