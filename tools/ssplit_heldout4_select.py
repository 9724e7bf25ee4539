"""Selection of tests/fixtures/curation/*_ssplit_heldout4.jsonl: a held-out set of
the sentence splitter, read before the rules it measures were written.

Prints the candidates to read, in order: NSMC reviews of at least 40 chars (movie files
sorted by number, file order inside) and hate-speech train comments of at least 40 chars,
minus every item of an earlier *_ssplit*.jsonl set, each list shuffled with its own seed.
Usage: KCURATE_SHARED=/work/shared python3 tools/ssplit_heldout4_select.py nsmc|comments N
"""
import glob, json, os, random, sys

shared = os.environ.get("KCURATE_SHARED", "../shared")
fx = os.path.join(os.path.dirname(__file__), "..", "tests/fixtures/curation")
seen_reviews, seen_lines = set(), set()
for p in glob.glob(os.path.join(fx, "*_ssplit*.jsonl")):
    if "heldout4" in p:
        continue
    for l in open(p, encoding="utf-8"):
        o = json.loads(l)
        if "review_id" in o:
            seen_reviews.add(o["review_id"])
        else:
            seen_lines.add(o["line"])
kind, n = sys.argv[1], int(sys.argv[2])
if kind == "nsmc":
    raw = os.path.join(shared, "corpora/nsmc/raw")
    items = []
    for f in sorted(os.listdir(raw), key=lambda f: int(f[:-5])):
        for r in json.load(open(os.path.join(raw, f), encoding="utf-8")):
            if len(r["review"]) >= 40 and r["review_id"] not in seen_reviews:
                items.append({"movie": f[:-5], "review_id": r["review_id"], "text": r["review"]})
    random.seed(202611279)
else:
    rows = open(os.path.join(shared, "corpora/korean-hate-speech/labeled/train.tsv"), encoding="utf-8").read().split("\n")
    items = []
    for i, row in enumerate(rows[1:], start=2):
        if not row:
            continue
        t = row.split("\t")[0]
        if t.startswith('"') and t.endswith('"'):
            t = t[1:-1].replace('""', '"')
        if len(t) >= 40 and i not in seen_lines:
            items.append({"line": i, "text": t})
    random.seed(202611278)
random.shuffle(items)
for it in items[:n]:
    print(json.dumps(it, ensure_ascii=False))
