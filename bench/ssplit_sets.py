"""Boundary P/R/F1 of `kcurate text split` and kss 6.0.6 (mecab) on every labelled ssplit set.

Sets: each tests/fixtures/curation/*ssplit*.jsonl (texts from ../shared/corpora by id, as
tests/curation_text.rs loads them: NSMC `movie`/`review_id`, hate-speech train.tsv `line`),
then ../shared/reference/ssplit/gold_visible.jsonl by style (formal, colloquial) with its own
scorer (reference/ssplit/score.py). Fixture scoring is the tests' `labelled_boundaries`:
gold = the labelled char offsets where a sentence after the first begins, predicted = the
start of each predicted sentence after the first, micro-averaged over the set. Predicted
offsets are found whitespace-insensitively (kss may re-space a sentence), which equals the
tests' substring search whenever the sentences are substrings of the text.

usage: KCURATE_SHARED=../shared python3 bench/ssplit_sets.py [--kcurate BIN] [--python PY]
       [--only NAME,...] [--errors SET]
BIN defaults to target/debug/kcurate, PY to .venv-peers/bin/python (`make .venv-peers/.installed`).
--errors SET prints each disagreement with gold on that fixture for both splitters.
"""

import argparse
import glob
import json
import os
import subprocess
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
FX = os.path.join(ROOT, "tests/fixtures/curation")


def load_texts(items, shared):
    """Id and text of each fixture item (the tests' `labelled_text`)."""
    comments, movies, out = None, {}, []
    for o in items:
        if "line" in o:
            if comments is None:
                path = os.path.join(shared, "corpora/korean-hate-speech/labeled/train.tsv")
                comments = open(path, encoding="utf-8").read().split("\n")
            f = comments[o["line"] - 1].split("\t")[0]
            if f.startswith('"') and f.endswith('"'):
                f = f[1:-1].replace('""', '"')
            out.append((f"comment:{o['line']}", f))
            continue
        m = o["movie"]
        if m not in movies:
            path = os.path.join(shared, "corpora/nsmc/raw", f"{m}.json")
            movies[m] = {r["review_id"]: r["review"] for r in json.load(open(path, encoding="utf-8"))}
        out.append((f"{m}:{o['review_id']}", movies[m][o["review_id"]]))
    return out


def run_splitter(cmd, texts):
    """{id: [sentences]} from a `{"id","text"}` -> `{"id","sentences"}` JSONL process."""
    inp = "".join(json.dumps({"id": i, "text": t}, ensure_ascii=False) + "\n" for i, t in texts)
    p = subprocess.run(cmd, input=inp.encode("utf-8"), capture_output=True, cwd=ROOT, check=True)
    return {r["id"]: r["sentences"] for r in map(json.loads, p.stdout.decode("utf-8").splitlines())}


def starts(text, sentences):
    """Char offsets in `text` where the 2nd..nth sentence begins (whitespace-insensitive)."""
    # non-space index -> char offset in text
    pos = [i for i, c in enumerate(text) if not c.isspace()]
    out, k = set(), 0
    for n, s in enumerate(sentences):
        m = sum(1 for c in s if not c.isspace())
        if m == 0:
            continue
        if n > 0 and k < len(pos):
            out.add(pos[k])
        k += m
    if k != len(pos):
        raise SystemExit(f"splitter changed the text: {text!r} -> {sentences!r}")
    return out


def prf(tp, fp, fn):
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)


def score_fixture(items, texts, pred, errors=None):
    tp = fp = fn = 0
    for o, (i, t) in zip(items, texts):
        gold, got = set(o["cuts"]), starts(t, pred[i])
        tp += len(gold & got)
        fp += len(got - gold)
        fn += len(gold - got)
        if errors is not None:
            for c in sorted(gold ^ got):
                kind = "FN" if c in gold else "FP"
                errors.append(f"{kind}\t{i}\t{c}\t{t[max(0, c - 25):c]} | {t[c:c + 20]}")
    return (tp + fn,) + prf(tp, fp, fn)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kcurate", default=os.path.join(ROOT, "target/debug/kcurate"))
    ap.add_argument("--python", default=os.path.join(ROOT, ".venv-peers/bin/python"))
    ap.add_argument("--only", default="")
    ap.add_argument("--errors", default="")
    a = ap.parse_args()
    shared = os.environ.get("KCURATE_SHARED", os.path.join(ROOT, "../shared"))
    kc = [a.kcurate, "text", "split"]
    kss = [a.python, os.path.join(ROOT, "bench/peers/kss_split.py"), "mecab"]
    names = sorted(os.path.basename(p) for p in glob.glob(os.path.join(FX, "*ssplit*.jsonl")))
    if a.only:
        names = [n for n in names if n in a.only.split(",")]
    print("| set | items | gold boundaries | kcurate P | R | F1 | kss P | R | F1 |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name in names:
        items = [json.loads(l) for l in open(os.path.join(FX, name), encoding="utf-8") if l.strip()]
        texts = load_texts(items, shared)
        row = []
        for who, cmd in (("kcurate", kc), ("kss", kss)):
            errs = [] if a.errors == name else None
            n, p, r, f = score_fixture(items, texts, run_splitter(cmd, texts), errs)
            row += [p, r, f]
            for e in errs or []:
                print(f"# {who} {e}", file=sys.stderr)
        print(f"| {name} | {len(items)} | {n} | " + " | ".join(f"{x:.4f}" for x in row) + " |")
    if a.only and "gold_visible" not in a.only:
        return
    # the reference gold by style, with its own scorer
    ref = os.path.join(shared, "reference/ssplit")
    sys.path.insert(0, ref)
    import score  # reference/ssplit/score.py (stdlib only)

    gold = score.load_jsonl(os.path.join(ref, "gold_visible.jsonl"))
    texts = [(g["id"], g["text"]) for g in gold]
    preds = [run_splitter(kc, texts), run_splitter(kss, texts)]
    for style in sorted({g["style"] for g in gold}):
        sub = [g for g in gold if g["style"] == style]
        nb = sum(max(len(g["sentences"]) - 1, 0) for g in sub)
        row = []
        for pred in preds:
            res = score.score(sub, pred)
            res = res.get("all", res)
            row += [res["precision"], res["recall"], res["f1"]]
        print(f"| gold_visible {style} | {len(sub)} | {nb} | " + " | ".join(f"{x:.4f}" for x in row) + " |")


if __name__ == "__main__":
    main()
