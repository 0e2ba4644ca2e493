#!/usr/bin/env python3
"""Fails when an ELF file needs a glibc newer than --max (default 2.17).

    python3 scripts/check-elf-glibc.py [--max 2.17] PATH...

Each PATH is a file or a directory (walked); archives (.tar.gz, .tgz, .whl, .jar, .zip) are
opened and every member checked. The symbol versions an ELF needs come from `objdump -T`.
"""

from __future__ import annotations

import io
import re
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path


def glibc_needed(data: bytes) -> tuple[int, ...]:
    with tempfile.NamedTemporaryFile() as f:
        f.write(data)
        f.flush()
        out = subprocess.run(["objdump", "-T", f.name], capture_output=True, text=True, check=True).stdout
    versions = {tuple(int(x) for x in v.split(".")) for v in re.findall(r"GLIBC_(\d+(?:\.\d+)+)", out)}
    return max(versions, default=(0,))


def members(path: Path):
    """(name, bytes) of every file in PATH, opening archives."""
    name = path.name
    if name.endswith((".tar.gz", ".tgz")):
        with tarfile.open(path) as t:
            for m in t.getmembers():
                if m.isfile():
                    yield f"{path}!{m.name}", t.extractfile(m).read()
    elif name.endswith((".whl", ".jar", ".zip")):
        with zipfile.ZipFile(path) as z:
            for m in z.namelist():
                if not m.endswith("/"):
                    yield f"{path}!{m}", z.read(m)
    else:
        yield str(path), path.read_bytes()


def main(argv: list[str]) -> int:
    limit = (2, 17)
    if "--max" in argv:
        i = argv.index("--max")
        limit = tuple(int(x) for x in argv[i + 1].split("."))
        del argv[i : i + 2]
    files = []
    for arg in argv[1:]:
        p = Path(arg)
        files += sorted(f for f in p.rglob("*") if f.is_file()) if p.is_dir() else [p]
    elves = bad = 0
    for f in files:
        for name, data in members(f):
            if not data.startswith(b"\x7fELF"):
                continue
            elves += 1
            need = glibc_needed(data)
            shown = ".".join(map(str, need)) if need != (0,) else "none"
            ok = need <= limit
            bad += not ok
            print(f"{'ok ' if ok else 'BAD'} glibc {shown:>5}  {name}")
    print(f"{elves} ELF files, {bad} need a glibc newer than {'.'.join(map(str, limit))}")
    if elves == 0:
        print("no ELF file found: nothing was checked")
        return 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
