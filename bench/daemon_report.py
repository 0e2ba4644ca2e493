"""Writes the "Daemon series" section of docs/performance.md from target/bench/daemon-*.json
(scripts/bench-daemon.sh). Only the part between the daemon-series markers is (re)written.

Usage: python3 bench/daemon_report.py RESULTS_DIR DOC
"""

import json
import os
import sys
from datetime import datetime, timezone

BEGIN = "<!-- daemon-series:begin (written by bench/daemon_report.py; edit the script, not this part) -->"
END = "<!-- daemon-series:end -->"
DRIVERS = [("rust", "Rust client (`GovernorClient`, one thread and connection per client)"),
           ("python", "Python client (`leasekit.GovernorClient`, one thread and client per client)")]


def med(v):
    v = sorted(v)
    if not v:
        return None
    mid = len(v) // 2
    return v[mid] if len(v) % 2 else (v[mid - 1] + v[mid]) / 2


def num(v):
    """A figure with thousands separated (replaced by spaces below), or "-" when not run."""
    return "-" if v is None else f"{v:,.0f}"


def pct(v):
    """A ratio in per cent, or "-" when either side was not run."""
    return "-" if v is None else f"{v * 100:.0f} %"


def table(doc):
    recs = doc["records"]
    rounds = doc["rounds"]
    lines = ["| binary | clients | memory pairs/s | FULL pairs/s | FULL / memory | NORMAL pairs/s | "
             "NORMAL / memory | acquire p50 / p99 (memory; FULL; NORMAL) | "
             "daemon CPU per pair (memory; FULL; NORMAL) | load avg |",
             "|---|---:|---:|---:|---:|---:|---:|---|---|---|"]
    binaries = sorted({r["binary"] for r in recs}, key=lambda b: (b != "before", b))
    for b in binaries:
        for clients in sorted({r["clients"] for r in recs}):
            rs = [r for r in recs if r["binary"] == b and r["clients"] == clients]
            by = {(r["store"], r["round"]): r for r in rs}
            per = {s: med([r["pairs_per_s"] for r in rs if r["store"] == s]) for s in ("memory", "full", "normal")}
            ratio = {s: med([by[(s, k)]["pairs_per_s"] / by[("memory", k)]["pairs_per_s"]
                             for k in range(rounds) if (s, k) in by and ("memory", k) in by])
                     for s in ("full", "normal")}
            lat = "; ".join(
                f"{num(med([r['acquire_p50_us'] for r in rs if r['store'] == s]))} / "
                f"{num(med([r['acquire_p99_us'] for r in rs if r['store'] == s]))} us"
                for s in ("memory", "full", "normal"))
            cpu = "; ".join(
                num(med([r["daemon_cpu_us_per_pair"] for r in rs
                         if r["store"] == s and "daemon_cpu_us_per_pair" in r]))
                for s in ("memory", "full", "normal")) + " us"
            loads = [r["load_avg"] for r in rs]
            lines.append(
                f"| {b} | {clients} | {num(per['memory'])} | {num(per['full'])} | {pct(ratio['full'])} | "
                f"{num(per['normal'])} | {pct(ratio['normal'])} | {lat} | {cpu} | "
                f"{min(loads):.1f}-{max(loads):.1f} |".replace(",", " "))
    return lines


def section(results):
    when = datetime.now(timezone.utc).strftime("%d %b %Y %H:%M UTC")
    out = [BEGIN, "", "### Daemon series (`make bench`)", "",
           f"Written by `make bench` (`scripts/bench-daemon.sh`), {when}. Acquire+release pairs per "
           "second through a real `leasekit serve` (release build) on its Unix socket: memory store, "
           "SQLite `synchronous=FULL` (the default) and `NORMAL`, 1, 16 and 64 clients. Every store "
           "(and every binary, when a `before` build is given) runs once per round, interleaved, so "
           "drift in the machine's speed weighs on both sides of a ratio; a ratio is the median of "
           "the rounds' ratios. Latency: one `Acquire` round trip as the client sees it. Daemon CPU: "
           "the daemon process's user + system time over the run, per pair (clock ticks of 10 ms, "
           "so read it over runs of a second or more). The load average is the 1-minute figure at "
           "the start of each run.", ""]
    found = False
    for key, text in DRIVERS:
        path = os.path.join(results, f"daemon-{key}.json")
        if not os.path.exists(path):
            out += [f"{text}: not run.", ""]
            continue
        found = True
        with open(path) as f:
            doc = json.load(f)
        mode = "quick (one short round)" if doc.get("quick") else f"{doc['rounds']} rounds"
        out += [f"{text}, {mode}:", ""] + table(doc) + [""]
    out.append(END)
    return out if found else None


def main():
    results, doc_path = sys.argv[1], sys.argv[2]
    sec = section(results)
    if sec is None:
        print("daemon_report: no daemon results; docs unchanged")
        return
    with open(doc_path) as f:
        text = f.read()
    block = "\n".join(sec)
    if BEGIN in text and END in text:
        head, rest = text.split(BEGIN, 1)
        _, tail = rest.split(END, 1)
        text = head + block + tail
    else:
        text = text.rstrip("\n") + "\n\n" + block + "\n"
    with open(doc_path, "w") as f:
        f.write(text)
    print(f"daemon_report: wrote the daemon series into {doc_path}")


if __name__ == "__main__":
    main()
