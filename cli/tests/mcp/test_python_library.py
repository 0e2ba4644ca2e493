"""`leasekit.mcp` (the Python library) wrapping the real `mcp` SDK's ClientSession in front of the
real `@modelcontextprotocol/server-filesystem`. The server's stdin is recorded (a `tee` in front
of it), so "denied before reaching the server" is checked on what the server actually received.

Environment (scripts/test-mcp.sh sets it): LEASEKIT_BIN, MCP_FS_SERVER; the `leasekit` package
installed in the same interpreter."""

from __future__ import annotations

import functools
import json
import os
import pathlib
import subprocess

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

import leasekit
from leasekit.mcp import GuardedClientSession, McpGuard, guard_session

LEASEKIT = os.environ["LEASEKIT_BIN"]
FS_SERVER = os.environ["MCP_FS_SERVER"]


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
    return {"root": root, "data": data, "agentfile": agentfile, "log": root / "server-stdin.log",
            "audit": root / "audit.jsonl"}


def server_saw(w) -> str:
    return w["log"].read_text() if w["log"].exists() else ""


async def with_guarded(w, body, **options):
    # The SDK starts the server itself; its stdin is recorded before it reaches the server.
    params = StdioServerParameters(
        command="sh", args=["-c", 'tee -a "$0" | "$@"', str(w["log"]), "node", FS_SERVER, str(w["root"])]
    )
    options.setdefault("agentfile", w["agentfile"])
    options.setdefault("audit", w["audit"])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as s:
            await s.initialize()
            return await body(guard_session(s, **options))


def text_of(result) -> str:
    return "".join(getattr(c, "text", "") for c in result.content)


def test_an_allowed_read_reaches_the_server_with_the_canonical_path(world):
    data = world["data"]

    async def body(g):
        assert isinstance(g, GuardedClientSession) and g.guard.server == "fs"
        return await g.call_tool("read_text_file", {"path": f"{data}/out/../a.txt"})

    r = anyio.run(with_guarded, world, body)
    assert not r.is_error, text_of(r)
    assert "hello" in text_of(r)
    saw = server_saw(world)
    assert json.dumps(str(data / "a.txt")) in saw and "out/.." not in saw


def test_escapes_and_read_only_writes_are_denied_before_the_server(world):
    data, root = world["data"], world["root"]
    attempts = [
        ("read_text_file", {"path": f"{data}/../secret.txt"}),
        ("read_text_file", {"path": f"{data}/%2e%2e/secret.txt"}),
        ("read_text_file", {"path": f"{root}/datax/sibling.txt"}),
        ("read_text_file", {"path": f"{data}/escape/secret.txt"}),
        ("write_file", {"path": f"{data}/planted.txt", "content": "x"}),
        ("write_file", {"path": f"{root}/secret.txt", "content": "overwritten"}),
    ]

    async def body(g):
        return [await g.call_tool(n, a) for n, a in attempts]

    results = anyio.run(with_guarded, world, body)
    for (name, args), r in zip(attempts, results):
        assert r.is_error, (name, args)
        code = r.meta["leasekit"]["code"]
        assert code in ("PERMISSION_DENIED", "INVALID_REQUEST"), (name, args, code)
        assert code in text_of(r) and r.meta["leasekit"]["reason"] in text_of(r)
    saw = server_saw(world)
    assert "initialize" in saw  # the recording works
    assert "tools/call" not in saw and "secret" not in saw and "sibling" not in saw and "planted" not in saw
    assert not (data / "planted.txt").exists()
    assert (root / "secret.txt").read_text() == "top-secret\n"


def test_a_write_inside_the_read_write_mount_is_allowed(world):
    async def body(g):
        return await g.call_tool("write_file", {"path": str(world["data"] / "out" / "note.txt"), "content": "ok"})

    r = anyio.run(with_guarded, world, body)
    assert not r.is_error, text_of(r)
    assert (world["data"] / "out" / "note.txt").read_text() == "ok"


def test_tools_list_is_filtered_and_an_undeclared_tool_is_denied(world):
    async def body(g):
        everything = sorted(t.name for t in (await g.session.list_tools()).tools)
        listed = sorted(t.name for t in (await g.list_tools()).tools)
        r = await g.call_tool("move_file", {"source": str(world["data"] / "a.txt"),
                                            "destination": str(world["data"] / "out" / "b.txt")})
        return everything, listed, r

    everything, listed, r = anyio.run(with_guarded, world, body)
    assert "move_file" in everything and len(everything) > 3
    assert listed == ["list_allowed_directories", "read_text_file", "write_file"]
    assert r.is_error and r.meta["leasekit"]["code"] == "PERMISSION_DENIED"
    assert "mcp:fs.move_file" in text_of(r)
    assert "move_file" not in server_saw(world)
    assert (world["data"] / "a.txt").exists()


def test_malformed_arguments_get_a_clean_error_and_the_session_goes_on(world):
    path = str(world["data"] / "a.txt")
    deep: object = path
    for _ in range(300):
        deep = [deep]

    async def body(g):
        out = []
        for args in ("not-an-object", [path], {"path": 7}, {"path": "/" + "a" * (5 * 1024 * 1024)},
                     {"path": path, "deep": deep}, {"path": "\u0000"}):
            out.append(await g.call_tool("read_text_file", args))
        with pytest.raises(leasekit.InvalidRequest):
            await g.call_tool("read_text_file", {"path": object()})
        with pytest.raises(leasekit.InvalidRequest):
            await g.call_tool("read_text_file", {"path": float("nan")})
        out.append(await g.call_tool("read_text_file", {"path": path}))
        return out

    results = anyio.run(with_guarded, world, body)
    for r in results[:-1]:
        assert r.is_error, text_of(r)
        assert r.meta["leasekit"]["code"] in ("INVALID_REQUEST", "PERMISSION_DENIED"), text_of(r)
    assert not results[-1].is_error and "hello" in text_of(results[-1])
    assert server_saw(world).count("tools/call") == 1


def test_a_resource_outside_the_lease_is_refused_before_the_server(world):
    async def body(g):
        with pytest.raises(leasekit.PermissionDenied):
            await g.read_resource("file:///etc/passwd")
        with pytest.raises(leasekit.InvalidRequest):
            await g.read_resource(f"file://{world['data']}/%2e%2e/secret.txt")

    anyio.run(with_guarded, world, body)
    assert "resources/read" not in server_saw(world)


def test_every_decision_is_in_an_audit_chain_that_verifies(world):
    async def body(g):
        await g.call_tool("read_text_file", {"path": str(world["data"] / "a.txt")})
        await g.call_tool("read_text_file", {"path": "/etc/passwd"})

    anyio.run(with_guarded, world, body)
    records = [json.loads(line) for line in world["audit"].read_text().splitlines()]
    assert [r.get("decision") for r in records] == ["allow", "success", "deny"], records
    v = subprocess.run([LEASEKIT, "audit", "verify", str(world["audit"])], capture_output=True, text=True)
    assert v.returncode == 0, v.stdout + v.stderr


def test_a_lease_with_a_strict_guard_refuses_unmapped_tools(world):
    lease = {"tool.call": ["mcp:files.*"], "fs.read": [f"{world['data']}/**"]}
    guard = McpGuard(lease=lease, server="files", strict=True)
    assert guard.decide_call("read_text_file", {"path": str(world["data"] / "a.txt")})["decision"] == "allow"
    d = guard.decide_call("some_unmapped_tool", {"path": "/etc/passwd"})
    assert d["decision"] == "deny" and d["code"] == "PERMISSION_DENIED"
    assert guard.allowed_tools(["read_text_file", "some_unmapped_tool"]) == ["read_text_file"]
    for bad in ({}, {"lease": lease}, {"lease": lease, "server": "a.b"}, {"agentfile_text": "AGENT a\n"}):
        with pytest.raises(leasekit.InvalidRequest):
            McpGuard(**bad)


def test_the_governor_charges_every_allowed_call_and_its_denial_is_the_tool_error(world):
    from test_mcp_guard import POLICY, Daemon

    d = Daemon(POLICY)
    try:
        async def body(g):
            reads = [await g.call_tool("read_text_file", {"path": str(world["data"] / "a.txt")}) for _ in range(4)]
            write = await g.call_tool("write_file", {"path": str(world["data"] / "out" / "w.txt"), "content": "x"})
            return reads, write

        run = functools.partial(with_guarded, governor={"socket": d.socket, "actor": "lib-test"})
        reads, write = anyio.run(run, world, body)
    finally:
        d.stop()
    ok = [r for r in reads if not r.is_error]
    denied = [r for r in reads if r.is_error]
    assert len(ok) == 3, [text_of(r) for r in reads]
    assert len(denied) == 1 and denied[0].meta["leasekit"]["retryAfterMs"] > 0
    assert write.is_error and "approval" in text_of(write)
    assert not (world["data"] / "out" / "w.txt").exists()
    assert server_saw(world).count('"read_text_file"') == 3


def test_an_approval_token_in_meta_lets_a_gated_call_through_and_never_reaches_the_server(world):
    from test_governor_chain import approval_token, chain, open_daemon, verify

    d = open_daemon()
    try:
        token = approval_token(d, "lib-test")
        target = world["data"] / "out" / "w.txt"

        async def body(g):
            held = await g.call_tool("write_file", {"path": str(target), "content": "x"})
            passed = await g.call_tool("write_file", {"path": str(target), "content": "x"},
                                       meta={"leasekit/approvalToken": token, "progressToken": 7})
            # Single use: the same token does not let a second write through.
            again = await g.call_tool("write_file", {"path": str(target), "content": "y"},
                                      meta={"leasekit/approvalToken": token})
            return held, passed, again

        run = functools.partial(with_guarded, governor={"socket": d.socket, "actor": "lib-test"})
        held, passed, again = anyio.run(run, world, body)
        records = chain(d)
        verify(d)
    finally:
        d.stop()
    assert held.is_error and "approval" in text_of(held), text_of(held)
    assert not passed.is_error, text_of(passed)
    assert again.is_error and "approval" in text_of(again), text_of(again)
    assert target.read_text() == "x"
    saw = server_saw(world)
    assert saw.count('"write_file"') == 1
    # The rest of the call's meta reaches the server; the token never does.
    assert '"progressToken":7' in saw.replace(" ", ""), saw
    for place, text in [("the server's stdin", saw), ("the local audit chain", world["audit"].read_text()),
                        ("the governor's chain", json.dumps(records))]:
        assert token not in text, f"the approval token is in {place}"
