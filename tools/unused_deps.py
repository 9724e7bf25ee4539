#!/usr/bin/env python3
"""Fails when a crate declares a dependency its code never names (what `cargo machete`
checks, without compiling a tool in CI): every `[dependencies]` entry of a workspace crate
must appear as `name::` / `use name` / `extern crate name` in its src/, every
`[dev-dependencies]` entry in its tests/, benches/ or src/, and every
`[workspace.dependencies]` entry must be used by some crate.

Usage: python3 tools/unused_deps.py [REPO]   (exit 1 and a list when something is unused)
"""
import pathlib
import re
import sys
import tomllib

root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()


def rust_text(dirs):
    text = []
    for d in dirs:
        if d.is_dir():
            # follow the cli's tests/ link to the repository's tests/
            for p in sorted(d.rglob("*.rs")):
                text.append(p.read_text(encoding="utf-8", errors="replace"))
        elif d.is_file():
            text.append(d.read_text(encoding="utf-8", errors="replace"))
    return "\n".join(text)


def named(dep, code):
    ident = re.escape(dep.replace("-", "_"))
    return re.search(rf"(\b{ident}::|\buse\s+{ident}\b|extern\s+crate\s+{ident}\b|#\[{ident}::)", code)


workspace = tomllib.loads((root / "Cargo.toml").read_text())
members = []
for pattern in workspace["workspace"]["members"]:
    members.extend(sorted(root.glob(pattern)))

problems = []
used_anywhere = set()
for crate in members:
    manifest = tomllib.loads((crate / "Cargo.toml").read_text())
    src = rust_text([crate / "src", crate / "build.rs"])
    tests = rust_text([crate / "tests", crate / "benches", crate / "examples"]) + "\n" + src
    for section, code in (("dependencies", src), ("dev-dependencies", tests)):
        for dep in manifest.get(section, {}):
            used_anywhere.add(dep)
            if not named(dep, code):
                problems.append(f"{crate.relative_to(root)}/Cargo.toml [{section}] {dep}: never named in the code")

for dep in workspace["workspace"].get("dependencies", {}):
    if dep not in used_anywhere:
        problems.append(f"Cargo.toml [workspace.dependencies] {dep}: no crate uses it")

for p in problems:
    print(p)
if problems:
    sys.exit(1)
print(f"unused dependencies: none ({len(members)} crates)")
