"""Reference Dawid–Skene labels for tests/fixtures/agree (the test `agree_ds_crowdkit`):
crowd-kit's DawidSkene (n_iter=100, tol=1e-5, its defaults and kcurate's) on a long TSV
(task, worker, label), one line per task in task order: task, label, posterior of that label
(6 decimals, as `kcurate agree --aggregate dawid-skene` prints it).

usage: .venv-peers/bin/python bench/ds_fixture_ref.py INPUT.tsv > OUT.tsv
(.venv-peers from bench/requirements-peers.txt; `make .venv-peers/.installed` creates it)
"""

import sys
from importlib.metadata import version

import pandas as pd
from crowdkit.aggregation import DawidSkene


def main() -> None:
    src = sys.argv[1]
    df = pd.read_csv(src, sep="\t", dtype=str, keep_default_na=False)
    ds = DawidSkene(n_iter=100, tol=1e-5)
    labels = ds.fit_predict(df[["task", "worker", "label"]])
    versions = ", ".join(f"{p} {version(p)}" for p in ("crowd-kit", "numpy", "pandas", "scipy"))
    print(f"# crowd-kit DawidSkene(n_iter=100, tol=1e-5) labels of {src}; {versions}; "
          f"python {sys.version.split()[0]}; {len(ds.loss_history_)} iterations; "
          f"command: .venv-peers/bin/python bench/ds_fixture_ref.py {src}")
    for task, label in labels.sort_index().items():
        print(f"{task}\t{label}\t{ds.probas_.loc[task].max():.6f}")


if __name__ == "__main__":
    main()
