#!/usr/bin/env bash
# PII: detect and detect+pseudonymise throughput, then Presidio (presidio-kr, the
# reference's baseline.py) timed on the same NSMC text in this run, and the ratio.
set -e
out=$(cargo bench -q -p kcurate-pii --bench pii 2>/dev/null | grep '^bench')
echo "$out"
ours=$(echo "$out" | sed -n 's/^bench pii NSMC chars\/s: \([0-9]*\).*/\1/p')
venv=target/py-presidio
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import presidio_analyzer' 2>/dev/null; then
  python3 -m venv "$venv" && "$venv/bin/pip" install -q --disable-pip-version-check presidio-analyzer presidio-anonymizer
fi
ref="$KCURATE_SHARED/reference/pii"
json=$(mktemp)
"$venv/bin/python" "$ref/baseline.py" --scorer "$ref/score.py" --text "nsmc=$KCURATE_SHARED/corpora/nsmc/raw" --systems presidio-kr --budget 20 --no-anonymize --out "$json" >/dev/null 2>&1 || { echo "bench pii presidio baseline: could not run (see $json)"; exit 0; }
python3 - "$json" "$ours" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); ours = float(sys.argv[2])
def find(o):
    if isinstance(o, dict):
        for k, v in o.items():
            if "chars_per_s" in k and isinstance(v, (int, float)):
                yield k, v
            yield from find(v)
    elif isinstance(o, list):
        for v in o:
            yield from find(v)
vals = list(find(d))
wall = [v for k, v in vals if "wall" in k] or [v for _, v in vals]
if wall:
    print(f"bench pii presidio-kr on NSMC: {wall[0]:.0f} chars/s; kcurate detect {ours:.0f} chars/s; ratio {ours / wall[0]:.0f}x (target >= 100x)")
else:
    print("bench pii presidio baseline: no chars/s figure in", sys.argv[1])
PY
