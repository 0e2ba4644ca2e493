"""`leasekit mcp-guard --governor` with a real `leasekit serve`: every decision of the guard is a
`guard_decision` record of the governor's own audit chain (`leasekit audit verify` on the
daemon's store covers them), a hostile peer's oversized or malformed record is refused, and an
approval token given in `_meta["leasekit/approvalToken"]` lets an approval-gated tool through
without ever reaching the server, a log or an audit record.

Environment as test_mcp_guard.py (scripts/test-mcp.sh sets it)."""

from __future__ import annotations

import json
import os
import socket
import struct
import subprocess
import textwrap

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from test_mcp_guard import LEASEKIT, POLICY, Daemon, guard_args, server_saw, text_of, world  # noqa: F401

NOBODY = 65534


def frame_call(sock_path: str, command: str, payload: dict) -> dict:
    """One governor command over the daemon's socket: the response envelope."""
    body = json.dumps({"protocolVersion": "0.1", "command": command, "payloadJson": json.dumps(payload)}).encode()
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.connect(sock_path)
        s.sendall(struct.pack("<i", len(body)) + body)
        head = b""
        while len(head) < 4:
            head += s.recv(4 - len(head))
        (n,) = struct.unpack("<i", head)
        data = b""
        while len(data) < n:
            data += s.recv(n - len(data))
    return json.loads(data)


def chain(d: Daemon) -> list[dict]:
    out = d.dir / "chain.jsonl"
    r = subprocess.run([LEASEKIT, "audit", "export", "--store", str(d.dir / "state"), str(out)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    return [json.loads(line) for line in out.read_text().splitlines()]


def verify(d: Daemon) -> None:
    v = subprocess.run([LEASEKIT, "audit", "verify", str(d.dir / "state")], capture_output=True, text=True)
    assert v.returncode == 0, v.stdout + v.stderr


async def session_logged(w, body, errlog, *extra: str):
    params = StdioServerParameters(command=LEASEKIT, args=guard_args(w, *extra))
    async with stdio_client(params, errlog=errlog) as (read, write):
        async with ClientSession(read, write) as s:
            await s.initialize()
            return await body(s)


def test_guard_decisions_are_records_of_the_governors_chain(world):
    d = Daemon(POLICY)
    try:
        async def body(s):
            ok = await s.call_tool("read_text_file", {"path": str(world["data"] / "a.txt")})
            bad = await s.call_tool("read_text_file", {"path": str(world["data"] / ".." / "secret.txt")})
            return ok, bad

        with open(world["root"] / "guard.log", "w") as errlog:
            ok, bad = anyio.run(session_logged, world, body, errlog, "--governor", d.socket)
        assert not ok.is_error and text_of(ok) == "hello\n"
        assert bad.is_error and "PERMISSION_DENIED" in text_of(bad)
        verify(d)
        records = chain(d)
    finally:
        d.stop()
    guard = [r for r in records if r["eventType"] == "guard_decision"]
    assert [(r["decision"], r["rule"]) for r in guard] == [("allow", "mapped"), ("success", "result"),
                                                          ("deny", "argument")]
    assert all(r["peerUid"] == os.getuid() and r["source"] == "mcp" and r["server"] == "fs" for r in guard)
    acquired = [r for r in records if r["eventType"] == "lease_acquired"]
    assert len(acquired) == 1 and guard[0]["leaseId"] == acquired[0]["leaseId"] == guard[1]["leaseId"]
    assert guard[2]["code"] == "PERMISSION_DENIED" and guard[2]["leaseId"] == ""
    # The denied call never reached an Acquire, nor the server.
    assert "secret.txt" not in server_saw(world)


PEER = textwrap.dedent("""
    import json, socket, struct, sys
    sock, calls = sys.argv[1], json.loads(sys.stdin.read())
    out = []
    for command, payload in calls:
        body = json.dumps({"protocolVersion": "0.1", "command": command, "payloadJson": payload}).encode()
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(sock)
        s.sendall(struct.pack("<i", len(body)) + body)
        head = b""
        while len(head) < 4:
            head += s.recv(4 - len(head))
        n = struct.unpack("<i", head)[0]
        data = b""
        while len(data) < n:
            data += s.recv(n - len(data))
        s.close()
        out.append(json.loads(data))
    print(json.dumps(out))
""")


def as_uid(d: Daemon, uid: int, calls: list[tuple[str, str]]) -> list[dict]:
    """Governor commands (name, payload text) sent by a peer of another uid: the response envelopes."""
    r = subprocess.run(["/usr/bin/python3", "-c", PEER, d.socket], input=json.dumps(calls), user=uid, cwd="/",
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def open_daemon() -> Daemon:
    """A daemon other uids may reach (its socket 0666, its directory searchable)."""
    d = Daemon(POLICY, extra=["--socket-mode", "666"])
    os.chmod(d.dir, 0o711)
    return d


def approval_token(d: Daemon, actor: str) -> str:
    """An approval of `actor`'s `write_file` asked for by an agent (another uid) and granted by
    the admin (this uid): its single-use token."""
    [asked] = as_uid(d, NOBODY, [("RequestApproval", json.dumps({
        "actorId": actor, "workspaceId": "", "requestedBy": "agent",
        "toolId": "mcp:fs.write_file", "toolCategory": "fileWrite", "reason": "write w.txt"}))])
    approval = json.loads(asked["payloadJson"])["approvalId"]
    granted = frame_call(d.socket, "GrantApproval", {"approvalId": approval, "grantedBy": "boss"})
    token = json.loads(granted["payloadJson"])["approvalToken"]
    assert token.startswith("appr-"), granted
    return token


def test_a_hostile_peers_oversized_or_malformed_record_is_refused():
    d = open_daemon()
    try:
        good = {"decision": "deny", "rule": "argument", "reason": "r", "peerUid": 0}
        cases = [
            json.dumps({**good, "reason": "x" * 5000}),
            json.dumps({**good, "tool": "t" * 300}),
            json.dumps({**good, "targets": ["fs.read /a"] * 1025}),
            json.dumps({**good, "targets": ["a" * 8192] * 40}),
            json.dumps({**good, "decision": None}),
            json.dumps({**good, "decision": "allowed"}),
            json.dumps({**good, "code": "NOPE"}),
            "not json",
            json.dumps(good),
        ]
        before = len(chain(d))
        answers = as_uid(d, NOBODY, [("RecordDecision", c) for c in cases])
        for case, env in zip(cases[:-1], answers[:-1]):
            assert env["success"] is False, (case[:80], env)
            assert env["error"].startswith("invalid payload"), env
        last = json.loads(answers[-1]["payloadJson"])
        assert answers[-1]["success"] and last["recorded"] is True, answers[-1]
        records = chain(d)
        verify(d)
    finally:
        d.stop()
    # Only the well-formed record was appended, as the sender's uid (not the payload's).
    assert len(records) == before + 1
    assert records[-1]["eventType"] == "guard_decision" and records[-1]["peerUid"] == NOBODY


def test_an_approval_token_in_meta_lets_a_gated_tool_through_and_is_never_seen(world):
    d = open_daemon()
    try:
        token = approval_token(d, "mcp-guard")
        target = world["data"] / "out" / "w.txt"

        async def body(s):
            held = await s.call_tool("write_file", {"path": str(target), "content": "x"})
            passed = await s.call_tool("write_file", {"path": str(target), "content": "x"},
                                       meta={"leasekit/approvalToken": token})
            return held, passed

        with open(world["root"] / "guard.log", "w") as errlog:
            held, passed = anyio.run(session_logged, world, body, errlog, "--governor", d.socket)
        records = chain(d)
        verify(d)
    finally:
        d.stop()
    assert held.is_error and "approval_required" in text_of(held), text_of(held)
    assert not passed.is_error, text_of(passed)
    assert target.read_text() == "x"
    assert server_saw(world).count('"write_file"') == 1
    for place, text in [
        ("the server's stdin", server_saw(world)),
        ("the guard's log", (world["root"] / "guard.log").read_text()),
        ("the local audit chain", (world["root"] / "audit.jsonl").read_text()),
        ("the daemon's log", (d.dir / "daemon.log").read_text()),
        ("the governor's chain", json.dumps(records)),
    ]:
        assert token not in text, f"the approval token is in {place}"
    decisions = [(r["decision"], r["rule"]) for r in records if r["eventType"] == "guard_decision"]
    assert decisions == [("deny", "governor"), ("allow", "mapped"), ("success", "result")]
