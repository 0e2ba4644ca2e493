#!/usr/bin/env python3
"""Daemon memory under huge partial frames (docs/performance.md, "Buffered request bytes").

Starts `LEASEKIT serve --store memory` on a fresh temp directory, opens N connections (48),
each announcing a 16 MiB frame and then sending all but its last byte, half a MiB per
connection in turn, and prints the daemon's RSS (largest sampled VmRSS and the kernel's peak,
VmHWM), how many connections the daemon refused, and the slowest GetMetrics round trip on a
separate connection while the frames were pushed.

    python3 scripts/daemon-buffer-figure.py target/release/leasekit [--connections 48] [-- FLAGS]

Extra daemon flags follow `--` (e.g. `-- --max-buffered-bytes 67108864`).
"""

import argparse
import json
import os
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time

MIB = 1024 * 1024


def rss(pid):
    out = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(("VmRSS:", "VmHWM:")):
                k, v = line.split(":")
                out[k] = int(v.split()[0]) * 1024
    return out.get("VmRSS", 0), out.get("VmHWM", 0)


def frame(command, payload):
    body = json.dumps(
        {"protocolVersion": "0.1", "command": command, "payloadJson": json.dumps(payload)}
    ).encode()
    return struct.pack("<i", len(body)) + body


def read_frame(s):
    def exact(n):
        b = b""
        while len(b) < n:
            c = s.recv(n - len(b))
            if not c:
                return None
            b += c
        return b

    head = exact(4)
    if head is None:
        return None
    body = exact(struct.unpack("<i", head)[0])
    return None if body is None else json.loads(body)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("--connections", type=int, default=48)
    ap.add_argument("flags", nargs="*")
    a = ap.parse_args()
    d = tempfile.mkdtemp(prefix="lk-fig-")
    os.chmod(d, 0o755)
    sock = os.path.join(d, "s.sock")
    log = open(os.path.join(d, "daemon.log"), "w")
    proc = subprocess.Popen(
        [a.binary, "serve", "--store", "memory", "--socket", sock, "--state",
         os.path.join(d, "state"), "--frame-timeout", "300", *a.flags],
        stdout=subprocess.DEVNULL, stderr=log,
    )
    try:
        for _ in range(2000):
            if os.path.exists(sock):
                break
            time.sleep(0.01)
        time.sleep(0.2)
        idle_rss, _ = rss(proc.pid)
        probe = socket.socket(socket.AF_UNIX)
        probe.connect(sock)
        probe.settimeout(30)
        conns = []
        for _ in range(a.connections):
            s = socket.socket(socket.AF_UNIX)
            s.connect(sock)
            s.settimeout(20)
            s.sendall(struct.pack("<i", 16 * MIB))
            conns.append(s)
        target = 16 * MIB - 1
        chunk = b" " * (MIB // 2)
        sent = [0] * len(conns)
        alive = [True] * len(conns)
        max_rss, slowest = 0, 0.0
        t0 = time.time()
        while True:
            progressed = False
            for i, s in enumerate(conns):
                if not alive[i] or sent[i] >= target:
                    continue
                n = min(len(chunk), target - sent[i])
                try:
                    s.sendall(chunk[:n])
                    sent[i] += n
                    progressed = True
                except OSError:
                    alive[i] = False
            max_rss = max(max_rss, rss(proc.pid)[0])
            t = time.time()
            probe.sendall(frame("GetMetrics", {}))
            r = read_frame(probe)
            slowest = max(slowest, time.time() - t)
            assert r is not None and r.get("success") is True, r
            if not progressed:
                break
        pushed_s = time.time() - t0
        time.sleep(0.3)
        now, peak = rss(proc.pid)
        print(json.dumps({
            "binary": a.binary,
            "connections": len(conns),
            "pushed_mib": round(sum(sent) / MIB, 1),
            "push_seconds": round(pushed_s, 2),
            "refused": alive.count(False),
            "rss_idle_mib": round(idle_rss / MIB, 1),
            "rss_max_sampled_mib": round(max(max_rss, now) / MIB, 1),
            "rss_peak_vmhwm_mib": round(peak / MIB, 1),
            "slowest_getmetrics_ms": round(slowest * 1000, 1),
        }))
    finally:
        proc.kill()
        proc.wait()
        shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
