"""Reference labels of crowd-kit's other categorical aggregators for tests/fixtures/agree (the
test file `tests/agree_aggregators.rs`): one method, crowd-kit's defaults, on a long TSV (task,
worker, label), one line per task in task order: task, label, the probability crowd-kit gives
that label (6 decimals, as `kcurate agree --aggregate METHOD` prints it as `posterior`).

usage: .venv-peers/bin/python bench/crowdkit_fixture_ref.py METHOD INPUT.tsv > OUT.tsv
METHOD: wawa | zero-based-skill | one-coin | mace
(.venv-peers from bench/requirements-peers.txt; `make .venv-peers/.installed` creates it)
"""

import sys
from importlib.metadata import version

import pandas as pd
from crowdkit.aggregation import MACE, OneCoinDawidSkene, Wawa, ZeroBasedSkill

METHODS = {
    "wawa": ("Wawa()", Wawa),
    "zero-based-skill": ("ZeroBasedSkill()", ZeroBasedSkill),
    "one-coin": ("OneCoinDawidSkene(n_iter=100, tol=1e-5)", lambda: OneCoinDawidSkene(n_iter=100, tol=1e-5)),
    "mace": ("MACE()", MACE),
}


def main() -> None:
    method, src = sys.argv[1], sys.argv[2]
    shown, make = METHODS[method]
    df = pd.read_csv(src, sep="\t", dtype=str, keep_default_na=False)
    model = make()
    model.fit(df[["task", "worker", "label"]])
    probas = model.predict_proba(df) if method in ("wawa", "zero-based-skill") else model.probas_
    labels = probas.idxmax(axis="columns")
    versions = ", ".join(f"{p} {version(p)}" for p in ("crowd-kit", "numpy", "pandas", "scipy"))
    print(f"# crowd-kit {shown} labels of {src}; {versions}; python {sys.version.split()[0]}; "
          f"command: .venv-peers/bin/python bench/crowdkit_fixture_ref.py {method} {src}")
    for task, label in labels.sort_index().items():
        print(f"{task}\t{label}\t{probas.loc[task].max():.6f}")


if __name__ == "__main__":
    main()
