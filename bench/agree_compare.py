"""Compares kcurate's aggregated labels ({"item","label"} JSONL) with crowd-kit's (item TAB
label) and prints one row of the table bench/agree_peers.sh prints.

usage: agree_compare.py KC.jsonl PEER.tsv INPUT METHOD KC_WALL KC_MB PEER_S PEER_WALL PEER_MB
PEER_S is crowd-kit's in-process time (reading to labels), PEER_WALL its whole process's.
Identical: items whose labels are equal, over all items (kcurate gives no gold on a tied
majority; crowd-kit picks one of the tied labels, so those count as different). Non-tied:
the same over the items where kcurate gives a label.
"""

import json
import sys


def main() -> None:
    kc_path, peer_path, name, how, wall, rss, pt, pwall, prss = sys.argv[1:]
    kc = {}
    with open(kc_path) as f:
        for line in f:
            r = json.loads(line)
            kc[r["item"]] = None if r["label"] is None else str(r["label"])
    with open(peer_path) as f:
        peer = dict(line.rstrip("\n").split("\t") for line in f)
    same = sum(1 for k, v in peer.items() if kc.get(k) == v)
    gold = [k for k, v in kc.items() if v is not None]
    same_gold = sum(1 for k in gold if peer.get(k) == kc[k])
    wall, rss, pt, pwall, prss = float(wall), float(rss), float(pt), float(pwall), float(prss)
    target = 10.0
    ratio = pt / max(wall, 1e-9)
    print(
        f"| {name} | {how} | {wall:.2f} | {rss:.0f} | {pt:.2f} | {pwall:.2f} | {prss:.0f} | "
        f"{ratio:.1f}x{'' if ratio >= target else ' (< 10x)'} | "
        f"{pwall / max(wall, 1e-9):.1f}x | "
        f"{100 * same / len(peer):.2f}% ({same}/{len(peer)}) | "
        f"{100 * same_gold / max(len(gold), 1):.2f}% ({same_gold}/{len(gold)}) |"
    )


if __name__ == "__main__":
    main()
