"""What the table generators share (scripts/gen-error-tables.py, scripts/gen-governor-methods.py).

A generated part sits between a line ending `BEGIN generated (<tool>)` and the next line ending
`END generated`, inside an otherwise hand-written file; a generator computes every such file as
it must read, then writes it, or with `--check` writes nothing and reports each difference.
"""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
END = "END generated"


def splice_markers(tool: str, path: Path, parts: list[str]) -> str:
    """`path`'s text with the lines between each of `tool`'s BEGIN/END marker pairs replaced, in
    order, by `parts`."""
    begin = f"BEGIN generated ({tool})"
    lines = path.read_text().splitlines(keepends=True)
    out, i, n = [], 0, 0
    while i < len(lines):
        out.append(lines[i])
        if lines[i].strip().endswith(begin):
            j = i + 1
            while j < len(lines) and not lines[j].strip().endswith(END):
                j += 1
            if j == len(lines) or n == len(parts):
                sys.exit(f"{tool}: {path}: unmatched or extra generated block")
            out.append(parts[n])
            n += 1
            i = j
            continue
        i += 1
    if n != len(parts):
        sys.exit(f"{tool}: {path}: {len(parts)} generated blocks expected, {n} found")
    return "".join(out)


def write_or_check(tool: str, doc: str, expected, problems: list[str], summary: str) -> int:
    """The generators' main: `expected` maps each path to its text; `problems` are what the
    generator found wrong and cannot write. Exit status 1 on any problem (with `--check`, any
    difference is one), 2 on bad arguments."""
    check = sys.argv[1:] == ["--check"]
    if sys.argv[1:] not in ([], ["--check"]):
        print(doc)
        return 2
    for path, text in expected.items():
        current = path.read_text() if path.exists() else None
        if current == text:
            continue
        if check:
            problems.append(f"{path.relative_to(ROOT)} differs from {tool} (run it to rewrite)")
        else:
            path.write_text(text)
            print(f"wrote {path.relative_to(ROOT)}")
    for p in problems:
        print(f"{tool}: {p}", file=sys.stderr)
    if not problems and check:
        print(f"{tool}: {summary}")
    return 1 if problems else 0
