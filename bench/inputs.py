"""Writes the shared benchmark inputs every harness reads (same leases, targets, probes).

Usage: python3 bench/inputs.py OUT_DIR  ->  OUT_DIR/inputs.json (and inputs.tsv for the JVM
harness, which has no JSON parser: one `key<TAB>value...` record per line).

All leases are `fs.read` leases of canonical absolute paths, in three pattern forms:
`/srv/t{i}/reports/*.csv`, `/srv/t{i}/logs/**` and the literal `/srv/t{i}/cfg/app.json`.
The timed target of a lease of N patterns matches its LAST pattern (worst case for a peer
that scans the list). Timed inputs are ones where leasekit and every peer give the same
answer; each harness re-checks that. `probes` are extra cases (some where peers are known to
differ: `..`, `*` crossing `/`, `/**` matching its own prefix) that are only counted.
"""

import json
import os
import sys

CAP = "fs.read"
SIZES = [1, 10, 100, 1000]


def pattern(i: int) -> str:
    """The i-th pattern of every lease."""
    return ["/srv/t{}/reports/*.csv", "/srv/t{}/logs/**", "/srv/t{}/cfg/app.json"][i % 3].format(i)


def allowed_target(i: int) -> str:
    """A canonical target that only pattern i matches (for every matcher)."""
    return ["/srv/t{}/reports/q3.csv", "/srv/t{}/logs/2026/11/app.log", "/srv/t{}/cfg/app.json"][
        i % 3
    ].format(i)


def build() -> dict:
    leases = {str(n): [pattern(i) for i in range(n)] for n in SIZES}
    targets = {str(n): allowed_target(n - 1) for n in SIZES}
    denied = {str(n): "/srv/t{}/reports/q3.csv".format(n + 3) for n in SIZES}
    probes = [
        # [lease size, target]; the answers are compared, not timed.
        [10, "/srv/t9/reports/q3.csv"],
        [10, "/srv/t4/logs/a/b/c.txt"],
        [10, "/srv/t5/cfg/app.json"],
        [10, "/srv/t5/cfg/app.yaml"],
        [10, "/srv/t0/reports/2026/q3.csv"],  # '*' must not cross '/'
        [10, "/srv/t0/reports/../../../etc/passwd.csv"],  # traversal
        [10, "/srv/t1/logs"],  # '/**' also matches its prefix
        [10, "/srv/t0//reports/q3.csv"],  # repeated '/'
        [10, "/srv/t0/reports/./q3.csv"],
        [10, "/srv/t0/reports/q3.csv/"],
        [100, "/srv/t99/reports/x.csv"],
        [100, "/srv/t97/logs/x"],
        [1000, "/srv/t999/reports/q3.csv"],
        [1000, "/srv/t1000/reports/q3.csv"],
    ]
    subset = {
        "parent": {CAP: leases["10"]},
        "child": {CAP: ["/srv/t3/reports/*.csv", "/srv/t4/logs/2026/**", "/srv/t5/cfg/app.json"]},
        "expect": True,
        # [child patterns] against the same parent; only counted.
        "probes": [
            [["/srv/t3/reports/q1.csv"]],
            [["/srv/t3/reports/**"]],
            [["/srv/t3/reports/*/x.csv"]],  # '*' crossing '/' in fnmatch: unsound
            [["/srv/t4/logs"]],
            [["/etc/**"]],
            [["/srv/t6/reports/*.csv", "/srv/t7/logs/**"]],
        ],
    }
    return {
        "capability": CAP,
        "sizes": SIZES,
        "leases": leases,
        "targets": targets,
        "denied": denied,
        "probes": probes,
        "subset": subset,
        "budget": {
            "entry": "USD:12.50",
            "currency": "USD",
            "amount": "12.5",
            "lease_budget": "USD:1000000000",
            "metric": ["cost.llm", "0.01", "USD"],
        },
        "adversarial": {
            # model.use: separator '/', verbatim targets, so the matchers see the same text.
            "capability": "model.use",
            "pattern": "*a*a*a*a*a*a*a*a*a*a*a*a*c",
            "sizes": [8, 16, 20, 24, 28, 32, 36, 64, 1000, 10000, 100000],
            "timeout_s": 5,
        },
    }


def tsv(data: dict) -> str:
    """The same inputs as tab-separated records (for the JVM harness)."""
    lines = [f"capability\t{data['capability']}"]
    for n in data["sizes"]:
        lines.append("lease\t{}\t{}".format(n, "\t".join(data["leases"][str(n)])))
        lines.append(f"target\t{n}\t{data['targets'][str(n)]}")
        lines.append(f"denied\t{n}\t{data['denied'][str(n)]}")
    for n, t in data["probes"]:
        lines.append(f"probe\t{n}\t{t}")
    lines.append("subset_child\t" + "\t".join(data["subset"]["child"][data["capability"]]))
    for (child,) in data["subset"]["probes"]:
        lines.append("subset_probe\t" + "\t".join(child))
    b = data["budget"]
    lines.append(f"budget\t{b['entry']}\t{b['currency']}\t{b['amount']}\t{b['lease_budget']}")
    lines.append("metric\t" + "\t".join(b["metric"]))
    a = data["adversarial"]
    lines.append(f"adversarial\t{a['capability']}\t{a['pattern']}\t{a['timeout_s']}")
    lines.append("adversarial_sizes\t" + "\t".join(str(s) for s in a["sizes"]))
    return "\n".join(lines) + "\n"


def main() -> None:
    out = sys.argv[1] if len(sys.argv) > 1 else "target/bench"
    os.makedirs(out, exist_ok=True)
    data = build()
    with open(os.path.join(out, "inputs.json"), "w") as f:
        json.dump(data, f, indent=1)
    with open(os.path.join(out, "inputs.tsv"), "w") as f:
        f.write(tsv(data))


if __name__ == "__main__":
    main()
