"""Added latency of `leasekit mcp-guard` per `tools/call`: the same sequential
`read_text_file` calls to the real @modelcontextprotocol/server-filesystem, straight to the
server and through the guard, in one run (rounds interleaved), p50 and p99 of each.

    python3 bench/mcp_guard_latency.py LEASEKIT_BIN SERVER_INDEX_JS [CALLS_PER_ROUND] [ROUNDS]

`make bench-mcp` runs it (scripts/bench-mcp.sh installs the server). Prints a Markdown table."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time


def start(cmd):
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    send(p, {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}})
    recv(p)
    send(p, {"jsonrpc": "2.0", "method": "notifications/initialized"})
    return p


def send(p, msg):
    p.stdin.write((json.dumps(msg) + "\n").encode())
    p.stdin.flush()


def recv(p):
    line = p.stdout.readline()
    if not line:
        raise SystemExit("the server closed its stdout")
    return json.loads(line)


def calls(p, path, n, first_id):
    out = []
    for i in range(n):
        t0 = time.perf_counter_ns()
        send(p, {"jsonrpc": "2.0", "id": first_id + i, "method": "tools/call",
                 "params": {"name": "read_text_file", "arguments": {"path": path}}})
        r = recv(p)
        out.append(time.perf_counter_ns() - t0)
        if r.get("result", {}).get("isError") or "error" in r:
            raise SystemExit(f"call failed: {r}")
    return out


def pct(v, q):
    s = sorted(v)
    return s[min(len(s) - 1, int(q * len(s)))] / 1e6


def main():
    lk, server = sys.argv[1], sys.argv[2]
    n = int(sys.argv[3]) if len(sys.argv) > 3 else 200
    rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 5
    d = os.path.realpath(tempfile.mkdtemp(prefix="lk-mcp-bench-"))
    os.makedirs(f"{d}/data")
    with open(f"{d}/data/a.txt", "w") as f:
        f.write("hello\n" * 10)
    with open(f"{d}/lease.json", "w") as f:
        json.dump({"tool.call": ["mcp:fs.read_text_file"], "fs.read": [f"{d}/data/**"]}, f)
    direct = start(["node", server, d])
    guarded = start([lk, "mcp-guard", "--lease", f"{d}/lease.json", "--server", "fs",
                     "--audit", f"{d}/audit.jsonl", "--", "node", server, d])
    path = f"{d}/data/a.txt"
    calls(direct, path, 50, 1)  # warm up
    calls(guarded, path, 50, 1)
    a, b = [], []
    for r in range(rounds):
        a += calls(direct, path, n, 1000 + r * n)
        b += calls(guarded, path, n, 1000 + r * n)
    for p in (direct, guarded):
        p.stdin.close()
        p.wait(timeout=20)
    print(f"| {len(a)} sequential `read_text_file` calls each | p50 ms | p99 ms |")
    print("|---|---|---|")
    print(f"| straight to the server | {pct(a, .5):.3f} | {pct(a, .99):.3f} |")
    print(f"| through `leasekit mcp-guard` (audit on) | {pct(b, .5):.3f} | {pct(b, .99):.3f} |")
    print(f"| added | {pct(b, .5) - pct(a, .5):.3f} | {pct(b, .99) - pct(a, .99):.3f} |")


if __name__ == "__main__":
    main()
