"""crowd-kit on a long TSV (item/task, annotator/worker, label): one method per process
(so its peak RSS is that method's), timed in-process from reading the file to labels, like
a user's script (imports not counted), and the labels written as TSV for
bench/agree_peers.sh to compare with kcurate's.

usage: agree_peers.py INPUT.tsv METHOD OUT.tsv [GOLD.tsv]
METHOD: majority | dawid-skene | one-coin | wawa | zero-based-skill | mace | glad | mmsr | kos |
gold-majority (crowd-kit's defaults; Dawid-Skene and one-coin with n_iter=100, as kcurate runs
them; gold-majority fits its skills on GOLD.tsv, columns item and label, read in the timed part)
prints: peer <method> <seconds> <peak RSS MB>
"""

import resource
import sys
import time

import pandas as pd
from crowdkit.aggregation import (
    GLAD,
    KOS,
    MACE,
    MMSR,
    DawidSkene,
    GoldMajorityVote,
    MajorityVote,
    OneCoinDawidSkene,
    Wawa,
    ZeroBasedSkill,
)

METHODS = {
    "majority": MajorityVote,
    "dawid-skene": lambda: DawidSkene(n_iter=100),
    "one-coin": lambda: OneCoinDawidSkene(n_iter=100),
    "wawa": Wawa,
    "zero-based-skill": ZeroBasedSkill,
    "mace": MACE,
    "glad": GLAD,
    "mmsr": MMSR,
    "kos": KOS,
    "gold-majority": GoldMajorityVote,
}


def main() -> None:
    src, name, out = sys.argv[1], sys.argv[2], sys.argv[3]
    gold_path = sys.argv[4] if len(sys.argv) > 4 else None
    make = METHODS[name]
    t0 = time.perf_counter()
    df = pd.read_csv(src, sep="\t", dtype=str, keep_default_na=False)
    df = df.rename(columns={"item": "task", "annotator": "worker", "value": "label"})
    if gold_path is None:
        labels = make().fit_predict(df[["task", "worker", "label"]])
    else:
        gold = pd.read_csv(gold_path, sep="\t", dtype=str, keep_default_na=False)
        labels = make().fit_predict(df[["task", "worker", "label"]], gold.set_index("item")["label"])
    dt = time.perf_counter() - t0
    labels.to_csv(out, sep="\t", header=False)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peer {name} {dt:.3f} {rss:.1f}")


if __name__ == "__main__":
    main()
