"""The daemon series of `make bench`, driven by the Python client (`leasekit.GovernorClient`):
acquire+release pairs per second through a real `leasekit serve`, memory vs SQLite FULL vs
NORMAL, 1 / 16 / 64 client threads (one client, hence one connection, each), p50 / p99 of one
`acquire`. Runs are interleaved as in the Rust driver (bench/rust/src/daemon.rs); the load
average is recorded with each run.

Usage: python daemon.py [--quick] [--rounds N] [--clients 1,16,64] LEASEKIT_BINARY OUT_JSON

Environment (as the Rust driver's): `BENCH_DAEMON_PAIRS=N` pairs per run in all (default 3 000),
`BENCH_DAEMON_STORES=full,memory` a subset of the stores (the others are reported as not run).
"""

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

import leasekit

STORES = ("memory", "full", "normal")


def stores_from_env():
    """The stores to run: `BENCH_DAEMON_STORES` (comma-separated) or all of them."""
    wanted = [s.strip() for s in os.environ.get("BENCH_DAEMON_STORES", "").split(",") if s.strip()]
    unknown = [s for s in wanted if s not in STORES]
    if unknown:
        sys.exit(f"BENCH_DAEMON_STORES: unknown store {unknown[0]!r} (known: {', '.join(STORES)})")
    return [s for s in STORES if s in wanted] or list(STORES)


def start(binary, store, n):
    d = tempfile.mkdtemp(prefix=f"lk-pybench-{n}-")
    policy = os.path.join(d, "policy.json")
    with open(policy, "w") as f:
        json.dump({
            "policyVersion": "bench", "maxInFlight": 1_000_000, "maxComputeUnits": 1_000_000,
            "dailyBudgetCents": 1_000_000_000_000, "maxRequestsPerMinute": 1_000_000_000,
            "maxTokensPerMinute": 1_000_000_000_000, "leaseTtlMs": 600_000,
        }, f)
    sock = os.path.join(d, "s.sock")
    args = [binary, "serve", "--socket", sock, "--state", os.path.join(d, "state"), "--policy", policy,
            "--max-connections-per-uid", "256"]
    if store == "memory":
        args += ["--store", "memory"]
    elif store == "normal":
        args += ["--sync", "normal"]
    log = open(os.path.join(d, "daemon.log"), "w")
    proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=log)
    deadline = time.monotonic() + 20
    while True:
        if os.path.exists(sock):
            try:
                with leasekit.GovernorClient.connect(sock, fallback="off") as c:
                    c.status()
                break
            except Exception:
                pass
        if proc.poll() is not None or time.monotonic() > deadline:
            raise SystemExit(f"daemon not ready: {open(os.path.join(d, 'daemon.log')).read()}")
        time.sleep(0.005)
    return proc, d, sock


def stop(proc, d):
    proc.send_signal(signal.SIGTERM)
    proc.wait(60)
    shutil.rmtree(d, ignore_errors=True)


def cpu_us(pid):
    """CPU time (user + system) of process `pid` so far, in microseconds (clock ticks)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1e6 / os.sysconf("SC_CLK_TCK")


def run(sock, clients, pairs, warm):
    barrier = threading.Barrier(clients + 1)
    lat = [[] for _ in range(clients)]
    errors = []

    def worker(t):
        try:
            with leasekit.GovernorClient.connect(sock, fallback="off") as c:
                def pair(i, out):
                    a0 = time.perf_counter()
                    g = c.acquire(actorId=f"agent-{t}", workspaceId="bench", modelId="m",
                                  estimatedPromptTokens=10, maxOutputTokens=10,
                                  estimatedCostCents=3, sessionId=f"{t}-{i}")
                    if out is not None:
                        out.append(int((time.perf_counter() - a0) * 1e6))
                    assert g["granted"], g
                    r = c.release(leaseId=g["leaseId"], actualCostCents=2)
                    assert r["classification"] == "recorded", r
                for i in range(warm):
                    pair(1_000_000 + i, None)
                barrier.wait()
                for i in range(pairs):
                    pair(i, lat[t])
        except Exception as e:  # reported below; the barrier must not hang
            errors.append(repr(e))
            barrier.abort()

    threads = [threading.Thread(target=worker, args=(t,)) for t in range(clients)]
    for th in threads:
        th.start()
    barrier.wait()
    t0 = time.perf_counter()
    for th in threads:
        th.join()
    elapsed = time.perf_counter() - t0
    if errors:
        raise SystemExit(f"client failed: {errors[0]}")
    flat = sorted(x for l in lat for x in l)
    return clients * pairs / elapsed, flat


def pct(s, p):
    return s[min(int(len(s) * p), len(s) - 1)]


def main():
    argv = sys.argv[1:]
    quick = "--quick" in argv
    argv = [a for a in argv if a != "--quick"]
    rounds, clients_list = 3, [1, 16, 64]
    while argv and argv[0].startswith("--"):
        flag, val = argv[0], argv[1]
        argv = argv[2:]
        if flag == "--rounds":
            rounds = int(val)
        elif flag == "--clients":
            clients_list = [int(c) for c in val.split(",")]
    binary, out = argv
    if quick:
        rounds = min(rounds, 1)
    total = int(os.environ.get("BENCH_DAEMON_PAIRS", "0") or 0) or (300 if quick else 3000)
    stores = stores_from_env()

    def pairs_for(c):
        return max(5 if quick else 40, min(total // c, 1500))

    warm = 3 if quick else 10
    records, n = [], 0
    for rnd in range(rounds):
        for clients in clients_list:
            for store in stores:
                n += 1
                proc, d, sock = start(binary, store, n)
                try:
                    load = os.getloadavg()[0]
                    cpu0 = cpu_us(proc.pid)
                    per_s, lat = run(sock, clients, pairs_for(clients), warm)
                    # Daemon CPU per pair (the warm-up pairs counted in: a small share).
                    cpu = (cpu_us(proc.pid) - cpu0) / (clients * (pairs_for(clients) + warm))
                finally:
                    stop(proc, d)
                rec = {"binary": "python-client", "store": store, "clients": clients, "round": rnd,
                       "pairs": clients * pairs_for(clients), "pairs_per_s": per_s,
                       "acquire_p50_us": pct(lat, 0.5), "acquire_p99_us": pct(lat, 0.99),
                       "daemon_cpu_us_per_pair": cpu, "load_avg": load}
                print(f"daemon (python client) {store:6} {clients:2} clients: {per_s:7.0} pairs/s, "
                      f"acquire p50 {rec['acquire_p50_us']} us p99 {rec['acquire_p99_us']} us, "
                      f"daemon CPU per pair {cpu:.0f} us (load {load:.2f})",
                      file=sys.stderr)
                records.append(rec)

    def med(v):
        v = sorted(v)
        return v[len(v) // 2]

    def cell(v, width):
        return f"{'-':>{width}}" if v is None else f"{v:{width}.0f}"

    def pct_cell(v):
        return "(   - )" if v is None else f"({v * 100:4.0f} %)"

    summary = []
    print("python client  clients  memory pairs/s  full pairs/s (ratio)  normal pairs/s (ratio)")
    for clients in clients_list:
        by = {(r["store"], r["round"]): r["pairs_per_s"] for r in records if r["clients"] == clients}
        # A store left out by BENCH_DAEMON_STORES: None (the report prints "-").
        per = {s: med([by[(s, r)] for r in range(rounds)]) if s in stores else None for s in STORES}
        ratio = {s: med([by[(s, r)] / by[("memory", r)] for r in range(rounds)])
                 if s in stores and "memory" in stores else None for s in ("full", "normal")}
        print(f"{'':13} {clients:8}  {cell(per['memory'], 14)}  {cell(per['full'], 12)} {pct_cell(ratio['full'])}"
              f"  {cell(per['normal'], 14)} {pct_cell(ratio['normal'])}")
        summary.append({"binary": "python-client", "clients": clients, "memory": per["memory"],
                        "full": per["full"], "normal": per["normal"], "full_ratio": ratio["full"],
                        "normal_ratio": ratio["normal"]})
    with open(out, "w") as f:
        json.dump({"lang": "python", "series": "daemon", "rounds": rounds, "quick": quick,
                   "records": records, "summary": summary}, f, indent=1)


if __name__ == "__main__":
    main()
