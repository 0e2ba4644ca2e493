"""leasekit.GovernorClient against a real ``leasekit serve`` (started by the ``daemon`` fixture,
stopped with SIGTERM after each test): the typed methods shared with ``Governor``, the strict
call, the wire envelope, refusals, options, the local fallback of an unreachable daemon, the
interpreter lock released during calls, and threads sharing one client."""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from pathlib import Path

import pytest

import leasekit as lk
from leasekit.governor import GovernorMethods


def test_acquire_release_metrics(daemon) -> None:
    with daemon.client() as gov:
        assert gov.socket == daemon.socket
        grant = gov.acquire(actor_id="alice", workspace_id="ws1", estimated_cost_cents=5)
        assert grant["granted"] is True
        assert grant["leaseId"] and not grant["leaseId"].startswith("local-")
        assert grant["degradedMode"] is False
        assert gov.status()["activeLeases"] == 1
        receipt = gov.release({"leaseId": grant["leaseId"]}, actual_cost_cents=3)
        assert receipt["classification"] == "recorded"
        metrics = gov.metrics()
        assert (metrics["activeLeases"], metrics["spendTodayCents"]) == (0, 3)
        # Same uid as the daemon: an admin, so the audit is readable.
        assert gov.verify_audit()["ok"] is True
        events = [r["eventType"] for r in gov.export_audit(from_line=1)["records"]]
        assert events[-2:] == ["lease_acquired", "lease_released"]
        assert gov.call("GetMetrics")["spendTodayCents"] == 3


def test_a_second_client_sees_the_same_daemon(daemon) -> None:
    a, b = daemon.client(), daemon.client()
    grant = a.acquire(actor_id="alice", estimated_cost_cents=1)
    assert b.metrics()["activeLeases"] == 1
    b.release(lease_id=grant["leaseId"], actual_cost_cents=1)
    assert a.metrics()["activeLeases"] == 0
    a.close()
    b.close()


def test_strict_calls_refuse_before_sending(daemon) -> None:
    gov = daemon.client()
    with pytest.raises(lk.InvalidRequest) as e:
        gov.acquire(actor_id="alice", estimated_cost=5)  # misspelt: estimated_cost_cents
    assert "estimatedCost" in e.value.message
    with pytest.raises(lk.InvalidRequest):
        gov.call("Frobnicate")
    with pytest.raises(lk.InvalidRequest):
        gov.acquire(estimated_cost_cents=-1)
    with pytest.raises(lk.InvalidRequest):
        gov.call("Acquire", {"actorId": "\ud800"})  # lone surrogate
    assert gov.metrics()["activeLeases"] == 0  # nothing was counted


def test_wire_envelope(daemon) -> None:
    gov = daemon.client()
    env = json.loads(gov.handle("GetStatus", "{}"))
    assert env["success"] is True and json.loads(env["payloadJson"])["healthy"] is True
    # Unknown fields are ignored by the wire dispatcher, as the protocol does ...
    env = json.loads(gov.handle("Acquire", json.dumps({"actorId": "a", "estimatedCost": 5})))
    assert env["success"] is True and json.loads(env["payloadJson"])["granted"] is True
    # ... and a refused command is an envelope, not an exception.
    env = json.loads(gov.handle("Frobnicate", "{}"))
    assert env["success"] is False and env["error"] == "unknown_command"


def test_the_method_table_is_shared_with_the_embedded_governor() -> None:
    embedded_only = {"open", "handle_frame", "set_time", "advance_time", "time"}
    gov_methods = {n for n in dir(lk.Governor) if not n.startswith("_")}
    client_methods = {n for n in dir(lk.GovernorClient) if not n.startswith("_")}
    assert gov_methods - embedded_only <= client_methods
    assert client_methods - gov_methods == {"connect", "socket"}
    for name in vars(GovernorMethods):
        if not name.startswith("_"):
            assert getattr(lk.Governor, name) is getattr(lk.GovernorClient, name), name
    # One typed method per governor command (conformance/governor-commands.json), plus the wire
    # dispatcher `handle` and the strict `call`.
    commands = json.loads(
        (Path(__file__).resolve().parents[2] / "conformance" / "governor-commands.json").read_text()
    )["commands"]
    typed = {n for n in vars(GovernorMethods) if not n.startswith("_")}
    assert typed == {c["snake"] for c in commands} | {"handle", "call"}


def test_same_answers_as_the_embedded_governor(daemon) -> None:
    policy = {"maxInFlight": 64, "dailyBudgetCents": 1_000_000, "maxRequestsPerMinute": 100_000}
    with lk.Governor.open("memory", policy) as emb, daemon.client() as cli:
        answers = []
        for gov in (emb, cli):
            g = gov.acquire(actor_id="x", workspace_id="w", estimated_cost_cents=2, max_output_tokens=64)
            r = gov.release(lease_id=g["leaseId"], actual_cost_cents=2)
            assert (g["granted"], r["classification"]) == (True, "recorded")
            answers.append((sorted(g), sorted(r), gov.list_pending_approvals()))
        assert answers[0] == answers[1]  # the same shapes, field for field
        assert emb.metrics()["spendTodayCents"] == cli.metrics()["spendTodayCents"] == 2


def test_connect_refusals(daemon, monkeypatch) -> None:
    for kwargs in ({"fallback": "sometimes"}, {"fallback": None}, {"timeout": 0}, {"timeout": -1},
                   {"timeout": float("nan")}, {"timeout": True}, {"timeout": "5"}, {"timeout": 86_400_001}):
        with pytest.raises(lk.InvalidRequest):
            lk.GovernorClient.connect(daemon.socket, **kwargs)
    with pytest.raises(TypeError):
        lk.GovernorClient.connect(daemon.socket, 5.0)  # timeout is keyword-only
    import pathlib

    by_path = lk.GovernorClient.connect(pathlib.Path(daemon.socket), fallback="off")
    assert by_path.socket == daemon.socket and by_path.status()["healthy"] is True
    monkeypatch.setenv("LEASEKIT_SOCKET", daemon.socket)
    gov = lk.GovernorClient.connect(fallback="off")
    assert gov.socket == daemon.socket
    assert gov.status()["healthy"] is True
    gov.close()
    assert gov.closed
    with pytest.raises(lk.InvalidRequest):
        gov.status()
    assert "closed" in repr(gov)


def test_unreachable_daemon(tmp_path) -> None:
    absent = str(tmp_path / "absent.sock")
    off = lk.GovernorClient.connect(absent, fallback="off", timeout=2)
    with pytest.raises(lk.InternalError) as e:
        off.acquire(actor_id="a")
    assert e.value.details.get("reason") == "daemon_unreachable"
    env = json.loads(off.handle("GetStatus", "{}"))
    assert env["success"] is False

    prod = lk.GovernorClient.connect(absent)  # fallback "prod" by default
    grant = prod.acquire(actor_id="a", max_output_tokens=100)
    assert grant["granted"] is True and grant["degradedMode"] is True
    assert grant["leaseId"].startswith("local-")
    assert prod.release(lease_id=grant["leaseId"], actual_cost_cents=1)["recommendation"] == "local fallback release recorded"
    denial = prod.acquire(actor_id="a", requested_capabilities=["exec"])
    assert (denial["granted"], denial["deniedReason"]) == (False, "service_unavailable_prod_deny_risky")
    assert prod.acquire(actor_id="a", max_output_tokens=129)["deniedReason"] == "service_unavailable_prod_cap"
    with pytest.raises(lk.InternalError):
        prod.metrics()  # only Acquire falls back

    dev = lk.GovernorClient.connect(absent, fallback="dev")
    assert dev.acquire(actor_id="a", max_output_tokens=256)["granted"] is True
    assert dev.acquire(actor_id="a", max_output_tokens=257)["deniedReason"] == "service_unavailable_dev_cap"


def test_calls_release_the_interpreter_lock(daemon) -> None:
    """A call blocked on a stopped daemon (SIGSTOP) must let other Python threads run; it ends
    with an error at its timeout, and the client works again once the daemon continues."""
    gov = daemon.client(timeout=3.0)
    assert gov.status()["healthy"] is True
    pid = daemon.proc.pid
    errors = []

    def blocked() -> None:
        try:
            gov.status()
        except lk.LeaseError as e:
            errors.append(e)

    os.kill(pid, signal.SIGSTOP)
    try:
        t = threading.Thread(target=blocked)
        t.start()
        # Were the lock held during the call, this thread would resume only after the call
        # ended (3 s), so the call could not still be running at the end of this window.
        time.sleep(0.2)
        start, ticks = time.monotonic(), 0
        while time.monotonic() - start < 0.5:
            ticks += 1
        still_blocked = t.is_alive()
        t.join(timeout=30)
        assert still_blocked and ticks > 1000
        assert len(errors) == 1
    finally:
        os.kill(pid, signal.SIGCONT)
    assert daemon.client().status()["healthy"] is True


def test_threads_share_one_client(daemon) -> None:
    gov = daemon.client()
    threads, pairs = 8, 25
    failures = []

    def work() -> None:
        try:
            for _ in range(pairs):
                g = gov.acquire(actor_id="t", workspace_id="w", estimated_cost_cents=2)
                assert g["granted"], g
                gov.release(lease_id=g["leaseId"], actual_cost_cents=1)
        except BaseException as e:  # reported below
            failures.append(e)

    ts = [threading.Thread(target=work) for _ in range(threads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert failures == []
    m = gov.metrics()
    assert (m["activeLeases"], m["spendTodayCents"]) == (0, threads * pairs)


def test_every_public_member_is_documented() -> None:
    for name in dir(lk.GovernorClient):
        if not name.startswith("_"):
            assert getattr(lk.GovernorClient, name).__doc__, name
    assert lk.GovernorClient.__doc__ and lk.lint_lease.__doc__


def test_admin_commands_from_a_non_admin_uid_are_permission_denied() -> None:
    """A daemon whose only admin is another uid: this process may acquire and release, but an
    admin command is refused with PermissionDenied (the daemon's answer, not a fallback)."""
    from _daemon import ROOMY_POLICY, Daemon

    other = str(os.getuid() + 4242)
    with Daemon(["--store", "memory", "--admin-uid", other], policy=ROOMY_POLICY) as d:
        d.start()
        gov = d.client(fallback="prod")
        g = gov.acquire(actor_id="a", estimated_cost_cents=1)
        assert g["granted"] and not g["leaseId"].startswith("local-")
        gov.release(lease_id=g["leaseId"], actual_cost_cents=1)
        for call in (lambda: gov.export_audit(from_line=1), lambda: gov.activate_policy(version="v9"),
                     lambda: gov.grant_approval(approval_id="approval-1", granted_by="me")):
            with pytest.raises(lk.PermissionDenied) as e:
                call()
            assert e.value.details.get("reason") == "daemon_error"
        env = json.loads(gov.handle("ExportAudit", "{}"))
        assert env["success"] is False and env["error"].startswith("permission_denied")
        gov.close()
        d.stop()
