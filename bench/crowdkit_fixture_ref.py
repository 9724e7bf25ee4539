"""Reference labels of crowd-kit's other categorical aggregators for tests/fixtures/agree (the
test file `tests/agree_aggregators.rs`): one method, crowd-kit's defaults, on a long TSV (task,
worker, label), one line per task in task order: task, label, the probability crowd-kit gives
that label (6 decimals, as `kcurate agree --aggregate METHOD` prints it as `posterior`; KOS
gives no probability: its lines have no third field).

usage: .venv-peers/bin/python bench/crowdkit_fixture_ref.py METHOD INPUT.tsv [GOLD.tsv] > OUT.tsv
METHOD: wawa | zero-based-skill | one-coin | mace | glad | mmsr | kos | gold-majority
(gold-majority: GOLD.tsv with columns item, label holds the known labels it fits skills on)
(GLAD's M-step is scipy's conjugate gradient and M-MSR's signs come from ARPACK with a
random start, neither reproduced bit for bit by kcurate: their first line states the
tolerance the test allows)
(.venv-peers from bench/requirements-peers.txt; `make .venv-peers/.installed` creates it)
"""

import sys
from importlib.metadata import version

import pandas as pd
from crowdkit.aggregation import (
    GLAD,
    KOS,
    MACE,
    MMSR,
    GoldMajorityVote,
    OneCoinDawidSkene,
    Wawa,
    ZeroBasedSkill,
)

METHODS = {
    "wawa": ("Wawa()", Wawa),
    "zero-based-skill": ("ZeroBasedSkill()", ZeroBasedSkill),
    "one-coin": ("OneCoinDawidSkene(n_iter=100, tol=1e-5)", lambda: OneCoinDawidSkene(n_iter=100, tol=1e-5)),
    "mace": ("MACE()", MACE),
    "glad": ("GLAD()", GLAD),
    "mmsr": ("MMSR()", MMSR),
    "kos": ("KOS()", KOS),
    "gold-majority": ("GoldMajorityVote()", GoldMajorityVote),
}

# What tests/agree_aggregators.rs accepts where kcurate's optimiser is not crowd-kit's.
TOLERANCE = {
    "glad": "tolerance: >= 99% of labels identical, posteriors of identical labels within 1e-6 "
    "(kcurate follows scipy's CG and dcsrch steps but sums in another order)",
    "mmsr": "tolerance: >= 99% of labels identical, scores of identical labels within 1e-6 "
    "(the skills' signs by power iteration, not ARPACK)",
    "kos": "tolerance: >= 99% of labels identical (the start is numpy's normal draws in row "
    "order: on rows in another order the messages start elsewhere)",
}


def main() -> None:
    method, src = sys.argv[1], sys.argv[2]
    shown, make = METHODS[method]
    df = pd.read_csv(src, sep="\t", dtype=str, keep_default_na=False)
    model = make()
    if method == "gold-majority":
        gold_path = sys.argv[3]
        gold = pd.read_csv(gold_path, sep="\t", dtype=str, keep_default_na=False)
        model.fit(df[["task", "worker", "label"]], gold.set_index("item")["label"])
        src = f"{src} {gold_path}"
    else:
        model.fit(df[["task", "worker", "label"]])
    if method == "kos":
        print(kos_provenance(shown, src))
        for task, label in model.labels_.sort_index().items():
            print(f"{task}\t{label}")
        return
    if method in ("wawa", "zero-based-skill", "gold-majority"):
        probas = model.predict_proba(df)
    elif method == "mmsr":
        probas = model.predict_score(df)
    else:
        probas = model.probas_
    labels = probas.idxmax(axis="columns")
    print(provenance(method, shown, src))
    for task, label in labels.sort_index().items():
        print(f"{task}\t{label}\t{probas.loc[task].max():.6f}")


def provenance(method: str, shown: str, src: str) -> str:
    versions = ", ".join(f"{p} {version(p)}" for p in ("crowd-kit", "numpy", "pandas", "scipy"))
    return (f"# crowd-kit {shown} labels of {src}; {versions}; python {sys.version.split()[0]}; "
            f"command: .venv-peers/bin/python bench/crowdkit_fixture_ref.py {method} {src}"
            + (f"; {TOLERANCE[method]}" if method in TOLERANCE else ""))


def kos_provenance(shown: str, src: str) -> str:
    return provenance("kos", shown, src) + "; no probabilities (KOS gives none)"


if __name__ == "__main__":
    main()
