"""The socket mode of the conformance runner: the ``governor`` vectors replayed through a real
``leasekit serve`` process via ``leasekit.GovernorClient.handle``, one daemon per vector, as
cli/tests/daemon_vectors.rs does in Rust. Each daemon runs with the test-only
``--clock manual:<start>`` (moved by the admin-only ``TestSetClock`` command) and
``--ids deterministic``; a ``{"restart": true}`` step is a real SIGTERM and restart on the same
state (the time moved by that step is where the new daemon's clock starts). Answers are
compared exactly as the embedded runner compares them (``_governor_ops.equal_governor``).

By default a fixed slice runs (every vector with a restart step, every SQLite vector and every
``SAMPLE_EVERY``-th of the rest, so ``make test`` stays fast); ``LEASEKIT_GOVERNOR_SOCKET_REPLAY=1``
replays every vector. ``LEASEKIT_VECTORS=<dir>`` points at another vector directory."""

from __future__ import annotations

import json
import os
import pathlib
from datetime import datetime, timedelta, timezone
from typing import Any, Dict, List

import pytest

import leasekit as lk
from _daemon import Daemon
from _governor_ops import equal_governor

REPO = pathlib.Path(__file__).resolve().parents[2]
SAMPLE_EVERY = 8
FULL = os.environ.get("LEASEKIT_GOVERNOR_SOCKET_REPLAY") == "1"
EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def _all_vectors() -> List[Any]:
    env = os.environ.get("LEASEKIT_VECTORS")
    path = (pathlib.Path(env) if env else REPO / "conformance" / "vectors") / "governor.json"
    return json.loads(path.read_text(encoding="utf-8"))["vectors"] if path.exists() else []


def _has_restart(v: Any) -> bool:
    return any("restart" in s for s in v["input"]["steps"])


REVIEWS = {"ReviewApproval", "GrantApproval", "DenyApproval"}


def _reviews(v: Any) -> bool:
    """True when the vector reviews an approval: over one socket every command comes from one
    peer uid, and a uid may not review an approval it requested (SEMANTICS 13.16), so these
    replay with several uids in cli/tests/daemon_vectors.rs instead."""
    return any(s.get("command") in REVIEWS for s in v["input"]["steps"])


def _chosen(i: int, v: Any) -> bool:
    return FULL or i % SAMPLE_EVERY == 0 or v["input"].get("store") == "sqlite" or _has_restart(v)


def _vectors() -> List[Any]:
    params = [pytest.param(v, id=str(v.get("id", i))) for i, v in enumerate(_all_vectors()) if _chosen(i, v)]
    return params or [pytest.param(None, id="no-governor-vectors")]


def _ms(text: str) -> int:
    return (lk.parse_expires_at(text) - EPOCH) // timedelta(milliseconds=1)


def _fmt(ms: int) -> str:
    t = EPOCH + timedelta(milliseconds=ms)
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


def _clock(ms: int) -> List[str]:
    return ["--clock", f"manual:{_fmt(ms)}"]


def replay(inp: Dict[str, Any]) -> List[Any]:
    """Runs one vector's steps through a daemon; the answers in the embedded runner's form."""
    store = inp.get("store", "memory")
    assert store in ("memory", "sqlite"), f"unknown store {store!r}"
    d = Daemon(["--ids", "deterministic", "--store", store], policy=inp.get("policy", {}), options=inp.get("options"))
    out: List[Any] = []
    try:
        now = _ms(inp["start"])
        d.start(_clock(now))
        gov = d.client()
        for step in inp["steps"]:
            at = step.get("at")
            if at is not None:
                t = now + int(at[1:]) if isinstance(at, str) and at.startswith("+") else _ms(at)
                if t != now and not step.get("restart"):
                    env = json.loads(gov.handle("TestSetClock", json.dumps({"now": _fmt(t)})))
                    assert env["success"], f"TestSetClock failed: {env['error']}"
                now = t
            if step.get("restart"):
                assert store == "sqlite", "restart needs store sqlite"
                gov.close()
                d.stop()
                d.start(_clock(now))
                gov = d.client()
                out.append("ok")
                continue
            if step.get("verify_audit"):
                command, text = "VerifyAudit", "{}"
            else:
                payload = step.get("payload", {})
                command, text = step["command"], payload if isinstance(payload, str) else json.dumps(payload)
            env = json.loads(gov.handle(command, text))
            if env["success"]:
                out.append(json.loads(env["payloadJson"]))
            else:
                out.append({"success": False, "error": env["error"]})
        gov.close()
        d.stop()
    finally:
        d.remove()
    return out


@pytest.mark.parametrize("vector", _vectors())
def test_governor_vector_over_the_socket(vector: Any) -> None:
    assert vector is not None, "no governor vectors to replay"
    assert vector["op"] == "governor", vector["op"]
    if "uidBindings" in (vector["input"].get("policy") or {}) or len(vector["input"]["steps"]) > 2000:
        pytest.skip("holds only for an in-process caller (uidBindings) or runs thousands of commands; "
                    "the embedded runner covers it")
    if _reviews(vector):
        pytest.skip("reviews an approval: one peer uid may not review its own request (13.16); "
                    "cli/tests/daemon_vectors.rs replays it with several uids")
    got = replay(vector["input"])
    assert equal_governor(got, vector["expect"]), f"got {got!r}, expected {vector['expect']!r}"


def test_the_default_slice_is_a_real_share_of_the_vectors() -> None:
    """The fast default must still be a spread of the vectors (at least one in SAMPLE_EVERY) and,
    on the repository's vectors, at least 60 of them including the restart ones."""
    vectors = _all_vectors()
    chosen = [v for i, v in enumerate(vectors) if _chosen(i, v)]
    assert len(chosen) >= len(vectors) // SAMPLE_EVERY
    if not os.environ.get("LEASEKIT_VECTORS"):
        assert len(chosen) >= 60 and any(_has_restart(v) for v in chosen)
