"""LeaseGuard through Python: authorization order, spend metrics, reservations, delegation,
clocks (ManualClock and plain callables) and the context manager."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from decimal import Decimal

import pytest

import leasekit as lk

LEASE = {
    "net.fetch": ["https://api.example.com/**"],
    "tool.call": ["web.*"],
    "model.use": ["gpt-4*"],
    "cost.budget": ["USD:1.00"],
}


def test_authorize_returns_the_canonical_target() -> None:
    g = lk.LeaseGuard(LEASE)
    assert g.authorize("net.fetch", "HTTPS://API.example.com:443/v1/../v2") == "https://api.example.com/v2"
    assert g.authorize("tool.call", "web.search") == "web.search"
    assert g.authorize_model("gpt-4o") == "gpt-4o"


def test_authorize_hands_back_the_same_object_when_already_canonical() -> None:
    g = lk.LeaseGuard({"fs.read": ["/data/**"], "tool.call": ["web.*"]})
    target = "/data/" + "reports/q3.csv"  # built at run time: not an interned constant
    assert g.authorize("fs.read", target) is target
    messy = "/data/./reports//q3.csv"
    out = g.authorize("fs.read", messy)
    assert out == "/data/reports/q3.csv" and out is not messy
    name = "web." + "search"
    assert g.authorize("tool.call", name) is name


def test_long_targets_are_checked_with_the_gil_released() -> None:
    # Past 4096 bytes the binding releases the interpreter lock; the answer is the same.
    g = lk.LeaseGuard({"fs.read": ["/data/**"]})
    long = "/data/" + "x" * 10_000
    assert g.authorize("fs.read", long) is long
    assert g.authorize("fs.read", "/data/./" + "y/" * 5_000 + "z") == "/data/" + "y/" * 5_000 + "z"
    with pytest.raises(lk.PermissionDenied):
        g.authorize("fs.read", "/other/" + "x" * 10_000)


def test_lone_surrogates_are_invalid_requests() -> None:
    g = lk.LeaseGuard({"fs.read": ["/data/**"]})
    with pytest.raises(lk.InvalidRequest):
        g.authorize("fs.read", "/data/\ud800")
    with pytest.raises(TypeError):
        g.authorize("fs.read", 5)  # type: ignore[arg-type]


def test_denials_have_their_codes() -> None:
    g = lk.LeaseGuard(LEASE)
    with pytest.raises(lk.PermissionDenied):
        g.authorize("net.fetch", "https://evil.example/")
    with pytest.raises(lk.PermissionDenied):
        g.authorize("fs.read", "/etc/passwd")
    with pytest.raises(lk.InvalidRequest):
        g.authorize("net.fetch", "https://user@api.example.com/")
    with pytest.raises(lk.PermissionDenied):
        g.authorize_model("claude-3")


def test_allow_any_model_option() -> None:
    g = lk.LeaseGuard({"fs.read": ["/a"]}, allow_any_model=True)
    assert g.authorize_model("anything") == "anything"
    with pytest.raises(lk.PermissionDenied):
        lk.LeaseGuard({"fs.read": ["/a"]}).authorize_model("anything")


def test_spend_emits_remaining_and_exhausts() -> None:
    g = lk.LeaseGuard(LEASE)
    assert g.remaining() == {"USD": Decimal("1")}
    ms = g.record_metric("cost.llm", Decimal("0.30"), "USD")
    assert g.remaining() == {"USD": Decimal("0.70")}
    assert [m.to_dict() for m in ms] == [{"name": "cost.budget.remaining", "value": Decimal("0.7"), "unit": "USD"}]
    assert g.record_metric("tokens", "12", "tok") == []
    assert g.record_metric("cost.llm", "1", "EUR") == []
    g.record_metric("cost.llm", "0.70", "USD")
    with pytest.raises(lk.BudgetExhausted):
        g.authorize("tool.call", "web.search")
    with pytest.raises(lk.BudgetExhausted):
        g.authorize_model("gpt-4o")
    g.record_metric("cost.llm", "0.5", "USD")  # spend is always recorded
    assert g.remaining() == {"USD": Decimal("-0.5")}


def test_bad_metric_values() -> None:
    g = lk.LeaseGuard(LEASE)
    for bad in ("-1", "NaN", "1e3", "abc"):
        with pytest.raises(lk.InvalidRequest):
            g.record_metric("cost.llm", bad, "USD")
    with pytest.raises(lk.InvalidRequest):
        g.record_metric("cost.llm", 0.1, "USD")  # type: ignore[arg-type]
    assert g.remaining() == {"USD": Decimal("1")}


def test_reserve_is_all_or_nothing() -> None:
    g = lk.LeaseGuard(LEASE)
    g.reserve("USD", Decimal("0.60"))
    with pytest.raises(lk.BudgetExhausted):
        g.reserve("USD", "0.41")
    assert g.remaining() == {"USD": Decimal("0.4")}
    g.reserve("USD", "0.40")
    assert g.remaining() == {"USD": Decimal("0")}
    with pytest.raises(lk.InvalidRequest):
        g.reserve("EUR", "1")


def test_expiry_with_manual_clock(t0: datetime) -> None:
    clock = lk.ManualClock(t0)
    g = lk.LeaseGuard(LEASE, {"expires_at": t0 + timedelta(seconds=10)}, clock=clock)
    assert g.expires_at == t0 + timedelta(seconds=10)
    g.authorize("tool.call", "web.search")
    clock.set(t0 + timedelta(seconds=10))
    with pytest.raises(lk.LeaseExpired):
        g.authorize("tool.call", "web.search")
    # expiry is checked before budget and permission
    with pytest.raises(lk.LeaseExpired):
        g.authorize("fs.read", "/nope")


def test_grace_millis(t0: datetime) -> None:
    clock = lk.ManualClock(t0 + timedelta(seconds=10, milliseconds=500))
    g = lk.LeaseGuard(LEASE, {"expires_at": t0 + timedelta(seconds=10)}, clock=clock, grace_millis=1000)
    g.authorize("tool.call", "web.search")


def test_callable_clock(t0: datetime) -> None:
    now = [t0]
    g = lk.LeaseGuard(LEASE, lk.LeaseConstraints(t0 + timedelta(hours=1)), clock=lambda: now[0])
    g.authorize("tool.call", "web.search")
    now[0] = t0 + timedelta(hours=2)
    with pytest.raises(lk.LeaseExpired):
        g.authorize("tool.call", "web.search")


def test_bad_clocks(t0: datetime) -> None:
    with pytest.raises(lk.InvalidRequest):
        lk.LeaseGuard(LEASE, clock=42)  # type: ignore[arg-type]
    g = lk.LeaseGuard(LEASE, {"expires_at": t0}, clock=lambda: datetime(2026, 1, 1))
    with pytest.raises(lk.InvalidRequest):
        g.authorize("tool.call", "web.search")

    def boom() -> datetime:
        raise RuntimeError("clock broke")

    g = lk.LeaseGuard(LEASE, {"expires_at": t0}, clock=boom)
    with pytest.raises(lk.InternalError, match="clock broke"):
        g.authorize("tool.call", "web.search")


def test_delegate_reserves_and_close_returns(t0: datetime) -> None:
    parent = lk.LeaseGuard(LEASE)
    child = parent.delegate({"tool.call": ["web.search"], "cost.budget": ["USD:0.40"]})
    assert parent.remaining() == {"USD": Decimal("0.6")}
    child.record_metric("cost.llm", "0.10", "USD")
    assert child.remaining() == {"USD": Decimal("0.3")}
    child.close()
    assert child.closed
    assert parent.remaining() == {"USD": Decimal("0.9")}
    child.close()  # idempotent
    assert parent.remaining() == {"USD": Decimal("0.9")}


def test_delegate_rejects_wider_child() -> None:
    parent = lk.LeaseGuard(LEASE)
    with pytest.raises(lk.LeaseSubsetViolation) as info:
        parent.delegate({"tool.call": ["*"]})
    assert info.value.details["capability"] == "tool.call"
    with pytest.raises(lk.LeaseSubsetViolation):
        parent.delegate({"cost.budget": ["USD:2"]})


def test_context_manager_closes(t0: datetime) -> None:
    parent = lk.LeaseGuard(LEASE)
    with parent.delegate({"cost.budget": ["USD:0.5"]}) as child:
        assert isinstance(child, lk.LeaseGuard)
        assert parent.remaining() == {"USD": Decimal("0.5")}
    assert child.closed
    assert parent.remaining() == {"USD": Decimal("1")}


def test_guard_properties() -> None:
    g = lk.LeaseGuard(LEASE)
    assert g.lease == lk.Lease(LEASE)
    assert g.expires_at is None
    assert not g.closed
    assert "LeaseGuard(" in repr(g)
