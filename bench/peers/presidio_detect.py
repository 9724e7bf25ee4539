"""Presidio as a user runs it: `{"id","text"}` JSONL on stdin -> `{"id","spans"}` on stdout,
the shape of `kcurate pii detect`. The analyzer is `presidio-kr` of
$KCURATE_SHARED/reference/pii/baseline.py (presidio-analyzer's pattern recognizers for
language "ko" with the Korean recognizers KrRrn/KrFrn/KrBrn/KrDriverLicense/KrPassport, plus
the reference's PatternRecognizers for phone, address, bank account, health insurance,
vehicle plate and @mention; no-op NLP engine, nothing downloaded), imported from that file,
and its overlap resolution. Prints `peer presidio <analyze seconds>` (in-process) on stderr.

usage: python bench/peers/presidio_detect.py [SYSTEM] < in.jsonl > out.jsonl
"""

import importlib.util
import json
import os
import sys
import time


def main() -> None:
    system = sys.argv[1] if len(sys.argv) > 1 else "presidio-kr"
    ref = os.path.join(os.environ["KCURATE_SHARED"], "reference", "pii", "baseline.py")
    spec = importlib.util.spec_from_file_location("pii_baseline", ref)
    base = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(base)
    eng, ents = base.build(system)
    eng.analyze(text="연락처 010-1234-5678", language="ko", entities=ents)
    spent = 0.0
    for line in sys.stdin:
        if not line.strip():
            continue
        r = json.loads(line)
        t0 = time.perf_counter()
        spans = base.resolve(eng.analyze(text=r["text"], language="ko", entities=ents))
        spent += time.perf_counter() - t0
        sys.stdout.write(json.dumps({"id": r["id"], "spans": [
            {"start": s, "end": e, "type": t} for s, e, t in spans]}, ensure_ascii=False) + "\n")
    print(f"peer presidio {spent:.3f}", file=sys.stderr)


if __name__ == "__main__":
    main()
