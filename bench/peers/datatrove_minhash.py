"""datatrove's MinHash near-duplicate removal as a user runs it (its
examples/minhash_deduplication.py: signatures -> buckets -> clusters -> filter, one
LocalPipelineExecutor per step, 1 task) on a `{"id","text"}` JSONL file, set up to match
kcurate's dedup stage: character 5-grams of the text lower-cased with punctuation and white
space removed (a custom word tokenizer that yields characters; number, weekday, month and
diacritic normalisation off); datatrove's default banding, 14 buckets x 8 hashes (112
hashes; an LSH S-curve centred near Jaccard 0.72). datatrove keeps every LSH candidate pair
(no Jaccard check); kcurate (64 hashes in 16 bands of 4) keeps a candidate only when the
MinHash Jaccard estimate reaches 0.8. The set-up and the steps are
bench/peers/datatrove_common.py's, which the whole-chain peer shares.

Writes OUT/pairs.tsv: one line per removed document, `removed id <TAB> kept id of its
cluster`. Prints `peer datatrove <seconds>` (in-process, the four steps) on stderr.

usage: python bench/peers/datatrove_minhash.py IN.jsonl OUT_DIR
"""

import json
import os
import sys

from datatrove.pipeline.readers import JsonlReader
from datatrove.pipeline.writers import JsonlWriter

sys.path.insert(0, os.path.dirname(__file__))
from datatrove_common import paths_from_argv, run_minhash  # noqa: E402


def main() -> None:
    out, folder, name = paths_from_argv()
    spent = run_minhash(
        out,
        lambda: JsonlReader(folder, glob_pattern=name),
        after=[JsonlWriter(f"{out}/kept", compression=None)],
        cluster_ids=True,
        exclusion_writer=JsonlWriter(f"{out}/removed", compression=None),
    )

    def docs(sub):
        d = f"{out}/{sub}"
        for f in sorted(os.listdir(d)) if os.path.isdir(d) else []:
            for line in open(os.path.join(d, f), encoding="utf-8"):
                yield json.loads(line)

    kept = {}
    for r in docs("kept"):
        c = r.get("metadata", {}).get("minhash_cluster_id")
        if c is not None:
            kept[c] = r["id"]
    with open(f"{out}/pairs.tsv", "w", encoding="utf-8") as f:
        for r in docs("removed"):
            c = r["metadata"]["minhash_cluster_id"]
            f.write(f"{r['id']}\t{kept.get(c, '')}\n")
    print(f"peer datatrove {spent:.3f}", file=sys.stderr)


if __name__ == "__main__":
    main()
