"""leasekit.Governor: open on memory and SQLite, typed snake_case methods, the strict call and the
lenient wire dispatcher, frames, the manual clock, refusals, restart and threads."""

from __future__ import annotations

import inspect
import json
import struct
import threading
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Iterator

import pytest

import leasekit as lk

START = datetime(2026, 1, 1, tzinfo=timezone.utc)
TEST = {"manualClock": START, "ids": "deterministic"}


@pytest.fixture
def gov() -> Iterator[lk.Governor]:
    with lk.Governor.open("memory", {"maxInFlight": 1, "leaseTtlMs": 1000}, TEST) as g:
        yield g


def test_acquire_release_metrics(gov: lk.Governor) -> None:
    grant = gov.acquire(actor_id="alice", workspace_id="ws1", estimated_cost_cents=5)
    assert grant["granted"] is True
    assert grant["leaseId"] == "lease-1"
    assert grant["expiresAtUtc"] == "2026-01-01T00:00:01.000Z"
    denial = gov.acquire({"actorId": "alice", "workspaceId": "ws1"})
    assert denial["granted"] is False
    assert denial["deniedReason"] == "concurrency_limit_reached"
    receipt = gov.release(lease_id="lease-1", actual_cost_cents=3)
    assert receipt["classification"] == "recorded"
    metrics = gov.metrics()
    assert metrics["spendTodayCents"] == 3
    assert metrics["activeLeases"] == 0
    assert gov.status()["durableStateEnabled"] is False
    assert gov.verify_audit()["ok"] is True
    events = [r["eventType"] for r in gov.export_audit(from_line=1)["records"]]
    assert events[-3:] == ["lease_acquired", "lease_denied", "lease_released"]


def test_mapping_and_keywords_combine(gov: lk.Governor) -> None:
    grant = gov.acquire({"actorId": "alice"}, workspace_id="ws1", estimated_cost_cents=2)
    assert grant["granted"] is True
    assert gov.call("GetMetrics")["activeLeases"] == 1


def test_unknown_fields_are_refused_by_typed_calls_only(gov: lk.Governor) -> None:
    with pytest.raises(lk.InvalidRequest) as e:
        gov.acquire(actor_id="alice", estimated_cost=5)  # misspelt: estimated_cost_cents
    assert e.value.code == "INVALID_REQUEST"
    assert "estimatedCost" in e.value.message
    with pytest.raises(lk.InvalidRequest):
        gov.call("Frobnicate")
    with pytest.raises(lk.InvalidRequest):
        gov.acquire(estimated_cost_cents=-1)
    with pytest.raises(lk.InvalidRequest):
        gov.acquire(intent_class="poetry")
    env = json.loads(gov.handle("Acquire", json.dumps({"actorId": "a", "estimatedCost": 5})))
    assert env["success"] is True
    env = json.loads(gov.handle("Frobnicate", "{}"))
    assert env == {"protocolVersion": "0.1", "success": False, "payloadJson": "", "error": "unknown_command"}
    assert json.loads(gov.handle("Acquire", "hello"))["success"] is False


def test_open_refusals() -> None:
    with pytest.raises(lk.InvalidRequest):
        lk.Governor.open("", {})
    # A PostgreSQL URL is a store (a fleet); an unreachable server is a retryable error.
    with pytest.raises(lk.InternalError) as err:
        lk.Governor.open("postgres://u@%2Fnonexistent-leasekit-dir/db", {})
    assert err.value.retryable
    with pytest.raises(lk.InvalidRequest):
        lk.Governor.open("memory", "{not json")
    with pytest.raises(lk.InvalidRequest):
        lk.Governor.open("memory", {}, {"ids": "sequential"})
    with pytest.raises(lk.InvalidRequest):
        lk.Governor.open("memory", {}, {"maxInFlight": -1})
    with pytest.raises(lk.InvalidRequest):
        lk.Governor.open("memory", {}, {"manualClock": datetime(2026, 1, 1)})  # naive
    with pytest.raises(lk.InvalidRequest):
        lk.Governor.open("memory", {"maxInFlight": 1.5})


def test_manual_clock(gov: lk.Governor) -> None:
    gov.acquire(actor_id="a", workspace_id="w")
    gov.advance_time(1500)
    assert gov.time() == START + timedelta(milliseconds=1500)
    assert gov.release(lease_id="lease-1")["classification"] == "leaseExpired"
    gov.set_time("2026-02-01T00:00:00Z")
    assert gov.time() == datetime(2026, 2, 1, tzinfo=timezone.utc)
    with lk.Governor.open("memory") as system:
        with pytest.raises(lk.InvalidRequest):
            system.advance_time(1)
        assert system.acquire(actor_id="a", workspace_id="w")["granted"] is True


def test_sqlite_restart_keeps_the_grant(tmp_path: Path) -> None:
    path = tmp_path / "gov.db"
    policy = {"maxInFlight": 1}
    with lk.Governor.open(path, policy, TEST) as g:
        assert g.acquire(actor_id="a", workspace_id="w")["leaseId"] == "lease-1"
    with lk.Governor.open(f"sqlite:{path}", policy, TEST) as g:
        assert g.status()["durableStateEnabled"] is True
        assert g.acquire(actor_id="a", workspace_id="w")["deniedReason"] == "concurrency_limit_reached"
        assert g.release(lease_id="lease-1", actual_cost_cents=2)["classification"] == "recorded"
        assert g.verify_audit()["ok"] is True


def test_closed_governor_refuses(gov: lk.Governor) -> None:
    gov.close()
    assert gov.closed
    with pytest.raises(lk.InvalidRequest):
        gov.metrics()
    gov.close()  # idempotent


def _frame(body: bytes) -> bytes:
    return struct.pack("<i", len(body)) + body


def test_frames(gov: lk.Governor) -> None:
    frame = _frame(b'{"protocolVersion":"0.1","command":"GetMetrics","payloadJson":"{}"}')
    assert lk.decode_frame(frame)["command"] == "GetMetrics"
    for bad in [b"", frame[:-1], struct.pack("<i", 0), struct.pack("<i", 16 * 1024 * 1024 + 1)]:
        with pytest.raises(lk.InvalidRequest):
            lk.decode_frame(bad)
    answer = gov.handle_frame(frame)
    (length,) = struct.unpack("<i", answer[:4])
    assert length == len(answer) - 4
    assert json.loads(answer[4:])["success"] is True
    assert json.loads(gov.handle_frame(b"\x00\x00\x00\x00")[4:])["success"] is False


def test_threads_add_up() -> None:
    policy = {"maxInFlight": 64, "dailyBudgetCents": 100000, "maxRequestsPerMinute": 100000}
    threads, pairs = 8, 50
    with lk.Governor.open("memory", policy, TEST) as g:

        def work() -> None:
            for _ in range(pairs):
                lease = g.acquire(actor_id="t", workspace_id="w", estimated_cost_cents=1)
                assert lease["granted"], lease
                g.release(lease_id=lease["leaseId"], actual_cost_cents=1)

        ts = [threading.Thread(target=work) for _ in range(threads)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        m = g.metrics()
        assert m["spendTodayCents"] == threads * pairs
        assert m["activeLeases"] == 0


def test_every_public_method_is_documented() -> None:
    for name, member in inspect.getmembers(lk.Governor):
        if not name.startswith("_"):
            assert member.__doc__, name
    assert lk.decode_frame.__doc__
