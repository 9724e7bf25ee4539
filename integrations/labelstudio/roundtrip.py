#!/usr/bin/env python3
"""`make test-labelstudio`: kcurate's Label Studio batches through a real Label Studio server
and back, read by `kcurate agree` exactly as the same annotations written directly.

    python integrations/labelstudio/roundtrip.py --kcurate target/debug/kcurate \
        --venv .venv-labelstudio --work target/labelstudio-test [--seed 42]

For each case (an NLI validator batch: `Choices`; an STS batch: a `Number` slider) it
1. writes the batch with kcurate (`nli export-validators` / `sts export --label-studio DIR`:
   tasks.json and labeling-config.xml) from a release built from data-samples;
2. simulates the annotators' votes with `kcurate simulate` (seeded): the direct file;
3. on a throwaway server (server.py), creates one user per simulated annotator, a project
   with kcurate's labeling config, imports kcurate's tasks.json as written, and submits each
   vote as an annotation through the API (with a comment beside some votes, and one cancelled
   annotation, neither of which is a vote);
4. exports JSON, JSON-MIN and CSV through the API, and reads each with
   `kcurate agree --format label-studio --label-config labeling-config.xml`;
5. compares: the aggregated labels (majority and Dawid-Skene for NLI, the mean for STS) are
   byte-identical to those of the direct file, and so is the agreement summary (alpha with its
   seeded bootstrap interval, kappa, per-annotator reliability, with Label Studio's annotator
   names, its user ids, mapped back); the cancelled annotation is counted in the JSON export
   only (JSON-MIN and CSV leave it out), and no export has a rejected row.

Ends with "N passed, M failed"; exits 1 when any check failed.
"""

import argparse
import csv
import io
import json
import resource
import shutil
import subprocess
import sys
import time
import tomllib
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import server  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
EMAIL_DOMAIN = "kcurate.test"
EXPORTS = [("JSON", "export.json"), ("JSON_MIN", "export-min.json"), ("CSV", "export.csv")]


class Case:
    """One batch kind: how its items, votes and aggregates are made."""

    def __init__(self, name, control, aggregates, simulate_args):
        self.name = name
        self.control = control
        self.aggregates = aggregates
        self.simulate_args = simulate_args


CASES = [
    Case(
        "nli",
        "nli_label",
        [["--aggregate", "majority"], ["--aggregate", "dawid-skene"], ["--json"]],
        ["--kind", "nominal", "--labels", "entailment,neutral,contradiction"],
    ),
    Case(
        "sts",
        "score",
        [["--aggregate", "mean"], ["--json", "--level", "interval"]],
        ["--kind", "score"],
    ),
]


def run(cmd, **kw):
    p = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, **kw)
    return p


def must(cmd, ok=(0,), **kw):
    p = run(cmd, **kw)
    if p.returncode not in ok:
        raise RuntimeError(f"{' '.join(map(str, cmd))}: exit {p.returncode}\n{p.stderr}")
    return p


def release(kcurate, recipe, out):
    """Builds a sample release (exit 3: written, with the samples' planted bad lines)."""
    must([kcurate, "run", recipe, "--out", out, "--overwrite"], ok=(0, 3), cwd=REPO)
    r = tomllib.loads((REPO / recipe).read_text(encoding="utf-8"))
    return Path(out) / r["name"] / r["version"]


def make_batch(case, kcurate, work, annotated):
    """kcurate's batch (tasks.json, labeling-config.xml) and the simulator's items file: the
    first `annotated` items of the batch (the other tasks stay unannotated, as in a project
    half done; the exports carry them without votes)."""
    batch = work / case.name / "batch"
    items = work / case.name / "items.jsonl"
    if case.name == "nli":
        rel = release(kcurate, "configs/klue-nli.toml", work / "releases")
        rows = [json.loads(l) for l in (rel / "nli" / "validation.jsonl").open(encoding="utf-8")]
        pairs = work / case.name / "pairs.jsonl"
        with pairs.open("w", encoding="utf-8") as f:
            for r in rows:
                pair = {"id": r["guid"], "premise": r["premise"], "hypothesis": r["hypothesis"], "label": r["gold_label"]}
                f.write(json.dumps(pair, ensure_ascii=False) + "\n")
        must([kcurate, "nli", "export-validators", "--input", pairs, "--label-studio", batch])
        items.write_text("".join(pairs.read_text(encoding="utf-8").splitlines(True)[:annotated]), encoding="utf-8")
    else:
        rel = release(kcurate, "configs/klue-sts.toml", work / "releases")
        must([kcurate, "sts", "export", rel, "--label-studio", batch])
        # The truth the simulator scores around: the release's label of the annotated pairs.
        with items.open("w", encoding="utf-8") as f:
            lines = (rel / "sts" / "validation.jsonl").read_text(encoding="utf-8").splitlines()[:annotated]
            for r in map(json.loads, lines):
                f.write(json.dumps({"id": r["guid"], "label": r["labels"]["label"]}) + "\n")
    return batch, items


def simulate(case, kcurate, items, seed, out):
    p = must([kcurate, "simulate", "--input", items, *case.simulate_args, "--annotators", "5", "--spammers", "1", "--seed", seed])
    out.write_text(p.stdout, encoding="utf-8")
    rows = list(csv.DictReader(io.StringIO(p.stdout), delimiter="\t"))
    return [(r["item"], r["annotator"], r["label"]) for r in rows]


def vote_result(case, control, to_name, value):
    if case.name == "nli":
        return {"from_name": control, "to_name": to_name, "type": "choices", "value": {"choices": [value]}}
    return {"from_name": control, "to_name": to_name, "type": "number", "value": {"number": float(value)}}


def annotate(api, case, batch, votes, log):
    """Project, tasks, users and annotations on the server; returns (project id, user names)."""
    config = (batch / "labeling-config.xml").read_text(encoding="utf-8")
    project = api.post("/api/projects/", {"title": f"kcurate {case.name}", "label_config": config})
    pid = project["id"]
    tasks = json.loads((batch / "tasks.json").read_text(encoding="utf-8"))
    imported = api.post(f"/api/projects/{pid}/import", tasks)
    log(f"{case.name}: project {pid}, {imported.get('task_count')} tasks imported from kcurate's tasks.json")
    ids = {}
    page = api.get(f"/api/projects/{pid}/tasks/", page_size=len(tasks) + 10)
    for t in page if isinstance(page, list) else page.get("tasks", []):
        ids[t["data"]["item"]] = t["id"]
    assert len(ids) == len(tasks), f"{len(ids)} task ids for {len(tasks)} tasks"
    users = {}
    known = {u["email"]: u["id"] for u in api.get("/api/users/")}
    for who in sorted({a for _, a, _ in votes}) + ["skipper"]:
        email = f"{who}@{EMAIL_DOMAIN}"
        uid = known.get(email) or api.post("/api/users/", {"email": email, "username": who})["id"]
        users[who] = uid
    to_name = "show_premise" if case.name == "nli" else "show_sentence1"
    t0 = time.monotonic()
    for n, (item, who, value) in enumerate(votes):
        result = [vote_result(case, case.control, to_name, value)]
        if n % 7 == 0:
            # A comment box beside the vote: never a vote, whatever it says.
            result.append({"from_name": "comment", "to_name": to_name, "type": "textarea", "value": {"text": [f"{value}?"]}})
        api.post(f"/api/tasks/{ids[item]}/annotations/", {"result": result, "completed_by": users[who]})
    # One cancelled (skipped) annotation: an `agree.cancelled` decision, not a vote.
    first = votes[0][0]
    api.post(f"/api/tasks/{ids[first]}/annotations/", {"result": [], "was_cancelled": True, "completed_by": users["skipper"]})
    log(f"{case.name}: {len(votes)} annotations + 1 cancelled submitted in {time.monotonic() - t0:.1f} s")
    return pid, {uid: who for who, uid in users.items()}


def export(api, pid, work, log):
    paths = []
    for kind, name in EXPORTS:
        body = api.download(f"/api/projects/{pid}/export", exportType=kind, download_all_tasks="true")
        p = work / name
        p.write_bytes(body)
        paths.append(p)
        log(f"  export {kind}: {len(body)} bytes -> {p.relative_to(REPO) if p.is_relative_to(REPO) else p}")
    return paths


def agree(kcurate, args, path, config=None):
    cmd = [kcurate, "agree", "--input", path, *args]
    if config is not None:
        cmd += ["--format", "label-studio", "--label-config", config]
    return run(cmd)


def summary(stdout, users):
    v = json.loads(stdout)
    for r in v.get("reliability", []):
        r["annotator"] = users.get(r["annotator"], r["annotator"])
    v["reliability"] = sorted(v.get("reliability", []), key=lambda r: r["annotator"])
    cancelled = v.pop("cancelled_annotations", None)
    return v, cancelled


def compare(case, kcurate, direct, exports, config, users, log):
    """One check per (export, aggregate): same bytes (or same summary) as the direct file."""
    passed = failed = 0
    names = {str(uid): who for uid, who in users.items()}
    for args in case.aggregates:
        want = agree(kcurate, args, direct)
        if want.returncode != 0:
            raise RuntimeError(f"agree on the direct file: exit {want.returncode}\n{want.stderr}")
        for path in exports:
            got = agree(kcurate, args, path, config)
            label = f"{case.name} {path.name} agree {' '.join(args)}"
            problems = []
            if got.returncode != 0:
                problems.append(f"exit {got.returncode}: {got.stderr.strip()[:800]}")
            elif "--json" in args:
                w, _ = summary(want.stdout, {})
                g, cancelled = summary(got.stdout, names)
                # The JSON export keeps the cancelled annotation (an `agree.cancelled`
                # decision); JSON-MIN and CSV leave it out.
                expect = 1 if path.suffix == ".json" and "min" not in path.name else 0
                if cancelled != expect:
                    problems.append(f"cancelled_annotations {cancelled}, expected {expect}")
                if g != w:
                    problems.append(f"summary differs:\n  direct: {json.dumps(w)}\n  export: {json.dumps(g)}")
            elif got.stdout != want.stdout:
                diff = [f"  {a!r} != {b!r}" for a, b in zip(want.stdout.splitlines(), got.stdout.splitlines()) if a != b]
                n = (len(want.stdout.splitlines()), len(got.stdout.splitlines()))
                problems.append(f"labels differ ({n[0]} direct, {n[1]} export lines):\n" + "\n".join(diff[:10]))
            if problems:
                failed += 1
                log(f"FAIL {label}: " + "; ".join(problems))
            else:
                passed += 1
                items = len(got.stdout.splitlines()) if "--json" not in args else json.loads(got.stdout)["items"]
                log(f"ok   {label} ({items} {'lines' if '--json' not in args else 'items'}; same as direct)")
    return passed, failed


def cpu_seconds():
    """CPU time of this process and its finished children (the server, once stopped)."""
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kcurate", default=str(REPO / "target/debug/kcurate"))
    ap.add_argument("--venv", default=str(REPO / ".venv-labelstudio"))
    ap.add_argument("--work", default=str(REPO / "target/labelstudio-test"))
    ap.add_argument("--seed", type=int, default=42)
    # Each annotation is one POST, the check's main cost (about 0.1 s each on an idle 2-core
    # machine, 0.5 s on a busy one): 16 items x 5 annotators per case.
    ap.add_argument("--items", type=int, default=16, help="items annotated per case")
    a = ap.parse_args()
    log = lambda m: print(m, flush=True)  # noqa: E731
    kcurate = Path(a.kcurate).resolve()
    work = Path(a.work).resolve()
    version = must([Path(a.venv) / "bin" / "python", "-c", "import label_studio; print(label_studio.__version__)"]).stdout.strip()
    log(f"label-studio {version} ({a.venv}); {must([kcurate, '--version']).stdout.strip()}; seed {a.seed}")
    server.prepare_template(Path(a.venv), log)
    t0, cpu0 = time.monotonic(), cpu_seconds()
    passed = failed = 0
    with server.Server(a.venv, log) as api:
        for case in CASES:
            d = work / case.name
            if d.exists():
                shutil.rmtree(d)
            d.mkdir(parents=True)
            batch, items = make_batch(case, kcurate, work, a.items)
            direct = d / "direct.tsv"
            votes = simulate(case, kcurate, items, a.seed, direct)
            pid, users = annotate(api, case, batch, votes, log)
            exports = export(api, pid, d, log)
            p, f = compare(case, kcurate, direct, exports, batch / "labeling-config.xml", users, log)
            passed, failed = passed + p, failed + f
    log(f"round trip took {time.monotonic() - t0:.1f} s ({cpu_seconds() - cpu0:.1f} s of CPU, the server's included)")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
