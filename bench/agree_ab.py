#!/usr/bin/env python3
"""Interleaved A/B timing of `kcurate agree` builds (how the fast paths of the agree reader
are judged: interleaving cancels the machine's drift): each round runs every binary once on the same input, the
order rotating round by round, and prints per binary min / p25 / median / mean wall time.

Usage: python3 bench/agree_ab.py ROUNDS INPUT BIN [BIN ...]
  AB_ARGS  the agree arguments after --input (default: --aggregate majority)
  AB_OUT   where the labels go (default /dev/null; a file times the writing too)
Keep a copy of each build to compare (cp target/release/kcurate /tmp/kc-before), and run
with nothing else busy on the host: one run of a 0.1 s process moves by tens of percent.
"""
import os
import statistics
import subprocess
import sys
import time

rounds, inp, bins = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
extra = os.environ.get("AB_ARGS", "--aggregate majority").split()
out = os.environ.get("AB_OUT", "/dev/null")
times = {b: [] for b in bins}
for r in range(rounds):
    k = r % len(bins)
    for b in bins[k:] + bins[:k]:
        start = time.perf_counter()
        with open(out, "wb") as o:
            subprocess.run([b, "agree", "--input", inp] + extra, stdout=o, check=True)
        times[b].append(time.perf_counter() - start)
for b in bins:
    v = sorted(times[b])
    print(f"{b:30s} min {v[0]:.4f} p25 {v[len(v) // 4]:.4f} med {statistics.median(v):.4f} "
          f"mean {statistics.mean(v):.4f}")
