"""Selection of the fresh held-out slice in tests/fixtures/curation/fresh_slice_20261203.tsv.

A slice of ../shared's NSMC movie files and Wikinews articles that no earlier judgement or
labelling fixture has read: a unit is drawn when sha256("fresh-<SEED>/<corpus>/<key>")
starts with a hex digit below the corpus's threshold, and kept when it is outside the
earlier held-out slice (tests/judged_share.rs, seed 20261129) and no file under
tests/fixtures names one of its reviews (review id as a whole number) or its article (URL,
plain or percent-encoded, or its CSV row). The seed was fixed before any run over it.
Prints the slice as TSV: corpus, key (NSMC movie file name; Wikinews 0-based record index
after the header), the article URL for Wikinews.
Usage: KCURATE_SHARED=/work/shared python3 tools/fresh_slice_select.py > slice.tsv
"""
import csv, glob, hashlib, io, json, os, re, sys, urllib.parse

SEED = 20261203
NSMC_BELOW, NEWS_BELOW = 2, 8  # of 16: an eighth of the movies, half of the articles
shared = os.environ.get("KCURATE_SHARED", "../shared")
here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
fixtures = ""
for p in sorted(glob.glob(os.path.join(here, "tests/fixtures/**/*"), recursive=True)):
    if os.path.isfile(p) and "fresh_slice" not in p and "fresh-20261203" not in p:
        fixtures += open(p, encoding="utf-8", errors="replace").read() + "\n"
numbers = set(re.findall(r"\d+", fixtures))
decoded = urllib.parse.unquote(fixtures)


def drawn(seed, key, below):
    h = hashlib.sha256(f"{seed}/{key}".encode()).hexdigest()
    return int(h[0], 16) < below


def old_slice(key):
    return hashlib.sha256(f"heldout-20261129/{key}".encode()).hexdigest()[0] in "0123"


raw = os.path.join(shared, "corpora/nsmc/raw")
for name in sorted(os.listdir(raw)):
    key = f"nsmc/{name}"
    if not drawn(f"fresh-{SEED}", key, NSMC_BELOW) or old_slice(key):
        continue
    reviews = json.load(open(os.path.join(raw, name), encoding="utf-8"))
    if any(r["review_id"] in numbers for r in reviews):
        continue
    print(f"nsmc\t{name}\t")
text = open(os.path.join(shared, "corpora/wikinews/wikinews.csv"), encoding="utf-8").read()
rows = list(csv.reader(io.StringIO(text)))
head = rows[0]
url_col = head.index("출처")
for k, row in enumerate(rows[1:]):
    key = f"wikinews/{k}"
    if not drawn(f"fresh-{SEED}", key, NEWS_BELOW) or old_slice(key):
        continue
    url = row[url_col]
    if url in fixtures or urllib.parse.unquote(url) in decoded:
        continue
    print(f"wikinews\t{k}\t{url}")
