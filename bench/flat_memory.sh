#!/usr/bin/env bash
# Memory and speed of `kcurate run`: the default stage chain (configs/default.toml: normalize,
# noise, split, filter, dedup, toxicity, pii, assign_split) over NSMC reviews repeated under
# distinct ids, 900k records (~180 MB of JSONL) per 1x, generated here under
# target/bench/flat (never committed). In one run, side by side:
#   - earlier binaries ($PREV_REVS, release builds made under target/bench when missing) and
#     this one at 1x, in turn ($ROUNDS rounds, default 2, so all see the same machine load),
#     wall time and peak RSS (/usr/bin/time -v), and this one's ratio to each;
#   - this binary at each further size (default 10x = 9M records): peak RSS against 1x;
#   - every binary at 1x under `ulimit -v 1000000` (1 GB of address space).
# The load average is printed before and after: on a shared machine the times move with it.
# Usage: bash bench/flat_memory.sh [sizes...]   (default: 1 10; the first size is the
# side-by-side one). MEMORY=SIZE passes --memory to this binary; GENERATE_ONLY=1 only writes
# the inputs and recipes (bench/peers/chain_peers.sh uses them).
set -euo pipefail
cd "$(dirname "$0")/.."
export KCURATE_SHARED="${KCURATE_SHARED:-$(cd .. && pwd)/shared}"
export KCURATE_PII_KEY="${KCURATE_PII_KEY:-kcurate-samples-not-secret}"
[ -d "$KCURATE_SHARED/corpora/nsmc/raw" ] || { echo "flat_memory needs ../shared"; exit 1; }
bin=target/release/kcurate
[ -n "${NO_BUILD:-}" ] || nice -n 5 cargo build --release -q -p kcurate-cli
# Earlier binaries run beside this one: before the flat-memory work (c41cc16^, records held
# whole in memory) and the flat runner that always spilled (b91e6ec). Each is a release build
# of that revision, made here from `git archive` when missing.
PREV_REVS="${PREV_REVS:-c41cc16^ b91e6ec}"
ROUNDS="${ROUNDS:-2}"
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(1 10)
dir=target/bench/flat
mkdir -p "$dir"

prevs=()
for rev in $PREV_REVS; do
  sha=$(git rev-parse --short "$rev")
  exe="target/bench/kcurate-$sha"
  if [ ! -x "$exe" ]; then
    # The revision's sources and build beside this checkout, under target/bench.
    src=target/bench/prev-src
    rm -rf "$src" && mkdir -p "$src"
    git archive "$sha" | tar -x -C "$src"
    (cd "$src" && nice -n 5 cargo build --release -q -p kcurate-cli --target-dir "$PWD/../../../target/bench/prev-target")
    cp target/bench/prev-target/release/kcurate "$exe"
  fi
  prevs+=("$exe")
done

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
    # The stages, task and split (the shipped release motivation is not this data's).
    stages = text[text.index("[[stage]]"):text.index("\n[release]")] + text[text.index("\n[task]"):]
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
[ -z "${GENERATE_ONLY:-}" ] || exit 0

# One timed run: prints "wall_seconds peak_MB exit_status".
timed() {
  local which=$1 k=$2 out
  shift 2
  out=$(mktemp -d "$dir/out-XXXX")
  /usr/bin/time -v -o "$dir/time.txt" "$which" run "$dir/flat-${k}x.toml" --out "$out" "$@" \
    >/dev/null 2>"$dir/stderr-$(basename "$which")-$k.txt" || true
  rm -rf "$out"
  python3 - "$dir/time.txt" <<'PY'
import sys
t = {}
for line in open(sys.argv[1]):
    k, _, v = line.strip().rpartition(": ")
    t[k] = v
parts = [float(x) for x in t["Elapsed (wall clock) time (h:mm:ss or m:ss)"].split(":")]
wall = sum(p * 60 ** i for i, p in enumerate(reversed(parts)))
print(f"{wall:.1f} {int(t['Maximum resident set size (kbytes)']) // 1024} {t['Exit status']}")
PY
}

mem=()
[ -z "${MEMORY:-}" ] || mem=(--memory "$MEMORY")
k=${sizes[0]}
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) cores)"
printf '%-22s %-5s %10s %8s %8s %6s\n' binary size records "wall s" "peak MB" exit
rows="$dir/rows.txt"
: > "$rows"
for ((i = 0; i < ROUNDS; i++)); do
  for which in "${prevs[@]}" "$bin"; do
    extra=()
    [ "$which" != "$bin" ] || extra=("${mem[@]}")
    read -r w r s < <(timed "$which" "$k" "${extra[@]}")
    echo "$which $w $r" >> "$rows"
    printf '%-22s %-5s %10s %8s %8s %6s\n' "$(basename "$which")" "${k}x" "$((900000 * k))" "$w" "$r" "$s"
  done
done
python3 - "$rows" "$bin" <<'PY'
import sys
rows, new = {}, sys.argv[2]
for line in open(sys.argv[1]):
    b, w, r = line.split()
    rows.setdefault(b, []).append((float(w), int(r)))
nw = min(w for w, _ in rows[new]); nr = max(r for _, r in rows[new])
for b, xs in rows.items():
    w = min(x for x, _ in xs); r = max(y for _, y in xs)
    print(f"1x best of {len(xs)}: {b}: {w:.1f} s, {r} MB; new/this: time {nw / w:.2f}, RSS {nr / r:.2f}")
PY
nr=($(awk -v b="$bin" '$1 == b { print $3 }' "$rows"))
for k2 in "${sizes[@]:1}"; do
  read -r w r s < <(timed "$bin" "$k2" "${mem[@]}")
  printf '%-8s %-5s %10s %8s %8s %6s  (RSS %s x the 1x run)\n' new "${k2}x" "$((900000 * k2))" \
    "$w" "$r" "$s" "$(python3 -c "print(round($r / max(${nr[*]/%/,} 1), 2))")"
done
# 1 GB of address space: both binaries at the first size.
for which in "${prevs[@]}" "$bin"; do
  out=$(mktemp -d "$dir/out-XXXX")
  if (ulimit -v 1000000; "$which" run "$dir/flat-${k}x.toml" --out "$out" >/dev/null 2>"$dir/ulimit.txt"); then
    echo "ulimit -v 1000000, ${k}x, $which: ok"
  else
    echo "ulimit -v 1000000, ${k}x, $which: failed (exit $?): $(tail -1 "$dir/ulimit.txt")"
  fi
  rm -rf "$out"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
