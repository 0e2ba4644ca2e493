"""Merges the harness results (target/bench/<lang>.json) into docs/performance.md.

Usage: python3 bench/report.py RESULTS_DIR DOC --command CMD --seconds S

Only the part between the side-by-side markers is (re)written; any other section of the doc
(e.g. the Rust core benches) is kept. RESULTS_DIR also holds machine.json (written by
scripts/bench.sh: load average, start time) and skipped.tsv (language<TAB>reason).
"""

import argparse
import json
import os
import platform
import re
import subprocess
from datetime import datetime, timezone

BEGIN = "<!-- side-by-side:begin (written by bench/report.py; edit the script, not this part) -->"
END = "<!-- side-by-side:end -->"
LANGS = [("rust", "Rust core"), ("c", "C (FFI)"), ("python", "Python"), ("node", "Node"), ("jvm", "JVM")]
OPS = ["authorize/1", "authorize/10", "authorize/100", "authorize/1000", "subset", "budget_parse",
       "budget_spend"]
OP_TEXT = {
    "authorize/1": "authorize, lease of 1 pattern",
    "authorize/10": "authorize, lease of 10 patterns",
    "authorize/100": "authorize, lease of 100 patterns",
    "authorize/1000": "authorize, lease of 1000 patterns",
    "subset": "subset (3 child patterns in a 10-pattern parent)",
    "budget_parse": "budget parse (`USD:12.50`)",
    "budget_spend": "budget spend (one `cost.*` metric)",
}
# Per-call overhead targets of a binding over the core (ns).
OVERHEAD_TARGET = {"python": 1000, "node": 1000, "jvm": 500}
PEER_TARGET_OP, PEER_TARGET_X = "authorize/10", 5.0


def fmt_ns(ns):
    if ns is None:
        return "-"
    if ns < 1_000:
        return f"{ns:.0f} ns"
    if ns < 1_000_000:
        return f"{ns / 1e3:.2f} us"
    if ns < 1_000_000_000:
        return f"{ns / 1e6:.2f} ms"
    return f"{ns / 1e9:.2f} s"


def ratio_text(lk_ns, peer_ns):
    """`leasekit/peer` time ratio and the speed-up in words."""
    r = lk_ns / peer_ns
    words = f"{1 / r:.1f}x faster" if r <= 1 else f"{r:.1f}x slower"
    return f"{r:.3f} ({words})"


def load(results):
    data = {}
    for lang, _ in LANGS:
        path = os.path.join(results, f"{lang}.json")
        if os.path.exists(path):
            with open(path) as f:
                data[lang] = json.load(f)
    return data


def times(doc, impl):
    return {r["op"]: r["median_ns"] for r in doc["records"] if r["kind"] == "time" and r["impl"] == impl}


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def machine(results, args):
    meta = {}
    path = os.path.join(results, "machine.json")
    if os.path.exists(path):
        with open(path) as f:
            meta = json.load(f)
    nproc = subprocess.run(["nproc"], capture_output=True, text=True).stdout.strip()
    load_end = os.getloadavg()[0]
    lines = [
        f"- Machine: {nproc} cores (`nproc`), `{platform.machine()}` (`uname -m`), {cpu_model()}.",
        f"- Date: {datetime.now(timezone.utc).strftime('%Y-%m-%d %H:%M UTC')}; command: `{args.command}` "
        f"({args.seconds} s wall time, of which {meta.get('measure_seconds', '?')} s running the "
        "harnesses; the rest is building the bindings, including any wait for other cargo builds "
        "holding the shared target/ lock).",
        f"- Load average (1 min) at the start {meta.get('load_start', '?')}, at the end {load_end:.2f}.",
    ]
    loaded = max(float(meta.get("load_start", 0) or 0), load_end) > 0.75 * int(nproc or 1)
    if loaded:
        lines.append(
            f"- **These figures were taken on a loaded {nproc}-core machine** (other engineers were "
            "compiling at the same time), so absolute times are inflated and noisy, by up to several "
            "times for single runs. Ratios measured in the same run are more meaningful than the "
            "absolute numbers; rerun `make bench` on a quiet machine for publishable figures.")
    return lines


def median_table(data):
    present = [(l, t) for l, t in LANGS if l in data]
    out = ["| op | " + " | ".join(t for _, t in present) + " |",
           "|---|" + "---:|" * len(present)]
    for op in OPS:
        row = [fmt_ns(times(data[l], "leasekit").get(op)) for l, _ in present]
        out.append(f"| {OP_TEXT[op]} | " + " | ".join(row) + " |")
    return out


def overhead_table(data):
    if "rust" not in data:
        return ["(no Rust core results in this run, so no overhead figures)"]
    core = times(data["rust"], "leasekit")
    present = [(l, t) for l, t in LANGS if l in data and l != "rust"]
    out = ["| op | " + " | ".join(t for _, t in present) + " |",
           "|---|" + "---:|" * len(present)]
    for op in OPS:
        cells = []
        for l, _ in present:
            b = times(data[l], "leasekit").get(op)
            cells.append("-" if b is None or op not in core else fmt_ns(b - core[op]))
        out.append(f"| {OP_TEXT[op]} | " + " | ".join(cells) + " |")
    out.append("")
    out.append("A negative figure means the difference is below this run's noise (the core and the "
               "binding were timed a few seconds apart on a shared machine).")
    out.append("")
    out.append("Targets (per-call overhead on `authorize`, lease of 10 patterns):")
    out.append("")
    for l, t in present:
        if l not in OVERHEAD_TARGET:
            continue
        b = times(data[l], "leasekit").get("authorize/10")
        if b is None or "authorize/10" not in core:
            continue
        ov = b - core["authorize/10"]
        ok = "met" if ov < OVERHEAD_TARGET[l] else "**not met**"
        out.append(f"- {t}: {fmt_ns(ov)} (target < {fmt_ns(OVERHEAD_TARGET[l])}): {ok}")
    return out


def peer_tables(data):
    out = []
    verdicts = []
    for lang, title in LANGS:
        doc = data.get(lang)
        if not doc:
            continue
        # job_authorize compares the SDK with itself switched to leasekit: its own section.
        impls = [r["impl"] for r in doc["records"] if r["kind"] == "time" and r["op"] != "job_authorize"]
        peers = [i for i in dict.fromkeys(impls) if i != "leasekit"]
        if not peers:
            continue
        lk = times(doc, "leasekit")
        names = doc.get("peers", {})
        out.append(f"#### {title}")
        out.append("")
        out.append("Peers: " + "; ".join(f"`{p}` = {names.get(p, p)}" for p in peers) + ".")
        out.append("")
        out.append("| op | leasekit | " + " | ".join(f"{p} | leasekit/{p}" for p in peers) + " |")
        out.append("|---|---:|" + "---:|---:|" * len(peers))
        for op in OPS:
            pt = [times(doc, p).get(op) for p in peers]
            if all(v is None for v in pt):
                continue
            cells = [fmt_ns(lk.get(op))]
            for v in pt:
                if v is None or lk.get(op) is None:
                    cells += [fmt_ns(v), "-"]
                else:
                    cells += [fmt_ns(v), ratio_text(lk[op], v)]
            out.append(f"| {OP_TEXT[op]} | " + " | ".join(cells) + " |")
        out.append("")
        for p in peers:
            v, l = times(doc, p).get(PEER_TARGET_OP), lk.get(PEER_TARGET_OP)
            if v is not None and l is not None:
                x = v / l
                verdicts.append(f"- {title} vs `{p}`: {ratio_text(l, v)} on {OP_TEXT[PEER_TARGET_OP]} "
                                f"(target: >= {PEER_TARGET_X:.0f}x faster): "
                                + ("met" if x >= PEER_TARGET_X else "**not met**"))
    return out, verdicts


def agreement_table(data):
    out = ["| language | peer | op | same answer | different answer | the differences |",
           "|---|---|---|---:|---:|---|"]
    for lang, title in LANGS:
        for r in data.get(lang, {}).get("records", []):
            if r["kind"] != "check" or r["impl"] == "leasekit":
                continue
            ex = "; ".join(f"`{e}`" for e in r["examples"]) or "-"
            out.append(f"| {title} | {r['impl']} | {r['op']} | {r['agree']} | {r['disagree']} | {ex} |")
    return out


def adversarial_tables(data, sizes):
    out = ["| language | implementation | " + " | ".join(f"n={n}" for n in sizes) + " | peak RSS |",
           "|---|---|" + "---:|" * len(sizes) + "---:|"]
    for lang, title in LANGS:
        doc = data.get(lang)
        if not doc:
            continue
        series = {}
        for r in doc["records"]:
            if r["kind"] == "adv":
                series.setdefault(r["impl"], []).append(r)
        for impl, pts in series.items():
            by_n = {p["n"]: p for p in pts}
            cells = []
            for n in sizes:
                p = by_n.get(n)
                if p is None:
                    cells.append("")
                elif p.get("timed_out"):
                    cells.append(f"timed out at {n} (> {p.get('timeout_s')} s)")
                elif p.get("error"):
                    cells.append("error")
                else:
                    cells.append(fmt_ns(p.get("ns")))
            rss = max((p.get("peak_rss_kb") or 0) for p in pts)
            out.append(f"| {title} | {impl} | " + " | ".join(cells) + f" | {rss / 1024:.1f} MiB |")
    return out


def section(data, results, args):
    with open(os.path.join(results, "inputs.json")) as f:
        inputs = json.load(f)
    skipped = []
    path = os.path.join(results, "skipped.tsv")
    if os.path.exists(path):
        with open(path) as f:
            skipped = [line.rstrip("\n").split("\t", 1) for line in f if line.strip()]
    peer_out, verdicts = peer_tables(data)
    adv = inputs["adversarial"]
    lines = [
        BEGIN,
        "## Side by side with the peers",
        "",
        "Written by `make bench` (`scripts/bench.sh` runs the harnesses in `bench/`, then "
        "`bench/report.py` merges their JSON into this section). Every figure below comes from "
        "the same run.",
        "",
        *machine(results, args),
        "- Languages in this run: " + ", ".join(t for l, t in LANGS if l in data) + ".",
    ]
    for lang, why in skipped:
        lines.append(f"- **{lang} not measured in this run**: {why}")
    lines += [
        "",
        "### Method",
        "",
        "- Same inputs everywhere: `bench/inputs.py` writes one file that every harness reads. Leases "
        "are `fs.read` leases mixing `/srv/tN/reports/*.csv`, `/srv/tN/logs/**` and literal paths; "
        "the timed target matches the **last** pattern (the worst case for a peer that scans the "
        "list).",
        "- authorize = canonicalize + match (+ expiry and budget gates) through `LeaseGuard.authorize` "
        "(in Rust `LeaseGuard::authorize_cow`, the core call the bindings make: an already-canonical "
        "target comes back borrowed, and the bindings return the caller's own string object); "
        "a peer does its own canonicalization (`posixpath.normpath`, `path.posix.normalize`, "
        "`Path.normalize`, or the SDK's `canonicalize_target`) and then matches.",
        "- Each harness first checks that leasekit and the peer give the same answer on every timed "
        "input (allowed and denied) and stops if not; extra probes where peers are known to differ "
        "are only counted (table below).",
        "- Timing: a batch calibrated to about 10 ms, 11 batches, the median per call (the JVM "
        "first runs about 300 ms of warm-up per op for the JIT). The leasekit side times the bare "
        "binding call; peers are timed through a small closure. For authorize, the batches of "
        "leasekit and of its peers alternate (sample s of each before sample s+1 of any), so a "
        "machine whose speed drifts during the run weighs on both sides of a ratio alike.",
        "- Binding overhead = binding time - Rust core time for the same op in the same run.",
        "- Peak RSS: `VmHWM` of the process running the series (reset through "
        "`/proc/self/clear_refs` where the series runs in-process: Rust, C, JVM; Python and Node run "
        "each adversarial point in a fresh process so a runaway regex can be killed, so their RSS "
        "includes the interpreter).",
        "",
        "### Medians per op and language (leasekit)",
        "",
        *median_table(data),
        "",
        "### Binding overhead over the Rust core",
        "",
        *overhead_table(data),
        "",
        "### leasekit against the peers",
        "",
        "`leasekit/peer` is leasekit's time divided by the peer's (below 1 = leasekit is faster).",
        "",
        *peer_out,
        f"Target: authorize in every binding at least {PEER_TARGET_X:.0f}x faster than the peer in "
        "that language on the 10-pattern lease.",
        "",
        *verdicts,
        "",
        *switch_section(data),
        "### Where the peers give a different answer (counted, not timed)",
        "",
        *agreement_table(data),
        "",
        "### Adversarial series",
        "",
        f"Pattern `{adv['pattern']}` (capability `{adv['capability']}`) against targets of n `a`s "
        f"(no match). The leasekit points are denials, so they include building the language's "
        "error (in Node and the JVM that, not the matching, is most of the time; the Rust and C rows "
        "show the matcher). Each point is one call's time (the median of repeated calls when fast); a "
        f"backtracking peer is cut off after {adv['timeout_s']} s and the series stops there. The "
        "10/100/1000-pattern lease rows of the tables above are the large-lease series.",
        "",
        *adversarial_tables(data, adv["sizes"]),
        "",
        END,
    ]
    return "\n".join(lines) + "\n"


def switch_section(data):
    """`JobContext.authorize` of an ARCP SDK job, the SDK alone vs `install(guard=True)`."""
    doc = data.get("python")
    if not doc:
        return []
    sdk = times(doc, "arcp-sdk").get("job_authorize")
    lk = times(doc, "arcp-sdk+leasekit").get("job_authorize")
    if sdk is None or lk is None:
        return []
    return [
        "### The ARCP Python SDK switched to leasekit",
        "",
        "Per call of `JobContext.authorize` on an SDK job (10-pattern lease plus a `cost.budget`, "
        "the allowed target), the SDK alone and with `leasekit.integrations.arcp.install(guard=True)` "
        "(the job's guard built on the first call, not timed), in one run: the SDK alone before the "
        "switch and again after `uninstall()` (the faster median kept), the switched call between.",
        "",
        "| SDK alone | with install(guard=True) | ratio |",
        "|---|---|---|",
        f"| {fmt_ns(sdk)} | {fmt_ns(lk)} | {ratio_text(lk, sdk)} |",
        "",
    ]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("results")
    ap.add_argument("doc")
    ap.add_argument("--command", default="make bench")
    ap.add_argument("--seconds", default="?")
    args = ap.parse_args()
    data = load(args.results)
    new = section(data, args.results, args)
    old = open(args.doc).read() if os.path.exists(args.doc) else "# Performance\n"
    if BEGIN in old and END in old:
        doc = re.sub(re.escape(BEGIN) + ".*?" + re.escape(END) + "\n?", lambda _: new, old, flags=re.S)
    else:
        doc = old.rstrip("\n") + "\n\n" + new
    with open(args.doc, "w") as f:
        f.write(doc)


if __name__ == "__main__":
    main()
