#!/usr/bin/env python3
"""Audit verification under load (docs/performance.md): a `leasekit serve` daemon on a large
audit chain answers 4 concurrent `VerifyAudit` calls; meanwhile one `Acquire` is sent and
timed, and the daemon's resident memory is sampled every 10 ms.

Usage:
  bench/audit_verify_load.py build LEASEKIT STATE_DIR [MB]   build a chain of about MB (150)
  bench/audit_verify_load.py measure LEASEKIT STATE_DIR       measure (on a copy of STATE_DIR)

`build` starts the daemon on STATE_DIR and sends acquires whose `requestedCapabilities` hold
200 strings of 190 bytes (within SEMANTICS 13.16's wire limits: 1 024 items of 256 bytes), so
each `lease_acquired` record is about 40 KB and ~3 800 acquires make 150 MB; 8 client
threads, each request answered before the next. `measure` copies STATE_DIR, starts LEASEKIT
serve on the copy, waits for it, then runs the 4 verifications (each its own connection) and
after 200 ms one acquire; it prints JSON: the acquire's latency, the verifications' times and
results, and the daemon's RSS before and at its peak. Only a Unix socket in a temp dir; every
loop is bounded.
"""
import json
import os
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

POLICY = {"policyVersion": "bench", "maxInFlight": 1000000, "dailyBudgetCents": 10**12,
          "maxRequestsPerMinute": 10**9, "maxTokensPerMinute": 10**12, "leaseTtlMs": 86400000}


def call(sock_path, command, payload, timeout=600):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(timeout)
    s.connect(sock_path)
    body = json.dumps({"protocolVersion": "0.1", "command": command,
                       "payloadJson": json.dumps(payload)}).encode()
    s.sendall(struct.pack("<i", len(body)) + body)
    n = struct.unpack("<i", recv_exact(s, 4))[0]
    env = json.loads(recv_exact(s, n))
    s.close()
    return env


def recv_exact(s, n):
    buf = bytearray()
    while len(buf) < n:
        chunk = s.recv(min(1 << 20, n - len(buf)))
        if not chunk:
            raise EOFError("connection closed")
        buf += chunk
    return bytes(buf)


def start(leasekit, state, sock, policy_file, log):
    p = subprocess.Popen([leasekit, "serve", "--socket", sock, "--state", state,
                          "--policy", policy_file], stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, stderr=log)
    deadline = time.time() + 60
    while time.time() < deadline:
        if os.path.exists(sock):
            try:
                if call(sock, "GetStatus", {}, timeout=5)["success"]:
                    return p
            except OSError:
                pass
        time.sleep(0.05)
    p.kill()
    raise SystemExit("daemon not ready")


def rss_kb(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def build(leasekit, state, mb):
    os.makedirs(state, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="lk-avb-")
    pol = os.path.join(tmp, "policy.json")
    with open(pol, "w") as f:
        json.dump(POLICY, f)
    sock = os.path.join(tmp, "s.sock")
    log = open(os.path.join(tmp, "daemon.log"), "w")
    p = start(leasekit, state, sock, pol, log)
    caps = ["fs.read:/data/%s/%04d" % ("x" * 170, i) for i in range(200)]
    per = len(json.dumps(caps)) + 600
    total = int(mb * 1e6 / per)
    done = [0]
    lock = threading.Lock()

    def worker(t):
        for i in range(t, total, 8):
            env = call(sock, "Acquire", {"actorId": "bench-%d" % t, "workspaceId": "w",
                                         "estimatedCostCents": 0, "requestedCapabilities": caps})
            assert env["success"], env
            with lock:
                done[0] += 1
    t0 = time.time()
    ts = [threading.Thread(target=worker, args=(t,)) for t in range(8)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    status = json.loads(call(sock, "GetStatus", {})["payloadJson"])
    p.terminate()
    p.wait(60)
    size = sum(os.path.getsize(os.path.join(state, f)) for f in os.listdir(state)
               if f.startswith("governor.db"))
    print(json.dumps({"acquires": done[0], "seconds": round(time.time() - t0, 1),
                      "auditRecords": status.get("auditRecords"), "storeBytes": size}))
    shutil.rmtree(tmp, ignore_errors=True)


def measure(leasekit, state):
    tmp = tempfile.mkdtemp(prefix="lk-avm-")
    copy = os.path.join(tmp, "state")
    shutil.copytree(state, copy)
    pol = os.path.join(tmp, "policy.json")
    with open(pol, "w") as f:
        json.dump(POLICY, f)
    sock = os.path.join(tmp, "s.sock")
    log = open(os.path.join(tmp, "daemon.log"), "w")
    p = start(leasekit, copy, sock, pol, log)
    time.sleep(0.5)
    base = rss_kb(p.pid)
    peak = [base]
    stop = threading.Event()

    def sampler():
        while not stop.is_set():
            try:
                peak[0] = max(peak[0], rss_kb(p.pid))
            except OSError:
                return
            time.sleep(0.01)
    results = [None] * 4

    def verify(i):
        t0 = time.time()
        env = call(sock, "VerifyAudit", {})
        v = json.loads(env["payloadJson"]) if env["success"] else {"error": env["error"]}
        results[i] = {"seconds": round(time.time() - t0, 2), "ok": v.get("ok"),
                      "records": v.get("records"), "error": v.get("error")}
    smp = threading.Thread(target=sampler)
    smp.start()
    vs = [threading.Thread(target=verify, args=(i,)) for i in range(4)]
    for t in vs:
        t.start()
    time.sleep(0.2)
    t0 = time.time()
    env = call(sock, "Acquire", {"actorId": "probe", "workspaceId": "w", "estimatedCostCents": 0})
    acquire_ms = round((time.time() - t0) * 1000, 1)
    for t in vs:
        t.join()
    stop.set()
    smp.join()
    p.terminate()
    p.wait(60)
    answer = json.loads(env["payloadJson"]) if env["success"] else env
    print(json.dumps({"binary": leasekit, "acquireMs": acquire_ms,
                      "acquire": {k: answer.get(k) for k in ("granted", "deniedReason", "error")},
                      "rssBeforeMB": round(base / 1024, 1), "rssPeakMB": round(peak[0] / 1024, 1),
                      "verifications": results}))
    shutil.rmtree(tmp, ignore_errors=True)


def main(argv):
    if len(argv) >= 4 and argv[1] == "build":
        build(argv[2], argv[3], float(argv[4]) if len(argv) > 4 else 150)
    elif len(argv) == 4 and argv[1] == "measure":
        measure(argv[2], argv[3])
    else:
        sys.stderr.write(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
