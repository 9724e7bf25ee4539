#!/usr/bin/env python3
"""Run a command and print "WALL_S PEAK_RSS_MB": wall seconds and the peak of the summed
resident set of the command and all its descendants (sampled every 0.1 s from /proc). A
multi-process run (Spark's JVM, the Python driver, the piped kcurate processes) has no single
process whose peak RSS tells its memory; /usr/bin/time reports only the largest one.
The command's own stdout/stderr go to this script's stderr; exit status is the command's."""
import os
import subprocess
import sys
import time


def children_map():
    kids = {}
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        kids.setdefault(ppid, []).append(int(pid))
    return kids


def rss_kb(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def tree_rss(root):
    kids, total, todo = children_map(), 0, [root]
    while todo:
        pid = todo.pop()
        total += rss_kb(pid)
        todo.extend(kids.get(pid, []))
    return total


start = time.monotonic()
proc = subprocess.Popen(sys.argv[1:], stdout=sys.stderr)
peak = 0
while proc.poll() is None:
    peak = max(peak, tree_rss(proc.pid))
    time.sleep(0.1)
wall = time.monotonic() - start
print(f"{wall:.1f} {peak / 1024:.0f}")
sys.exit(proc.returncode)
