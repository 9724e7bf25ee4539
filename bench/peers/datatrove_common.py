"""The MinHash set-up the datatrove peers share: character 5-grams (a word tokenizer that
yields characters), datatrove's default banding of 14 buckets x 8 hashes (112 hashes; an LSH
S-curve centred near Jaccard 0.72), number and diacritic normalisation off; and the four
steps of its examples/minhash_deduplication.py (signatures -> buckets -> clusters -> filter),
one LocalPipelineExecutor per step, 1 worker, the bucket step 14 tasks in turn.
"""

import os
import shutil
import sys
import time

from datatrove.executor import LocalPipelineExecutor
from datatrove.pipeline.dedup import (
    MinhashConfig,
    MinhashDedupBuckets,
    MinhashDedupCluster,
    MinhashDedupFilter,
    MinhashDedupSignature,
)
from datatrove.utils.text import TextNormConfig
from datatrove.utils.word_tokenizers import WordTokenizer


class CharTokenizer(WordTokenizer):
    """Characters as words, white space dropped: datatrove's n-grams become character n-grams."""

    def word_tokenize(self, text):
        return [c for c in text if not c.isspace()]

    def sent_tokenize(self, text):
        return [text]

    def span_tokenize(self, text):
        return [(i, i + 1) for i, c in enumerate(text) if not c.isspace()]


def paths_from_argv():
    """`IN.jsonl OUT_DIR` from the command line, OUT_DIR emptied: OUT_DIR, and IN's folder
    and file name (what a JsonlReader reads)."""
    src, out = sys.argv[1], sys.argv[2]
    shutil.rmtree(out, ignore_errors=True)
    folder, name = os.path.split(os.path.abspath(src))
    return out, folder, name


def minhash_config() -> MinhashConfig:
    return MinhashConfig(
        n_grams=5, num_buckets=14, hashes_per_bucket=8,
        norm_config=TextNormConfig(norm_numbers=False, norm_unicode_diacritics=False),
    )


def run_minhash(out, reader, before=tuple, after=(), cluster_ids=False, exclusion_writer=None) -> float:
    """Runs the four MinHash steps under OUT: `reader()` then the steps `before()` makes feed
    the signatures and, read again (fresh steps from both), the filter, which the `after`
    steps follow. With
    `cluster_ids`, clusters are saved and the filter puts each kept or removed document's
    cluster id in its metadata (`minhash_cluster_id`). Returns the seconds the steps took."""
    config = minhash_config()
    t0 = time.perf_counter()
    steps = [
        [reader(), *before(),
         MinhashDedupSignature(output_folder=f"{out}/sigs", config=config, language=CharTokenizer())],
        [MinhashDedupBuckets(input_folder=f"{out}/sigs", output_folder=f"{out}/buckets", config=config)],
        [MinhashDedupCluster(input_folder=f"{out}/buckets", output_folder=f"{out}/remove", config=config,
                             save_cluster_id=cluster_ids)],
        [reader(), *before(),
         MinhashDedupFilter(input_folder=f"{out}/remove", load_cluster_ids=cluster_ids,
                            exclusion_writer=exclusion_writer),
         *after],
    ]
    tasks = {1: config.num_buckets}
    for i, pipeline in enumerate(steps):
        LocalPipelineExecutor(pipeline=pipeline, tasks=tasks.get(i, 1), workers=1,
                              logging_dir=f"{out}/logs/{i}").run()
    return time.perf_counter() - t0
