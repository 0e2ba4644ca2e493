#!/usr/bin/env python3
"""Prints the fenced code block that follows `<!-- dist-test: NAME -->` in a Markdown file.

    python3 scripts/readme-block.py README.md python

`make dist-test` runs the README's install commands and examples this way, so the documented
commands are the tested ones. Exits 1 when the marker or its block is missing.
"""

import sys
from pathlib import Path


def block(text: str, name: str) -> str:
    lines = text.splitlines()
    marker = f"<!-- dist-test: {name} -->"
    for i, line in enumerate(lines):
        if line.strip() == marker:
            j = i + 1
            while j < len(lines) and not lines[j].strip():
                j += 1
            if j < len(lines) and lines[j].startswith("```"):
                end = next((k for k in range(j + 1, len(lines)) if lines[k].startswith("```")), None)
                if end is not None:
                    return "\n".join(lines[j + 1 : end]) + "\n"
    raise SystemExit(f"{marker} with a fenced block after it is not in the file")


if __name__ == "__main__":
    sys.stdout.write(block(Path(sys.argv[1]).read_text(), sys.argv[2]))
