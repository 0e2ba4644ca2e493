"""Python harness: the leasekit binding against the public ARCP Python SDK
(`agentruntimecontrolprotocol` 1.1.3), `fnmatch` and `re`, on the shared inputs.

Usage: python bench.py INPUTS_JSON OUT_JSON
       python bench.py --adv IMPL SIZE INPUTS_JSON   (one adversarial point; prints JSON)

Writes {"lang": "python", "records": [...]}: "time" records (median ns per call), "check"
records (agreement with leasekit on the timed inputs and on the probes) and "adv" records
(adversarial series, each point in a fresh process with a timeout).
"""

import json
import os
import posixpath
import re
import subprocess
import sys
import time
import fnmatch
from decimal import Decimal
from functools import partial
from types import SimpleNamespace

import leasekit as lk

SAMPLES = 11
BATCH_S = 0.010


def calibrate(f):
    """Iterations for a batch of about BATCH_S."""
    iters = 1
    while True:
        t = time.perf_counter()
        for _ in range(iters):
            f()
        el = time.perf_counter() - t
        if el >= BATCH_S / 4:
            # Calibrate on the faster of two runs: a batch slowed by the loaded machine must
            # not shrink every later batch.
            t = time.perf_counter()
            for _ in range(iters):
                f()
            el = min(el, time.perf_counter() - t)
            if el < BATCH_S:
                iters = max(1, int(iters * BATCH_S / el))
            return iters
        iters *= 4


def median_ns_per_call_interleaved(fs):
    """Median ns per call of each function, their batches interleaved (sample s of every
    function runs before sample s+1 of any), so a machine that speeds up or slows down during
    the run weighs on leasekit and the peers alike. Returns [(median, iters), ...]."""
    iters = [calibrate(f) for f in fs]
    per_call = [[] for _ in fs]
    for _ in range(SAMPLES):
        for k, f in enumerate(fs):
            n = iters[k]
            t = time.perf_counter_ns()
            for _ in range(n):
                f()
            per_call[k].append((time.perf_counter_ns() - t) / n)
    out = []
    for k, xs in enumerate(per_call):
        xs.sort()
        out.append((xs[SAMPLES // 2], iters[k]))
    return out


def median_ns_per_call(f):
    """Calibrate a batch to ~10 ms, time SAMPLES batches, return (median ns/call, iters)."""
    return median_ns_per_call_interleaved([f])[0]


def peak_rss_kb():
    """VmHWM of this process in KiB (0 if unavailable)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


# ---- implementations: each gives authorize(patterns, capability) -> (target -> bool) ----


def lk_authorizer(patterns, cap):
    guard = lk.LeaseGuard({cap: patterns})

    def authorize(target):
        try:
            guard.authorize(cap, target)
            return True
        except lk.LeaseError:
            return False

    # Timed: the bare binding call (the wrapper above only turns a denial into False).
    authorize.hot = lambda target: partial(guard.authorize, cap, target)
    return authorize


def sdk_authorizer(patterns, cap):
    from arcp._runtime.lease import LeaseOpContext, canonicalize_target, validate_lease_op
    from arcp._errors import PermissionDeniedError

    lease = {cap: patterns}

    def authorize(target):
        try:
            validate_lease_op(lease, LeaseOpContext(cap, canonicalize_target(target)))
            return True
        except PermissionDeniedError:
            return False

    return authorize


def fnmatch_authorizer(patterns, cap):
    def authorize(target):
        t = posixpath.normpath(target) if cap.startswith("fs.") else target
        return any(fnmatch.fnmatchcase(t, p) for p in patterns)

    return authorize


def glob_regex(pattern):
    """The usual hand-written glob: `**` -> `.*`, `*` -> `[^/]*`, the rest escaped."""
    out = []
    for i, part in enumerate(pattern.split("**")):
        if i:
            out.append(".*")
        out.append("[^/]*".join(re.escape(s) for s in part.split("*")))
    return re.compile("".join(out))


def re_authorizer(patterns, cap):
    compiled = [glob_regex(p) for p in patterns]

    def authorize(target):
        t = posixpath.normpath(target) if cap.startswith("fs.") else target
        return any(r.fullmatch(t) for r in compiled)

    return authorize


AUTHORIZERS = {
    "leasekit": lk_authorizer,
    "arcp-sdk": sdk_authorizer,
    "fnmatch": fnmatch_authorizer,
    "re": re_authorizer,
}


def adv_point(impl, size, inputs):
    """One adversarial point in this process: ns per call and peak RSS."""
    adv = inputs["adversarial"]
    authorize = AUTHORIZERS[impl]([adv["pattern"]], adv["capability"])
    target = "a" * size
    t = time.perf_counter_ns()
    answer = authorize(target)
    first = time.perf_counter_ns() - t
    ns = first if first > 50_000_000 else median_ns_per_call(partial(authorize, target))[0]
    return {"ns": ns, "answer": answer, "peak_rss_kb": peak_rss_kb()}


def adv_series(impl, inputs_path, inputs):
    adv = inputs["adversarial"]
    out = []
    for size in adv["sizes"]:
        rec = {"kind": "adv", "impl": impl, "series": "star-a", "n": size}
        try:
            p = subprocess.run(
                [sys.executable, __file__, "--adv", impl, str(size), inputs_path],
                capture_output=True, text=True, timeout=adv["timeout_s"],
            )
            if p.returncode != 0:
                rec.update(error=p.stderr.strip().splitlines()[-1:])
                out.append(rec)
                break
            rec.update(json.loads(p.stdout), timed_out=False)
            out.append(rec)
        except subprocess.TimeoutExpired:
            rec.update(ns=None, timed_out=True, timeout_s=adv["timeout_s"])
            out.append(rec)
            break
    return out


def main():
    if sys.argv[1] == "--adv":
        inputs = json.load(open(sys.argv[4]))
        print(json.dumps(adv_point(sys.argv[2], int(sys.argv[3]), inputs)))
        return
    inputs_path, out_path = sys.argv[1], sys.argv[2]
    inputs = json.load(open(inputs_path))
    cap = inputs["capability"]
    records = []

    def timed(impl, op, f):
        ns, iters = median_ns_per_call(f)
        records.append({"kind": "time", "impl": impl, "op": op, "median_ns": ns,
                        "iters": iters, "samples": SAMPLES})

    # authorize: the timed inputs must agree; the probes are only counted.
    auths = {impl: {n: mk(inputs["leases"][str(n)], cap) for n in inputs["sizes"]}
             for impl, mk in AUTHORIZERS.items()}
    for impl, by_size in auths.items():
        agree, disagree, examples = 0, 0, []
        for n in inputs["sizes"]:
            for target, want in ((inputs["targets"][str(n)], True), (inputs["denied"][str(n)], False)):
                got = by_size[n](target)
                if got != want or auths["leasekit"][n](target) != want:
                    raise SystemExit(f"{impl}: timed input disagrees: lease {n}, {target}: {got}")
        for n, target in inputs["probes"]:
            a, b = auths["leasekit"][n](target), by_size[n](target)
            if a == b:
                agree += 1
            else:
                disagree += 1
                examples.append(f"{target} (lease of {n}): leasekit {a}, {impl} {b}")
        records.append({"kind": "check", "impl": impl, "op": "authorize", "agree": agree,
                        "disagree": disagree, "examples": examples})
    # authorize: leasekit and every peer timed with interleaved batches, per lease size.
    for n in inputs["sizes"]:
        impls = list(auths)
        target = inputs["targets"][str(n)]
        fs = []
        for impl in impls:
            f = auths[impl][n]
            hot = getattr(f, "hot", None)
            fs.append(hot(target) if hot else partial(f, target))
        for impl, (ns, iters) in zip(impls, median_ns_per_call_interleaved(fs)):
            records.append({"kind": "time", "impl": impl, "op": f"authorize/{n}", "median_ns": ns,
                            "iters": iters, "samples": SAMPLES, "interleaved": True})

    # subset
    from arcp._runtime.lease import is_lease_subset as sdk_subset

    sub = inputs["subset"]
    lk_parent, lk_child = lk.Lease(sub["parent"]), lk.Lease(sub["child"])
    assert lk.is_lease_subset(lk_child, lk_parent) is sub["expect"]
    assert sdk_subset(sub["child"], sub["parent"]) is sub["expect"]
    agree, disagree, examples = 0, 0, []
    for (child,) in sub["probes"]:
        c = {cap: child}
        a, b = lk.is_lease_subset(lk.Lease(c), lk_parent), sdk_subset(c, sub["parent"])
        if a == b:
            agree += 1
        else:
            disagree += 1
            examples.append(f"{child}: leasekit {a}, arcp-sdk {b}")
    records.append({"kind": "check", "impl": "arcp-sdk", "op": "subset", "agree": agree,
                    "disagree": disagree, "examples": examples})
    timed("leasekit", "subset", partial(lk.is_lease_subset, lk_child, lk_parent))
    timed("arcp-sdk", "subset", partial(sdk_subset, sub["child"], sub["parent"]))

    # budget parse and spend
    from arcp._messages.execution import parse_budget_amount as sdk_parse
    from arcp._runtime.job import Job

    b = inputs["budget"]
    e = lk.parse_budget_amount(b["entry"])
    assert (e.currency, e.amount) == (b["currency"], Decimal(b["amount"]))
    assert sdk_parse(b["entry"]) == (b["currency"], Decimal(b["amount"]))
    timed("leasekit", "budget_parse", partial(lk.parse_budget_amount, b["entry"]))
    timed("arcp-sdk", "budget_parse", partial(sdk_parse, b["entry"]))

    name, value, unit = b["metric"]
    cur, total = b["lease_budget"].split(":")
    guard = lk.LeaseGuard({"cost.budget": [b["lease_budget"]]})
    job = SimpleNamespace(budget={cur: Decimal(total)})  # the SDK's Job counter state
    for _ in range(3):
        guard.record_metric(name, value, unit)
        Job.apply_cost_metric(job, name, value, unit)
    assert guard.remaining() == job.budget, (guard.remaining(), job.budget)
    timed("leasekit", "budget_spend", partial(guard.record_metric, name, value, unit))
    timed("arcp-sdk", "budget_spend", partial(Job.apply_cost_metric, job, name, value, unit))

    records.extend(switch_records(inputs, cap))

    for impl in AUTHORIZERS:
        records.extend(adv_series(impl, inputs_path, inputs))

    with open(out_path, "w") as f:
        json.dump({"lang": "python", "python": sys.version.split()[0],
                   "peers": {"arcp-sdk": "agentruntimecontrolprotocol " + sdk_version()},
                   "records": records}, f, indent=1)


def switch_records(inputs, cap):
    """`JobContext.authorize` of an SDK job with the SDK alone, then with
    `leasekit.integrations.arcp.install(guard=True)`, in one run (10-pattern lease, the timed
    allowed target)."""
    import arcp._runtime.job as sdk_job
    import leasekit.integrations.arcp as lk_arcp

    lease = {cap: inputs["leases"]["10"], "cost.budget": ["USD:5"]}
    target = inputs["targets"]["10"]

    def ctx():
        job = sdk_job.Job(job_id="j", session=None, agent="a", agent_version=None, lease=lease,
                          lease_constraints=None, budget={"USD": Decimal(5)},
                          initial_budget={"USD": Decimal(5)})
        return sdk_job.JobContext(job=job, runtime=None, signal=None, logger=None)

    # The switch rebinds module globals the SDK's method reads at call time, so the two cannot
    # be interleaved: the SDK alone is timed before install and again after uninstall (the
    # faster of the two medians is kept, so drift does not favour leasekit).
    sdk_call = partial(sdk_job.JobContext.authorize, ctx(), cap, target)
    sdk_call()
    sdk_ns, sdk_iters = median_ns_per_call(sdk_call)
    lk_arcp.install(guard=True)
    try:
        lk_call = partial(sdk_job.JobContext.authorize, ctx(), cap, target)
        assert lk_call() == target
        lk_ns, lk_iters = median_ns_per_call(lk_call)
    finally:
        lk_arcp.uninstall()
    again_ns, _ = median_ns_per_call(sdk_call)
    sdk_ns = min(sdk_ns, again_ns)
    return [
        {"kind": "time", "impl": "arcp-sdk", "op": "job_authorize", "median_ns": sdk_ns,
         "iters": sdk_iters, "samples": SAMPLES},
        {"kind": "time", "impl": "arcp-sdk+leasekit", "op": "job_authorize", "median_ns": lk_ns,
         "iters": lk_iters, "samples": SAMPLES},
    ]


def sdk_version():
    from importlib.metadata import version

    return version("agentruntimecontrolprotocol")


if __name__ == "__main__":
    main()
