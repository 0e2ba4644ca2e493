#!/usr/bin/env python3
"""Compare the failures of the ARCP SDK's test suite run with leasekit switched in against
conformance/arcp-sdk-expected-failures.json.

Usage: compare_failures.py EXPECTED.json FAILED.txt
Every expected entry must name the stricter rule (``rule``, a section of docs/semantics.md or
docs/arcp.md) and say why (``reason``). An unexpected failure, or an expected failure that
passed, fails the comparison (exit 1). Last line: "arcp-sdk: N expected differences, ok" or the
mismatch count.
"""

from __future__ import annotations

import json
import sys


def main() -> int:
    expected_path, failed_path = sys.argv[1], sys.argv[2]
    with open(expected_path, encoding="utf-8") as f:
        doc = json.load(f)
    entries = doc["failures"]
    problems = []
    expected = set()
    for entry in entries:
        test = entry.get("test", "")
        if not entry.get("rule") or not entry.get("reason"):
            problems.append(f"entry without rule or reason: {test}")
        if test in expected:
            problems.append(f"entry listed twice: {test}")
        expected.add(test)
    with open(failed_path, encoding="utf-8") as f:
        failed = {line.strip() for line in f if line.strip()}
    for test in sorted(failed - expected):
        problems.append(f"unexpected failure: {test}")
    for test in sorted(expected - failed):
        problems.append(f"expected to fail but passed: {test}")
    for p in problems:
        print(f"arcp-sdk: {p}")
    if problems:
        print(f"arcp-sdk: {len(problems)} mismatches")
        return 1
    print(f"arcp-sdk: {len(expected)} expected differences, ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
