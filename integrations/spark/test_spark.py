#!/usr/bin/env python3
"""`make test-spark`: the release built on Spark (local[2]) equals `kcurate run`'s byte for
byte, and `kcurate verify` passes on both; dedup goes through the driver's shuffle (its
verdicts applied by `kcurate finalise --dedup-verdicts`).

    python integrations/spark/test_spark.py --kcurate target/release/kcurate --work DIR \
        [--records 200000] [--master local[2]]

Cases: configs/default.toml (data-samples) at 1, 2 and 4 partitions, and a generated
corpus (make_corpus.py, 200k records by default) at 2 partitions. One Spark context
serves every case. Ends with the line "N passed, M failed"; exits 1 when any failed.
"""

import argparse
import filecmp
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import kcurate_spark  # noqa: E402

REPO = Path(__file__).resolve().parents[2]


def tree_differences(a, b, rel=""):
    """Paths that differ between two directory trees (missing on a side, or other bytes)."""
    out = []
    c = filecmp.dircmp(a, b)
    out += [f"{rel}{n}: only in {a}" for n in c.left_only]
    out += [f"{rel}{n}: only in {b}" for n in c.right_only]
    for n in c.common_files:
        if not filecmp.cmp(Path(a) / n, Path(b) / n, shallow=False):
            out.append(f"{rel}{n}: bytes differ")
    for d in c.common_dirs:
        out += tree_differences(Path(a) / d, Path(b) / d, f"{rel}{d}/")
    return out


def release_dir(out, recipe):
    import tomllib

    r = tomllib.loads(Path(recipe).read_text(encoding="utf-8"))
    return Path(out) / r["name"] / r["version"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kcurate", default=str(REPO / "target/release/kcurate"))
    ap.add_argument("--work", required=True)
    ap.add_argument("--records", type=int, default=200_000)
    ap.add_argument("--master", default="local[2]")
    a = ap.parse_args()
    import os

    os.chdir(REPO)  # recipes are named as from the repository root, as `kcurate run` takes them
    binary = kcurate_spark.find_kcurate(a.kcurate)
    work = Path(a.work).resolve()
    work.mkdir(parents=True, exist_ok=True)
    corpus = work / "corpus"
    subprocess.run([sys.executable, str(REPO / "integrations/spark/make_corpus.py"),
                    "--records", str(a.records), "--out", str(corpus)], check=True)
    cases = [("configs/default.toml", p) for p in (1, 2, 4)]
    # The generated corpus at 2 partitions only: CI time (bench/spark_vs_local.sh builds it
    # with local[4] too, to the same bytes).
    cases += [(str(corpus / "recipe.toml"), 2)]
    passed, failed = 0, []
    sc = kcurate_spark.spark_context(a.master, "kcurate test-spark")
    try:
        local = {}
        for recipe, partitions in cases:
            name = f"{Path(recipe).parent.name}/{Path(recipe).name} at {partitions} partition(s)"
            if recipe not in local:
                out = work / f"local-{len(local)}"
                t = time.monotonic()
                p = subprocess.run([binary, "run", recipe, "--out", str(out), "--overwrite"],
                                   cwd=REPO, stdout=subprocess.DEVNULL)
                assert p.returncode in (0, 3), f"kcurate run {recipe}: exit {p.returncode}"
                local[recipe] = release_dir(out, REPO / recipe)
                print(f"local run {recipe}: {time.monotonic() - t:.1f} s", flush=True)
            out = work / f"spark-{len(local)}-{partitions}"
            t = time.monotonic()
            verdicts = work / "spark-work" / "verdicts.jsonl"
            verdicts.unlink(missing_ok=True)
            code = kcurate_spark.build(sc, binary, recipe, str(out), partitions=partitions,
                                       work=work / "spark-work", overwrite=True)
            spark = release_dir(out, REPO / recipe)
            problems = [] if code in (0, 3) else [f"driver exit {code}"]
            # Both recipes dedup first among their whole-corpus stages: the driver must have
            # taken the shuffle path (verdicts from the shuffle, applied by finalise), and
            # the shuffle must have dropped something for the comparison to mean anything.
            dropped = len(verdicts.read_text().splitlines()) if verdicts.exists() else 0
            if not problems and dropped == 0:
                problems.append("no dedup verdicts from the shuffle (the shuffle path was not taken)")
            if not problems:
                problems = tree_differences(local[recipe], spark)
            for rel in (local[recipe], spark):
                v = subprocess.run([binary, "verify", str(rel)], capture_output=True, text=True)
                if v.returncode != 0:
                    problems.append(f"verify {rel}: {v.stderr.strip()}")
            took = time.monotonic() - t
            if problems:
                failed.append(name)
                print(f"FAIL {name} ({took:.1f} s):\n  " + "\n  ".join(problems[:20]), flush=True)
            else:
                passed += 1
                print(f"ok   {name}: identical to kcurate run, both verify, dedup by shuffle "
                      f"({dropped} verdicts) ({took:.1f} s)", flush=True)
    finally:
        sc.stop()
    print(f"{passed} passed, {len(failed)} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
