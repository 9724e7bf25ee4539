"""scikit-learn baseline for kcurate's toxicity model (not part of the Rust build).

Character n-gram (1-3, char_wb, sublinear tf-idf) logistic regression, on the same 5 folds
as `cargo bench -p kcurate-toxicity` (it writes the fold of every row to
$TMPDIR/kcurate_toxicity_folds.txt). Prints gender-bias F1 and hate macro F1 averaged over folds.

    python3 bench/toxicity_baseline.py ../shared/corpora/korean-hate-speech/labeled/train.tsv /tmp/kcurate_toxicity_folds.txt
"""
import csv, sys, time
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import f1_score

tsv, fold_file = sys.argv[1], sys.argv[2]
rows = list(csv.DictReader(open(tsv, encoding="utf-8"), delimiter="\t", quoting=csv.QUOTE_NONE))
folds = [int(x) for x in open(fold_file).read().split()]
assert len(folds) == len(rows), (len(folds), len(rows))
texts = [r["comments"] for r in rows]
gender = [int(r["bias"] == "gender") for r in rows]
hate = [r["hate"] for r in rows]
gf, hf = [], []
t0 = time.time()
for k in range(5):
    tr = [i for i, f in enumerate(folds) if f != k]
    te = [i for i, f in enumerate(folds) if f == k]
    vec = TfidfVectorizer(analyzer="char_wb", ngram_range=(1, 3), sublinear_tf=True)
    xtr = vec.fit_transform([texts[i] for i in tr])
    xte = vec.transform([texts[i] for i in te])
    g = LogisticRegression(max_iter=1000).fit(xtr, [gender[i] for i in tr])
    gf.append(f1_score([gender[i] for i in te], g.predict(xte)))
    h = LogisticRegression(max_iter=1000).fit(xtr, [hate[i] for i in tr])
    hf.append(f1_score([hate[i] for i in te], h.predict(xte), average="macro"))
print(f"bench toxicity sklearn baseline 5-fold: gender-bias F1 {sum(gf)/5:.4f}, hate macro F1 {sum(hf)/5:.4f} ({time.time()-t0:.1f} s)")
