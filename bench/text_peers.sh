#!/usr/bin/env bash
# `make bench-peers` (text rows; needs ../shared): the kcurate CLI process against the peer
# process a user would run, on the same input in the same run, each under /usr/bin/time -v
# (wall seconds, peak RSS); the peer's in-process time (after imports and model set-up) is
# printed beside it. Peers from .venv-peers (bench/requirements-peers.txt).
#   kss      kcurate text split  vs  kss 6.0.6 split_sentences(backend="mecab") (bench/peers/kss_split.py)
#            on reference/ssplit/gold_visible.jsonl; boundary F1 of each by reference/ssplit/score.py,
#            and the boundary F1 of kss against kcurate's output (agreement)
#   presidio kcurate pii detect  vs  presidio-analyzer 2.2.366, reference/pii/baseline.py's presidio-kr
#            (bench/peers/presidio_detect.py) on reference/pii/dev.jsonl; micro F1 (exact spans)
#            by reference/pii/score.py, and the spans both find
#   minhash  kcurate run (a recipe with the dedup stage only) vs datatrove 0.10.1 MinHash
#            dedup (bench/peers/datatrove_minhash.py) on the NSMC reviews as {"id","text"} JSONL;
#            near-duplicate pairs (removed, kept twin) found by each, and their overlap
set -euo pipefail
cd "$(dirname "$0")/.."
PY=.venv-peers/bin/python
SH=${KCURATE_SHARED:-../shared}
[ -x "$PY" ] || { echo "bench-peers needs .venv-peers (make bench-peers creates it)"; exit 1; }
[ -d "$SH/reference" ] || { echo "bench-peers text rows need ../shared (KCURATE_SHARED=$SH)"; exit 1; }
export KCURATE_SHARED=$SH
[ -n "${NO_BUILD:-}" ] || cargo build -q --release -p kcurate-cli
KC=$PWD/target/release/kcurate
DIR=target/peers
mkdir -p "$DIR"
echo "# host: $(nproc) cores; $(uptime | sed 's/.*load/load/')"
# measure NAME STDIN STDOUT cmd... -> "$DIR/NAME.time"; prints "wall rss_mb"
measure() {
  local name=$1 in=$2 out=$3; shift 3
  /usr/bin/time -v "$@" < "$in" > "$out" 2> "$DIR/$name.time"
  local wall rss
  wall=$(grep 'Elapsed (wall' "$DIR/$name.time" | awk '{print $NF}' | awk -F: '{ if (NF == 3) print $1 * 3600 + $2 * 60 + $3; else print $1 * 60 + $2 }')
  rss=$(grep 'Maximum resident' "$DIR/$name.time" | awk '{printf "%.0f", $NF / 1024}')
  echo "$wall $rss"
}
inproc() { grep -h "^peer " "$DIR/$1.time" | awk '{print $NF}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", a / (b > 0.005 ? b : 0.005) }'; }

# --- kss --------------------------------------------------------------------------------
G=$SH/reference/ssplit/gold_visible.jsonl
read -r kw kr < <(measure kc-split "$G" "$DIR/kc-split.jsonl" "$KC" text split)
read -r pw pr < <(measure kss "$G" "$DIR/kss.jsonl" "$PY" bench/peers/kss_split.py mecab)
f1() { python3 "$SH/reference/ssplit/score.py" "$1" "$2" --json "$DIR/score.json" > /dev/null
       python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); a=d.get("all", d); print("%.4f" % a["f1"])' "$DIR/score.json"; }
kf=$(f1 "$G" "$DIR/kc-split.jsonl"); pf=$(f1 "$G" "$DIR/kss.jsonl")
# agreement: kss scored against kcurate's sentences as if they were the gold
python3 - "$G" "$DIR/kc-split.jsonl" "$DIR/kc-as-gold.jsonl" <<'PY'
import json, sys
text = {json.loads(l)["id"]: json.loads(l)["text"] for l in open(sys.argv[1], encoding="utf-8")}
with open(sys.argv[3], "w", encoding="utf-8") as f:
    for l in open(sys.argv[2], encoding="utf-8"):
        r = json.loads(l)
        f.write(json.dumps({"id": r["id"], "text": text[r["id"]], "sentences": r["sentences"]}, ensure_ascii=False) + "\n")
PY
af=$(f1 "$DIR/kc-as-gold.jsonl" "$DIR/kss.jsonl")
echo "bench peers kss (gold_visible.jsonl, 899 paragraphs, 172,722 chars): kcurate text split $kw s $kr MB F1 $kf; kss mecab $pw s (split $(inproc kss) s) $pr MB F1 $pf; $(ratio "$pw" "$kw")x time (kss's split time alone $(ratio "$(inproc kss)" "$kw")x), $(ratio "$pr" "$kr")x RSS; kss vs kcurate boundary F1 $af"
echo "#   $KC text split < $G; $PY bench/peers/kss_split.py mecab < $G; python3 $SH/reference/ssplit/score.py $G PRED"

# --- Presidio ---------------------------------------------------------------------------
P=$SH/reference/pii/dev.jsonl
read -r kw kr < <(measure kc-pii "$P" "$DIR/kc-pii.jsonl" "$KC" pii detect)
read -r pw pr < <(measure presidio "$P" "$DIR/presidio.jsonl" "$PY" bench/peers/presidio_detect.py presidio-kr)
pf1() { python3 "$SH/reference/pii/score.py" "$P" "$1" --json "$DIR/pscore.json" > /dev/null
        python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); m=d["exact"]["micro"] if "exact" in d else d["micro"]["exact"]; print("%.3f" % m["f1"])' "$DIR/pscore.json"; }
kf=$(pf1 "$DIR/kc-pii.jsonl"); pf=$(pf1 "$DIR/presidio.jsonl")
both=$(python3 - "$DIR/kc-pii.jsonl" "$DIR/presidio.jsonl" <<'PY'
import json, sys
def spans(p):
    return {(r["id"], s["start"], s["end"], s["type"]) for l in open(p, encoding="utf-8") for r in [json.loads(l)] for s in r["spans"]}
a, b = spans(sys.argv[1]), spans(sys.argv[2])
print(f"spans kcurate {len(a)}, presidio {len(b)}, both {len(a & b)}")
PY
)
echo "bench peers presidio (pii/dev.jsonl, 1,500 sentences, 59,271 chars): kcurate pii detect $kw s $kr MB micro F1 $kf; presidio-kr $pw s (analyze $(inproc presidio) s) $pr MB micro F1 $pf; $(ratio "$pw" "$kw")x time (analyze time alone $(ratio "$(inproc presidio)" "$kw")x), $(ratio "$pr" "$kr")x RSS; $both"
echo "#   $KC pii detect < $P; $PY bench/peers/presidio_detect.py presidio-kr < $P; python3 $SH/reference/pii/score.py $P PRED"

# --- datatrove MinHash ------------------------------------------------------------------
N=$DIR/nsmc.jsonl
[ -s "$N" ] || python3 - "$SH/corpora/nsmc/raw" "$N" <<'PY'
import glob, json, os, sys
with open(sys.argv[2], "w", encoding="utf-8") as f:
    for p in sorted(glob.glob(os.path.join(sys.argv[1], "*.json"))):
        for r in json.load(open(p, encoding="utf-8")):
            if r["review"].strip():
                f.write(json.dumps({"id": r["review_id"], "text": r["review"]}, ensure_ascii=False) + "\n")
PY
cat > "$DIR/dedup.toml" <<TOML
name = "peers-dedup"
version = "1"
seed = 1
description = "make bench-peers: the dedup stage alone over NSMC reviews (exact + MinHash, char 5-grams, 64 hashes in 16 bands, Jaccard >= 0.8)"
[[source]]
id = "nsmc"
path = "$PWD/$N"
format = "jsonl"
license = "CC0-1.0"
domain = "reviews"
style = "colloquial"
attribution = "Lucy Park, Naver sentiment movie corpus v1.0"
[source.fields]
text = "text"
id = "id"
[[stage]]
name = "dedup"
threshold = 0.8
TOML
read -r kw kr < <(measure kc-dedup /dev/null "$DIR/kc-dedup.out" "$KC" run "$DIR/dedup.toml" --out "$DIR/rel" --overwrite)
read -r pw pr < <(measure datatrove /dev/null "$DIR/datatrove.out" "$PY" bench/peers/datatrove_minhash.py "$N" "$DIR/dt")
python3 - "$DIR/rel/peers-dedup/1/audit/decisions.jsonl" "$DIR/dt/pairs.tsv" "$N" "$kw" "$kr" "$pw" "$pr" "$(inproc datatrove)" <<'PY'
import json, re, sys
dec, dtp, src, kw, kr, pw, pr, pin = sys.argv[1:]
n = sum(1 for _ in open(src, encoding="utf-8"))
def bare(i):
    return i[len("nsmc-"):] if i.startswith("nsmc-") else i
kc, kinds = {}, {}
for l in open(dec, encoding="utf-8"):
    d = json.loads(l)
    if d["stage"] != "dedup" or d["action"] != "drop":
        continue
    m = re.search(r"of (\S+)", d["detail"] or "")
    kc[bare(d["item"])] = bare(m.group(1)) if m else ""
    kinds[d["rule"]] = kinds.get(d["rule"], 0) + 1
dt = dict(l.rstrip("\n").split("\t") for l in open(dtp, encoding="utf-8"))
a, b = set(kc), set(dt)
pairs_both = sum(1 for k in a & b if kc[k] == dt[k])
# The criterion both are set up for: Jaccard of character 5-gram sets of the dedup key (NFC,
# lower case, letters and digits only) >= 0.8; keys under 5 characters: equal keys.
import unicodedata
text = {}
for l in open(src, encoding="utf-8"):
    r = json.loads(l)
    text[r["id"]] = "".join(c for c in unicodedata.normalize("NFC", r["text"]).lower() if c.isalnum())
def near(x, y):
    x, y = text.get(x, ""), text.get(y, "")
    if len(x) < 5 or len(y) < 5:
        return x == y
    gx = {x[i:i + 5] for i in range(len(x) - 4)}
    gy = {y[i:i + 5] for i in range(len(y) - 4)}
    return len(gx & gy) / len(gx | gy) >= 0.8
short = sum(1 for k in a - b if len(text.get(k, "")) < 5)
true_k = sum(1 for k, v in kc.items() if near(k, v))
true_d = sum(1 for k, v in dt.items() if near(k, v))
print(f"bench peers minhash (NSMC reviews, {n} docs): kcurate run (dedup) {float(kw):.2f} s {kr} MB, removed {len(a)} ({', '.join(f'{k} {v}' for k, v in sorted(kinds.items()))}); "
      f"datatrove {float(pw):.2f} s (pipeline {pin} s) {pr} MB, removed {len(b)}; {float(pw) / max(float(kw), 0.005):.1f}x time (pipeline alone {float(pin) / max(float(kw), 0.005):.1f}x), {float(pr) / max(float(kr), 1):.1f}x RSS; "
      f"removed by both {len(a & b)}, only kcurate {len(a - b)} ({short} with keys under 5 chars: no 5-gram for datatrove), only datatrove {len(b - a)}; same (removed, kept) pair {pairs_both}; "
      f"pairs with true 5-gram Jaccard >= 0.8 (or equal short keys): kcurate {true_k}/{len(kc)}, datatrove {true_d}/{len(dt)}")
PY
echo "#   $KC run $DIR/dedup.toml --out $DIR/rel --overwrite; $PY bench/peers/datatrove_minhash.py $N $DIR/dt"
