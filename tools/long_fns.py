#!/usr/bin/env python3
"""Lists the functions over N lines (default 80) in the library and binary sources
(pipeline/*/src), outside tests, longest first: `lines path:line name [why]`.

A function may stay long when a comment says why: a `// Long:` line (or a doc line starting
`Long:` or `Long on purpose:`) among the comment lines right above it or in its first five
lines. Such functions
are listed with `ok` and do not count; the exit status is 1 when any function is long
without a reason, so `python3 tools/long_fns.py` can gate a change.

Usage: python3 tools/long_fns.py [--max N] [--all] [ROOT]
"""

import pathlib
import re
import sys

FN = re.compile(r"^\s*(?:pub(?:\([a-z:]+\))?\s+)?(?:const\s+)?(?:async\s+)?(?:unsafe\s+)?"
                r"(?:extern\s+\"[^\"]*\"\s+)?fn\s+([A-Za-z_][A-Za-z0-9_]*)")
REASON = re.compile(r"^\s*//[/!]?\s*Long( on purpose)?:")


def blank_code(text):
    """The text with comments, strings and char literals blanked (newlines kept), so
    braces can be counted."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append("".join(ch if ch == "\n" else " " for ch in text[i:j]))
            i = j
        elif c == "r" and re.match(r'r#*"', text[i:i + 10]) and not (i and (text[i - 1].isalnum() or text[i - 1] == "_")):
            m = re.match(r'r(#*)"', text[i:])
            end = text.find('"' + m.group(1), i + len(m.group(0)))
            j = n if end < 0 else end + 1 + len(m.group(1))
            out.append("".join(ch if ch == "\n" else " " for ch in text[i:j]))
            i = j
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            j += 1
            out.append("".join(ch if ch == "\n" else " " for ch in text[i:j]))
            i = j
        elif c == "'":
            m = re.match(r"'(\\u\{[0-9a-fA-F]+\}|\\x[0-9a-fA-F]{2}|\\.|[^\\'])'", text[i:])
            if m:
                out.append(" " * len(m.group(0)))
                i += len(m.group(0))
            else:  # a lifetime
                out.append(c)
                i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def test_ranges(lines):
    """Line ranges (0-based, inclusive) of `#[cfg(test)]` items."""
    ranges = []
    for k, l in enumerate(lines):
        if l.strip().startswith("#[cfg(test)]"):
            end = block_end(lines, k)
            if end is not None:
                ranges.append((k, end))
    return ranges


def block_end(lines, k):
    """The line where the brace block opened at or after line k closes (None for an item
    without a body, such as `mod tests;`)."""
    depth, opened = 0, False
    for j in range(k, len(lines)):
        for ch in lines[j]:
            if ch == "{":
                depth, opened = depth + 1, True
            elif ch == "}":
                depth -= 1
                if opened and depth == 0:
                    return j
            elif ch == ";" and not opened and depth == 0:
                return None
    return None


def long_fns(path, limit):
    raw = path.read_text(encoding="utf-8").split("\n")
    code = blank_code("\n".join(raw)).split("\n")
    tests = test_ranges(code)
    for k, l in enumerate(code):
        m = FN.match(l)
        if not m or any(a <= k <= b for a, b in tests):
            continue
        end = block_end(code, k)
        if end is None:
            continue
        size = end - k + 1
        if size <= limit:
            continue
        above = []
        j = k - 1
        while j >= 0 and (raw[j].strip().startswith(("//", "#[")) or not raw[j].strip()):
            if not raw[j].strip():
                break
            above.append(raw[j])
            j -= 1
        reason = any(REASON.match(x) for x in above + raw[k:k + 5])
        yield size, k + 1, m.group(1), reason


def main(argv):
    limit, show_all, root = 80, False, pathlib.Path(".")
    args = list(argv)
    while args:
        a = args.pop(0)
        if a == "--max":
            limit = int(args.pop(0))
        elif a == "--all":
            show_all = True
        else:
            root = pathlib.Path(a)
    rows = []
    for p in sorted(root.glob("pipeline/*/src/**/*.rs")):
        if p.name == "tests.rs" or "/tests/" in p.as_posix():
            continue
        for size, line, name, reason in long_fns(p, limit):
            rows.append((size, f"{p.relative_to(root)}:{line}", name, reason))
    rows.sort(key=lambda r: (-r[0], r[1]))
    bad = 0
    for size, where, name, reason in rows:
        if reason and not show_all:
            continue
        bad += not reason
        print(f"{size:4} {where} {name}{'  ok (Long: comment)' if reason else ''}")
    print(f"{bad} function(s) over {limit} lines without a `Long:` comment")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
