#!/usr/bin/env python3
"""Checks that every binding's Rust sources follow the one floor plan.

Each of ffi/src and bindings-{python,node,jvm}/src has exactly the common modules below, plus only the
optional ones its language needs (README.md, "Layout"). Exits 1 and names
what is missing or extra.
"""
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
COMMON = {
    "lib.rs", "error.rs", "text.rs", "convert.rs", "names.rs", "lease.rs", "budget.rs",
    "expiry.rs", "narrow.rs", "guard.rs", "agentfile.rs", "governor.rs", "client.rs",
}
# Optional modules: injected clocks, panic catching at the C ABI, a hot path (a directory).
OPTIONAL = {"clock.rs", "boundary.rs", "fast"}
# Binding -> its directory at the top level (README.md, "Layout").
BINDINGS = {"c": "ffi", "python": "bindings-python", "node": "bindings-node", "jvm": "bindings-jvm"}


def main():
    bad = []
    for b, folder in BINDINGS.items():
        src = ROOT / folder / "src"
        have = {p.name for p in src.iterdir() if p.suffix == ".rs" or (p.is_dir() and p.name == "fast")}
        missing = sorted(COMMON - have)
        extra = sorted(have - COMMON - OPTIONAL)
        if missing or extra:
            bad.append("%s: missing %s, not in the plan %s" % (b, missing, extra))
    for line in bad:
        print("floor plan:", line)
    if not bad:
        print("floor plan: %d bindings follow it" % len(BINDINGS))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
