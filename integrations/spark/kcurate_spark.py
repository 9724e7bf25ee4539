#!/usr/bin/env python3
"""Build a kcurate release on Spark: the same bytes as `kcurate run` on one machine.

    python integrations/spark/kcurate_spark.py RECIPE --out DIR \
        [--master local[N] | URL] [--partitions N] [--kcurate PATH] [--root DIR]
    spark-submit --files target/release/kcurate integrations/spark/kcurate_spark.py RECIPE --out DIR

What runs where:

1. driver: `kcurate ingest RECIPE` reads the sources (licence gate, quarantined lines
   to a decisions file) and writes the records as JSONL.
2. executors: the records, cut into N partitions, each piped through
   `kcurate stage --recipe RECIPE --before-corpus --decisions -` (the per-record stages
   before the recipe's first whole-corpus stage: normalize, noise, split, filter, ...). The
   binary reaches the executors through SparkFiles (`SparkContext.addFile`, or
   spark-submit's `--files`); each partition resolves it with `SparkFiles.get("kcurate")`
   on its executor and pipes its lines through it exactly as `RDD.pipe` does.
   With `--dedup-keys` (when dedup is the recipe's first whole-corpus stage) each record
   dedup is given is followed by a key line: its place in input order, the exact hash and
   MinHash signature of its text, and the keys the local index can match it by (`meet`:
   the exact key, one per LSH band).
3. shuffle: the key lines, grouped by each `meet` key (Spark SQL: explode, group by);
   the records in a group of two or more are the only ones whose dedup verdict depends on
   another record, and only their key lines come back to the driver, where
   `kcurate dedup-verdicts` replays them in input order through the local index (keep the
   first; exact before near; the same twin, the same Jaccard estimate) and writes the
   verdicts of the dropped ones.
4. driver: the partitions' outputs (records, key lines, tagged decisions, one stats line
   each) are gathered one partition at a time (`toLocalIterator`) into part files, and
   `kcurate finalise --dedup-verdicts` checks the parts (each stats line against its
   part's lines, no item twice) and the verdicts (exactly the drops the replay of the
   records whose key lines collide makes, their keys recomputed from their texts) and
   applies them in dedup's place, then runs the rest
   (the stages after dedup, contamination check and split assignment, task builders) and
   writes manifest, card, report and audit with the code `kcurate run` uses. The parts'
   order does not matter: finalise puts records and decisions back in input order by
   source, file and line. Without key lines (dedup not first), finalise runs the
   whole-corpus stages itself.

Exit status: that of `kcurate finalise` (0, or 3 for a release written with quarantined
input, as `kcurate run`; 4 when it refuses the parts or the verdicts), 2 when a step fails.
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def log(msg):
    print(f"kcurate-spark: {msg}", file=sys.stderr, flush=True)


def find_kcurate(given):
    path = given or shutil.which("kcurate")
    if not path or not os.access(path, os.X_OK):
        sys.exit(
            "kcurate-spark: no kcurate binary: pass --kcurate PATH or put kcurate on PATH "
            f"(looked for {given or 'kcurate on PATH'})"
        )
    return str(Path(path).resolve())


def stage_partition(recipe, root):
    """The per-partition function: `RDD.pipe` with the binary resolved on the executor."""

    def run(lines):
        import shlex
        import threading

        from pyspark import SparkFiles

        binary = SparkFiles.get("kcurate")
        if not os.access(binary, os.X_OK):
            os.chmod(binary, 0o755)
        cmd = [binary, "stage", "--recipe", recipe, "--root", root,
               "--before-corpus", "--decisions", "-", "--dedup-keys"]
        proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE)

        def feed():
            try:
                for line in lines:
                    proc.stdin.write(line.rstrip("\n").encode("utf-8") + b"\n")
            finally:
                proc.stdin.close()

        feeder = threading.Thread(target=feed, daemon=True)
        feeder.start()
        err = []
        reader = threading.Thread(target=lambda: err.append(proc.stderr.read()), daemon=True)
        reader.start()
        for out in iter(proc.stdout.readline, b""):
            yield out.rstrip(b"\n").decode("utf-8")
        feeder.join()
        reader.join()
        code = proc.wait()
        if code != 0:
            raise RuntimeError(
                f"{shlex.join(cmd)} exited {code}: {b''.join(err).decode('utf-8', 'replace')}"
            )

    return run


def ingest(binary, recipe, root, work):
    """Step 1, on the driver: the records (JSONL) and ingest's decisions file."""
    records, decisions = work / "records.jsonl", work / "ingest.jsonl"
    with open(records, "wb") as out:
        p = subprocess.run([binary, "ingest", recipe, "--root", root,
                            "--decisions", str(decisions)], stdout=out)
    if p.returncode not in (0, 3):
        raise RuntimeError(f"kcurate ingest {recipe} failed ({p.returncode})")
    return records, decisions


KEY_PREFIX = '{"dedup":'


def stage_on_spark(sc, binary, recipe, root, records, parts, partitions=None):
    """Steps 2 and 4: `kcurate stage --before-corpus --dedup-keys` per partition on the
    executors, the outputs (key lines included: finalise checks the verdicts against them)
    gathered one partition at a time into `parts/part-NNNNN`. Returns (number of partitions, the staged RDD, persisted: its key
    lines feed the shuffle, or None when there are none, and the number of key lines)."""
    from pyspark import StorageLevel

    shipped = [f for f in sc.getConf().get("spark.files", "").split(",") if f]
    if not any(Path(f).name == "kcurate" for f in shipped):
        try:
            sc.addFile(binary)
        except Exception as e:  # already added by an earlier call with this context
            if "already registered" not in str(e):
                raise
    n = partitions or sc.defaultParallelism
    rdd = sc.textFile(Path(records).resolve().as_uri(), minPartitions=n)
    if rdd.getNumPartitions() > n:
        rdd = rdd.coalesce(n)  # no shuffle: each partition stays a run of lines
    recipe_abs = str((Path.cwd() / recipe).resolve())
    root_abs = str(Path(root).resolve())
    # Persisted: gathered once, and its key lines read again by the shuffle.
    staged = rdd.mapPartitions(stage_partition(recipe_abs, root_abs)).persist(
        StorageLevel.MEMORY_AND_DISK)
    keyed = sc.accumulator(0)

    def numbered(i, it):
        for line in it:
            if line.startswith(KEY_PREFIX):
                keyed.add(1)
            yield i, line

    tagged = staged.mapPartitionsWithIndex(numbered)
    if parts.exists():
        shutil.rmtree(parts)
    parts.mkdir(parents=True)
    files = {}
    try:
        for i, line in tagged.toLocalIterator():
            f = files.get(i)
            if f is None:
                f = files[i] = open(parts / f"part-{i:05d}", "w", encoding="utf-8")
            f.write(line + "\n")
    finally:
        for f in files.values():
            f.close()
    if keyed.value == 0:
        staged.unpersist()
        staged = None
    return rdd.getNumPartitions(), staged, keyed.value


def colliding_keys(sc, staged, out):
    """Step 3, the shuffle: the key lines of the records that share a `meet` key (exact
    hash or LSH band) with another record, written to `out`. Returns how many.

    Plain RDD operations: on a small corpus Spark SQL's warm-up alone took longer than
    this whole step (81 s against 11 s for the samples, local[2] on a loaded machine)."""
    import json

    n = staged.getNumPartitions()
    keys = staged.filter(lambda line: line.startswith(KEY_PREFIX))

    def meets(line):
        d = json.loads(line)["dedup"]
        return ((k, d["id"]) for k in d["meet"])

    # Group by key; the ids of every group of two or more, once each.
    ids = (keys.flatMap(meets).groupByKey(n)
           .flatMap(lambda kv: kv[1] if len(kv[1]) > 1 else ())
           .distinct(n).collect())
    wanted = sc.broadcast(frozenset(ids))
    total = 0
    try:
        picked = keys.filter(lambda line: json.loads(line)["dedup"]["id"] in wanted.value)
        with open(out, "w", encoding="utf-8") as f:
            for line in picked.toLocalIterator(prefetchPartitions=True):
                f.write(line + "\n")
                total += 1
    finally:
        wanted.destroy()
    return total


def dedup_verdicts(binary, recipe, root, keys, out):
    """On the driver: the colliding records replayed in input order by the local index."""
    p = subprocess.run([binary, "dedup-verdicts", recipe, "--keys", str(keys),
                        "--out", str(out)])
    if p.returncode != 0:
        raise RuntimeError(f"kcurate dedup-verdicts {recipe} failed ({p.returncode})")


def finalise(binary, recipe, root, parts, decisions, out, overwrite=False, threads=0,
             verdicts=None):
    """Step 4, on the driver: whole-corpus stages and the release files. Its exit status."""
    cmd = [binary, "finalise", recipe, "--parts", str(parts), "--decisions", str(decisions),
           "--out", str(out), "--root", root, "--threads", str(threads)]
    if verdicts is not None:
        cmd += ["--dedup-verdicts", str(verdicts)]
    if overwrite:
        cmd.append("--overwrite")
    return subprocess.run(cmd).returncode


def spark_context(master=None, app="kcurate"):
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark import SparkConf, SparkContext

    conf = SparkConf().setAppName(app)
    if master:
        conf.setMaster(master)
    elif not conf.contains("spark.master"):
        conf.setMaster("local[*]")
    # The PII key reaches the executors' `stage` processes through their environment.
    if "KCURATE_PII_KEY" in os.environ:
        conf.set("spark.executorEnv.KCURATE_PII_KEY", os.environ["KCURATE_PII_KEY"])
    conf.set("spark.ui.enabled", "false")
    conf.set("spark.ui.showConsoleProgress", "false")
    sc = SparkContext(conf=conf)
    sc.setLogLevel("ERROR")
    return sc


def build(sc, binary, recipe, out, root=None, partitions=None, work=None, overwrite=False,
          threads=0):
    """The whole release on Spark; returns finalise's exit status."""
    if root is None:
        # kcurate's own default: relative paths in a recipe resolve against its directory.
        root = str(Path(recipe).resolve().parent)
    tmp = None
    if work is None:
        work = tmp = Path(tempfile.mkdtemp(prefix="kcurate-spark-"))
    work = Path(work)
    work.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    try:
        records, decisions = ingest(binary, recipe, root, work)
        log(f"ingest: {time.monotonic() - started:.1f} s")
        n, staged, keyed = stage_on_spark(sc, binary, recipe, root, records, work / "parts",
                                          partitions)
        log(f"stage: {n} partitions, {time.monotonic() - started:.1f} s")
        verdicts = None
        if staged is not None:
            try:
                colliding = colliding_keys(sc, staged, work / "colliding.jsonl")
            finally:
                staged.unpersist()
            verdicts = work / "verdicts.jsonl"
            dedup_verdicts(binary, recipe, root, work / "colliding.jsonl", verdicts)
            log(f"dedup shuffle: {colliding} of {keyed} records share a key, "
                f"{time.monotonic() - started:.1f} s")
        code = finalise(binary, recipe, root, work / "parts", decisions, out, overwrite, threads,
                        verdicts)
        log(f"finalise: exit {code}, {time.monotonic() - started:.1f} s in all")
        return code
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("recipe", help="the recipe (configs/*.toml), as you would give it to kcurate run")
    ap.add_argument("--out", required=True, help="where releases go: OUT/<name>/<version>")
    ap.add_argument("--master", help="Spark master (local[N], spark://..., yarn); default: spark-submit's or local[*]")
    ap.add_argument("--partitions", type=int, help="partitions of the records (default: Spark's default parallelism)")
    ap.add_argument("--kcurate", help="the kcurate binary (default: kcurate on PATH); shipped to executors")
    ap.add_argument("--root", help="directory the recipe's relative paths resolve against (kcurate --root; default: the recipe's directory)")
    ap.add_argument("--work", help="directory for records and parts (default: a temporary one, removed after)")
    ap.add_argument("--overwrite", action="store_true", help="replace an existing release of the same version")
    ap.add_argument("--threads", type=int, default=0, help="threads of kcurate finalise (0 = all cores)")
    a = ap.parse_args(argv)
    binary = find_kcurate(a.kcurate)
    sc = spark_context(a.master, "kcurate " + Path(a.recipe).stem)
    try:
        return build(sc, binary, a.recipe, a.out, a.root, a.partitions, a.work, a.overwrite,
                     a.threads)
    except Exception as e:  # a failed partition arrives as a Py4J error: its first lines
        log("failed: " + "\n".join(str(e).splitlines()[:12]))
        return 2
    finally:
        sc.stop()


if __name__ == "__main__":
    sys.exit(main())
