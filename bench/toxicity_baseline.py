"""scikit-learn baseline for kcurate's toxicity model (not part of the Rust build).

Character n-gram (1-3, char_wb, sublinear tf-idf) logistic regression, on the same 5 folds
as `cargo bench -p kcurate-toxicity` (it writes the fold of every row to
$TMPDIR/kcurate_toxicity_folds.txt). Prints gender-bias F1 and hate macro F1 averaged over folds.

    python3 bench/toxicity_baseline.py ../shared/corpora/korean-hate-speech/labeled/train.tsv /tmp/kcurate_toxicity_folds.txt

With --issue19 (a third argument), the toxicity stage's reference baseline instead: char_wb 1-3 tf-idf
(plain tf, scikit-learn's defaults), LogisticRegression(C=4, class_weight="balanced") with
scikit-learn's default max_iter (100; the iterations each fit took are printed) and with
max_iter=1000. kcurate's `features = "char_wb"` model (the stage default) is that recipe
with sublinear tf.
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
if len(sys.argv) > 3 and sys.argv[3] == "--issue19":
    for max_iter in (100, 1000):
        gf, hf, iters = [], [], []
        for k in range(5):
            tr = [i for i, f in enumerate(folds) if f != k]
            te = [i for i, f in enumerate(folds) if f == k]
            vec = TfidfVectorizer(analyzer="char_wb", ngram_range=(1, 3))
            xtr = vec.fit_transform([texts[i] for i in tr])
            xte = vec.transform([texts[i] for i in te])
            lr = lambda: LogisticRegression(C=4, class_weight="balanced", max_iter=max_iter)
            g = lr().fit(xtr, [gender[i] for i in tr])
            gf.append(f1_score([gender[i] for i in te], g.predict(xte)))
            h = lr().fit(xtr, [hate[i] for i in tr])
            hf.append(f1_score([hate[i] for i in te], h.predict(xte), average="macro"))
            iters.append((int(g.n_iter_[0]), int(h.n_iter_[0])))
        print(f"sklearn char_wb 1-3 tf-idf C=4 balanced max_iter={max_iter} 5-fold: gender-bias F1 {sum(gf)/5:.4f}, hate macro F1 {sum(hf)/5:.4f}; iterations (gender, hate) per fold {iters}")
    sys.exit(0)
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
