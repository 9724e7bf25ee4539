#!/usr/bin/env bash
# Toxicity: training time, 5-fold CV, scoring throughput; then the scikit-learn baseline on
# the same folds (installed into target/py-sklearn on first use), both its default mode and
# the C=4 balanced recipe (--issue19). scikit-learn is pinned to the version of the recorded
# figures (1.5.2).
set -e
cargo bench -q -p kcurate-toxicity --bench toxicity 2>/dev/null | grep '^bench'
venv=target/py-sklearn
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import sklearn; assert sklearn.__version__ == "1.5.2"' 2>/dev/null; then
  python3 -m venv "$venv" && "$venv/bin/pip" install -q --disable-pip-version-check scikit-learn==1.5.2
fi
"$venv/bin/python" bench/toxicity_baseline.py "$KCURATE_SHARED/corpora/korean-hate-speech/labeled/train.tsv" "${TMPDIR:-/tmp}/kcurate_toxicity_folds.txt"
"$venv/bin/python" bench/toxicity_baseline.py "$KCURATE_SHARED/corpora/korean-hate-speech/labeled/train.tsv" "${TMPDIR:-/tmp}/kcurate_toxicity_folds.txt" --issue19
