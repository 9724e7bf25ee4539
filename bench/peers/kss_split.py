"""kss as a user runs it: `{"id","text"}` JSONL on stdin -> `{"id","sentences"}` on stdout,
the shape of `kcurate text split`. kss.split_sentences(text, backend=BACKEND, num_workers=1),
one call per text; BACKEND defaults to "mecab" (KSS's default when python-mecab-ko is
installed), "fast" is its pure-Python port of KSS C++ when kss_cython is not built.
Prints `peer kss <backend> <split seconds>` (in-process, splitting only) on stderr.

usage: python bench/peers/kss_split.py [BACKEND] < in.jsonl > out.jsonl
"""

import json
import sys
import time

from kss import split_sentences


def main() -> None:
    backend = sys.argv[1] if len(sys.argv) > 1 else "mecab"
    split_sentences("워밍업 문장입니다. 두 번째 문장", backend=backend, num_workers=1)
    spent = 0.0
    out = sys.stdout
    for line in sys.stdin:
        if not line.strip():
            continue
        r = json.loads(line)
        t0 = time.perf_counter()
        sents = split_sentences(r["text"], backend=backend, num_workers=1)
        spent += time.perf_counter() - t0
        out.write(json.dumps({"id": r["id"], "sentences": sents}, ensure_ascii=False) + "\n")
    print(f"peer kss {backend} {spent:.3f}", file=sys.stderr)


if __name__ == "__main__":
    main()
