"""`leasekit mcp-guard` in front of the real `@modelcontextprotocol/server-filesystem`, driven by
the real Python `mcp` SDK client (and, for what an SDK refuses to send, by raw JSON-RPC lines).
The server's stdin is recorded (a `tee` in front of it), so "denied before reaching the server"
is checked on what the server actually received. A governor is a real `leasekit serve`.

Environment (scripts/test-mcp.sh sets it): LEASEKIT_BIN, MCP_FS_SERVER (the server's
dist/index.js)."""

from __future__ import annotations

import json
import os
import pathlib
import signal
import subprocess
import sys
import tempfile
import time

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

LEASEKIT = os.environ["LEASEKIT_BIN"]
FS_SERVER = os.environ["MCP_FS_SERVER"]
HERE = pathlib.Path(__file__).resolve().parent


@pytest.fixture()
def world(tmp_path: pathlib.Path):
    root = tmp_path.resolve()
    data = root / "data"
    (data / "out").mkdir(parents=True)
    (data / "a.txt").write_text("hello\n")
    (root / "datax").mkdir()
    (root / "datax" / "sibling.txt").write_text("sibling-secret\n")
    (root / "secret.txt").write_text("top-secret\n")
    (data / "escape").symlink_to(root)
    agentfile = root / "Agentfile"
    agentfile.write_text(
        "AGENT files\nMCP fs\n"
        "TOOL mcp:fs.read_text_file\nTOOL mcp:fs.write_file\nTOOL mcp:fs.list_allowed_directories\n"
        f"MOUNT {data} ro\nMOUNT {data}/out rw\n"
    )
    return {"root": root, "data": data, "agentfile": agentfile, "log": root / "server-stdin.log"}


def guard_args(w, *extra: str, server=None):
    if server is None:
        # The filesystem server's stdin is recorded before it reaches the server.
        server = ["sh", "-c", 'tee -a "$0" | "$@"', str(w["log"]), "node", FS_SERVER, str(w["root"])]
    wrapped = server
    return ["mcp-guard", "--agentfile", str(w["agentfile"]), "--audit", str(w["root"] / "audit.jsonl"), *extra, "--", *wrapped]


def server_saw(w) -> str:
    return w["log"].read_text() if w["log"].exists() else ""


async def with_session(w, body, *extra: str):
    params = StdioServerParameters(command=LEASEKIT, args=guard_args(w, *extra))
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as s:
            await s.initialize()
            return await body(s)


def text_of(result) -> str:
    return "".join(getattr(c, "text", "") for c in result.content)


def test_an_allowed_read_inside_the_mount_reaches_the_server(world):
    async def body(s):
        return await s.call_tool("read_text_file", {"path": str(world["data"] / "a.txt")})

    r = anyio.run(with_session, world, body)
    assert not r.is_error, text_of(r)
    assert "hello" in text_of(r)


def test_traversal_encoded_sibling_symlink_and_read_only_writes_are_denied_before_the_server(world):
    data, root = world["data"], world["root"]
    attempts = [
        ("read_text_file", {"path": f"{data}/../secret.txt"}),
        ("read_text_file", {"path": f"{data}/%2e%2e/secret.txt"}),
        ("read_text_file", {"path": f"{root}/datax/sibling.txt"}),
        ("read_text_file", {"path": f"{data}/escape/secret.txt"}),
        ("write_file", {"path": f"{data}/planted.txt", "content": "x"}),
    ]

    async def body(s):
        return [await s.call_tool(n, a) for n, a in attempts]

    results = anyio.run(with_session, world, body)
    for (name, args), r in zip(attempts, results):
        assert r.is_error, (name, args)
        assert "leasekit mcp-guard" in text_of(r) and ("PERMISSION_DENIED" in text_of(r) or "INVALID_REQUEST" in text_of(r))
    saw = server_saw(world)
    assert "secret.txt" not in saw and "sibling" not in saw and "planted" not in saw
    assert not (data / "planted.txt").exists()
    assert "initialize" in saw  # the recording works


def test_a_write_inside_the_rw_mount_is_allowed(world):
    async def body(s):
        return await s.call_tool("write_file", {"path": str(world["data"] / "out" / "note.txt"), "content": "ok"})

    r = anyio.run(with_session, world, body)
    assert not r.is_error, text_of(r)
    assert (world["data"] / "out" / "note.txt").read_text() == "ok"


def test_tools_list_is_filtered_and_an_unlisted_tool_is_denied(world):
    async def body(s):
        listed = sorted(t.name for t in (await s.list_tools()).tools)
        r = await s.call_tool("move_file", {"source": str(world["data"] / "a.txt"), "destination": str(world["data"] / "out" / "b.txt")})
        return listed, r

    listed, r = anyio.run(with_session, world, body)
    assert listed == ["list_allowed_directories", "read_text_file", "write_file"]
    assert r.is_error and "tool.call" in text_of(r)
    assert "move_file" not in server_saw(world)
    assert (world["data"] / "a.txt").exists()


def test_the_audit_chain_verifies(world):
    async def body(s):
        await s.call_tool("read_text_file", {"path": str(world["data"] / "a.txt")})
        await s.call_tool("read_text_file", {"path": "/etc/passwd"})

    anyio.run(with_session, world, body)
    audit = world["root"] / "audit.jsonl"
    lines = audit.read_text().splitlines()
    decisions = [json.loads(l)["decision"] for l in lines]
    assert decisions == ["allow", "success", "deny"]
    v = subprocess.run([LEASEKIT, "audit", "verify", str(audit)], capture_output=True, text=True)
    assert v.returncode == 0, v.stdout + v.stderr


class Raw:
    """The guard driven with raw lines (what an SDK client would refuse to send)."""

    def __init__(self, w, *extra: str, server=None):
        self.p = subprocess.Popen([LEASEKIT, *guard_args(w, *extra, server=server)], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE)

    def send(self, line: bytes | str) -> None:
        self.p.stdin.write(line.encode() if isinstance(line, str) else line)
        self.p.stdin.write(b"\n")
        self.p.stdin.flush()

    def recv(self) -> dict:
        line = self.p.stdout.readline()
        assert line, "the guard closed its stdout"
        return json.loads(line)

    def init(self) -> None:
        self.send(json.dumps({"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}}))
        assert self.recv()["id"] == "init"
        self.send('{"jsonrpc":"2.0","method":"notifications/initialized"}')

    def close(self) -> int:
        self.p.stdin.close()
        try:
            return self.p.wait(timeout=20)
        finally:
            self.p.stdout.close()
            self.p.stderr.close()


def call(i, name, args) -> str:
    return json.dumps({"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {"name": name, "arguments": args}})


def test_malformed_oversized_and_batch_messages_get_json_rpc_errors(world):
    raw = Raw(world, "--max-line", "65536")
    raw.init()
    bad = call(1, "read_text_file", {"path": "/etc/passwd"})
    cases = [
        (b"{not json", -32700),
        (b"\xff\xfe{}", -32600),
        (("[" + bad + "]").encode(), -32600),
        (b'{"jsonrpc":"2.0","id":null,"method":"tools/call"}', -32600),
        (b'{"jsonrpc":"2.0","id":2,"method":"TOOLS/CALL","params":{"name":"read_text_file","arguments":{"path":"/etc/passwd"}}}', -32601),
        (call(3, "read_text_file", {"path": "/x" * 40000}).encode(), -32600),
    ]
    for line, code in cases:
        raw.send(line)
        answer = raw.recv()
        assert answer["error"]["code"] == code, (line[:60], answer)
    # Still serving.
    raw.send(call(4, "read_text_file", {"path": str(world["data"] / "a.txt")}))
    assert "hello" in json.dumps(raw.recv())
    assert raw.close() == 0
    assert "/etc/passwd" not in server_saw(world)


def crashy(w):
    return [sys.executable, str(HERE / "crashy_server.py")]


def test_a_server_crash_mid_call_answers_the_call_and_exits_with_the_server(world):
    world["agentfile"].write_text("AGENT c\nMCP fs\nTOOL mcp:fs.crash\nTOOL mcp:fs.slow\n")
    raw = Raw(world, server=crashy(world))
    raw.init()
    raw.send(call(7, "crash", {}))
    answer = raw.recv()
    assert answer["id"] == 7 and answer["error"]["code"] == -32603
    assert raw.p.wait(timeout=20) == 3
    raw.close()


def test_a_cancelled_call_frees_its_id(world):
    world["agentfile"].write_text("AGENT c\nMCP fs\nTOOL mcp:fs.crash\nTOOL mcp:fs.slow\n")
    raw = Raw(world, server=crashy(world))
    raw.init()
    raw.send(call(5, "slow", {"seconds": 30}))
    raw.send(call(5, "slow", {"seconds": 0}))
    assert "already in use" in raw.recv()["error"]["message"]
    raw.send(json.dumps({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 5}}))
    raw.send(call(5, "slow", {"seconds": 0}))
    assert raw.recv()["id"] == 5
    raw.p.send_signal(signal.SIGTERM)
    raw.close()


class Daemon:
    """A real `leasekit serve` on a temporary socket."""

    def __init__(self, policy: dict, extra: tuple[str, ...] | list[str] = ()):
        self.dir = pathlib.Path(tempfile.mkdtemp(prefix="lk-mcp-"))
        self.socket = str(self.dir / "s.sock")
        (self.dir / "policy.json").write_text(json.dumps(policy))
        self.log = open(self.dir / "daemon.log", "ab")
        self.p = subprocess.Popen([LEASEKIT, "serve", "--socket", self.socket, "--state", str(self.dir / "state"),
                                   "--policy", str(self.dir / "policy.json"), *extra], stdin=subprocess.DEVNULL,
                                  stdout=subprocess.DEVNULL, stderr=self.log)
        deadline = time.monotonic() + 20
        while not os.path.exists(self.socket):
            assert self.p.poll() is None, (self.dir / "daemon.log").read_text()
            assert time.monotonic() < deadline
            time.sleep(0.01)

    def stop(self):
        self.p.send_signal(signal.SIGTERM)
        self.p.wait(timeout=20)
        self.log.close()


POLICY = {
    "maxInFlight": 16,
    "dailyBudgetCents": 100000,
    "maxRequestsPerMinute": 3,
    "toolRegistry": [
        {"toolId": "mcp:fs.read_text_file", "category": "fileRead"},
        {"toolId": "mcp:fs.write_file", "category": "fileWrite"},
    ],
    "approvalRequiredToolCategories": ["fileWrite"],
}


def test_the_governor_rate_limit_runs_out_and_an_approval_gated_tool_is_held(world):
    d = Daemon(POLICY)
    try:
        async def body(s):
            reads = [await s.call_tool("read_text_file", {"path": str(world["data"] / "a.txt")}) for _ in range(4)]
            write = await s.call_tool("write_file", {"path": str(world["data"] / "out" / "w.txt"), "content": "x"})
            return reads, write

        reads, write = anyio.run(with_session, world, body, "--governor", d.socket)
    finally:
        d.stop()
    ok = [r for r in reads if not r.is_error]
    denied = [r for r in reads if r.is_error]
    assert len(ok) == 3, [text_of(r) for r in reads]
    assert len(denied) == 1 and "retryAfterMs" in text_of(denied[0])
    assert denied[0].meta["leasekit"]["retryAfterMs"] > 0
    assert write.is_error and "approval" in text_of(write)
    assert not (world["data"] / "out" / "w.txt").exists()
    assert server_saw(world).count('"read_text_file"') == 3
