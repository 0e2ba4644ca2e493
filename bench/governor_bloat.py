#!/usr/bin/env python3
"""Acquire+release pair through a real `leasekit serve`, fresh and after denied acquires with
large tool ids, or after granted pairs of many distinct actors (docs/performance.md, "Bounded
governor state").

Usage: python3 bench/governor_bloat.py LEASEKIT_BINARY [--restart]

Starts the daemon on a temporary SQLite state directory (`--sync normal`), times 30 pairs
(median), sends denied acquires (case `1mib`: 24 with 1 MiB tool ids; case `255b`: 960 with
distinct 255-byte tool ids; case `actors`: 5 000 granted pairs, each of a new 255-byte actor id,
so the day holds 5 000 scoped budget counters; case `policy`: the daemon runs a policy of 5 000
registered tools, ~540 KB, and nothing is sent before), times 7 pairs (median), optionally
restarts the daemon and times 7 again. `--cases a,b` runs only those. Loopback Unix socket only; every loop
is bounded.
"""
import json
import os
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import time

AFTER_PAIRS = 7  # a bloated "before" daemon takes seconds per pair
ACTORS = 5000

POLICY = {"toolRegistry": [{"toolId": "t", "category": "other"}], "maxRequestsPerMinute": 100000,
          "maxTokensPerMinute": 100000000, "dailyBudgetCents": 100000000}


def frame(command, payload):
    body = json.dumps({"protocolVersion": "0.1", "command": command,
                       "payloadJson": json.dumps(payload)}).encode()
    return struct.pack("<i", len(body)) + body


def recv_exact(s, n):
    buf = b""
    while len(buf) < n:
        chunk = s.recv(n - len(buf))
        if not chunk:
            raise EOFError("daemon closed the connection")
        buf += chunk
    return buf


def call(sock_path, command, payload):
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.connect(sock_path)
        s.sendall(frame(command, payload))
        (n,) = struct.unpack("<i", recv_exact(s, 4))
        env = json.loads(recv_exact(s, n))
    return env


def big_policy(tools=5000):
    """POLICY with `tools` more registered tools of ~90 bytes each."""
    extra = [{"toolId": "tool-%05d-%s" % (i, "x" * 60), "category": "other"} for i in range(tools)]
    return dict(POLICY, toolRegistry=POLICY["toolRegistry"] + extra)


def start(binary, state, sock_path, doc=None):
    policy = os.path.join(state, "policy.json")
    with open(policy, "w") as f:
        json.dump(doc or POLICY, f)
    p = subprocess.Popen([binary, "serve", "--state", state, "--socket", sock_path, "--policy", policy,
                          "--sync", "normal"], stderr=subprocess.DEVNULL)
    for _ in range(200):
        if os.path.exists(sock_path):
            try:
                call(sock_path, "GetStatus", {})
                return p
            except OSError:
                pass
        time.sleep(0.05)
    p.kill()
    raise RuntimeError("daemon did not start")


def stop(p):
    p.terminate()
    p.wait(timeout=60)


def pairs(sock_path, n=30):
    times = []
    for i in range(n):
        t0 = time.perf_counter()
        env = call(sock_path, "Acquire", {"actorId": "bench", "workspaceId": "w", "estimatedCostCents": 1})
        grant = json.loads(env["payloadJson"])
        assert grant["granted"], grant
        call(sock_path, "Release", {"leaseId": grant["leaseId"], "actualCostCents": 1})
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def run(binary, case, restart):
    with tempfile.TemporaryDirectory(prefix="lk-bloat-") as state:
        sock_path = os.path.join(state, "gov.sock")
        doc = big_policy() if case == "policy" else None
        p = start(binary, state, sock_path, doc)
        out = {"fresh_ms": pairs(sock_path)}
        refused = 0
        if case == "actors":
            t0 = time.perf_counter()
            for i in range(ACTORS):
                env = call(sock_path, "Acquire", {"actorId": "%04d" % i + "a" * 251,
                                                  "workspaceId": "w", "estimatedCostCents": 1})
                grant = json.loads(env["payloadJson"])
                assert grant["granted"], grant
                call(sock_path, "Release", {"leaseId": grant["leaseId"], "actualCostCents": 1})
            out["sent_pairs"] = ACTORS
            out["sent_s"] = round(time.perf_counter() - t0, 2)
            ids = []
        elif case == "policy":
            out["policy_bytes"] = len(json.dumps(doc))
            ids = []
        elif case == "1mib":
            ids = ["%02d" % i + "x" * ((1 << 20) - 2) for i in range(24)]
        else:
            ids = ["%04d" % i + "y" * 251 for i in range(24 * 40)]
        for i, tool in enumerate(ids):
            env = call(sock_path, "Acquire", {"actorId": "attacker", "workspaceId": "w%d" % i,
                                              "requestedTools": [{"toolId": tool}]})
            if not env["success"]:
                refused += 1
        if ids:
            out["sent"] = len(ids)
        out["refused_success_false"] = refused
        out["after_ms"] = pairs(sock_path, AFTER_PAIRS)
        env = call(sock_path, "GetMetrics", {})
        out["get_metrics_ok"] = env["success"]
        if env["success"]:
            out["denies_keys"] = len(json.loads(env["payloadJson"])["deniesByReason"])
        if restart:
            stop(p)
            p = start(binary, state, sock_path, doc)
            out["after_restart_ms"] = pairs(sock_path, AFTER_PAIRS)
        stop(p)
        out["state_bytes"] = sum(os.path.getsize(os.path.join(state, f)) for f in os.listdir(state)
                                 if os.path.isfile(os.path.join(state, f)))
        return out


def main():
    binary = sys.argv[1]
    restart = "--restart" in sys.argv
    cases = ("1mib", "255b", "actors", "policy")
    if "--cases" in sys.argv:
        cases = sys.argv[sys.argv.index("--cases") + 1].split(",")
    for case in cases:
        print(case, json.dumps(run(binary, case, restart)), flush=True)


if __name__ == "__main__":
    main()
