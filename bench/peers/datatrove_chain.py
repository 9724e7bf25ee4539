"""datatrove as a whole-chain peer of `kcurate run` with the default chain
(bench/flat_memory.sh's NSMC-shaped JSONL, fields review / review_id): the pipeline a user
would write with datatrove's own steps for what configs/default.toml does, one
LocalPipelineExecutor per step (1 task, 1 worker; the bucket step 14 tasks in turn, as in
datatrove's examples/minhash_deduplication.py):

  1. read the JSONL; a length filter (5..300 characters, as `filter`'s min_chars/max_chars);
     a Hangul-share filter (>= 0.3 of the letters, `filter`'s min_hangul_share); Gopher's
     repetition filter (duplicate lines and paragraphs, words split at white space,
     standing in for `filter`'s max_repeat and `noise`); MinHash signatures (character 5-grams, 14 buckets x 8 hashes,
     bench/peers/datatrove_common.py, as bench/peers/datatrove_minhash.py);
  2. MinHash buckets; 3. clusters;
  4. read again, the same filters, drop the cluster duplicates, PII formatter (e-mail and IP
     addresses replaced), write the kept documents as JSONL.

What it does not do that kcurate's chain does: NFKC normalisation, noise rules, sentence
splitting (datatrove keeps documents whole), exact-duplicate hashing beside MinHash, the
toxicity model, phone numbers and Korean PII, split assignment and the release files
(manifest, Parquet twins, card, audit). It is the nearest datatrove pipeline, not the same
work: compare the time and peak RSS with that in mind.

Prints `peer datatrove-chain <seconds> kept <n>` on stderr.

usage: python bench/peers/datatrove_chain.py IN.jsonl OUT_DIR
"""

import os
import sys

from datatrove.pipeline.filters import GopherRepetitionFilter, LambdaFilter
from datatrove.pipeline.formatters import PIIFormatter
from datatrove.pipeline.readers import JsonlReader
from datatrove.pipeline.writers import JsonlWriter

sys.path.insert(0, os.path.dirname(__file__))
from datatrove_common import CharTokenizer, paths_from_argv, run_minhash  # noqa: E402


def hangul_share(text: str) -> float:
    letters = [c for c in text if c.isalpha()]
    if not letters:
        return 0.0
    return sum("\uac00" <= c <= "\ud7a3" or "\u3131" <= c <= "\u318e" for c in letters) / len(letters)


def filters():
    return [
        LambdaFilter(lambda doc: 5 <= len(doc.text) <= 300),
        LambdaFilter(lambda doc: hangul_share(doc.text) >= 0.3),
        # Line and paragraph repetition only: the n-gram fractions, made for web pages, drop
        # most reviews of a few words (the top 2-gram of a 3-word text covers half of it).
        GopherRepetitionFilter(top_n_grams=(), dup_n_grams=(), language=SpaceTokenizer()),
    ]


class SpaceTokenizer(CharTokenizer):
    """Words split at white space (Korean eojeol), for Gopher's repetition fractions:
    character "words" make every short review look repetitive."""

    def word_tokenize(self, text):
        return text.split()

    def span_tokenize(self, text):
        spans, at = [], 0
        for w in text.split():
            at = text.index(w, at)
            spans.append((at, at + len(w)))
            at += len(w)
        return spans


def main() -> None:
    out, folder, name = paths_from_argv()
    spent = run_minhash(
        out,
        lambda: JsonlReader(folder, glob_pattern=name, text_key="review", id_key="review_id"),
        before=filters,
        after=[PIIFormatter(), JsonlWriter(f"{out}/kept", compression=None)],
    )
    kept = 0
    for f in sorted(os.listdir(f"{out}/kept")):
        with open(os.path.join(out, "kept", f), encoding="utf-8") as fh:
            kept += sum(1 for _ in fh)
    print(f"peer datatrove-chain {spent:.3f} kept {kept}", file=sys.stderr)


if __name__ == "__main__":
    main()
