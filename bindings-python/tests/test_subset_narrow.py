"""Subset (delegation) and narrowing through Python."""

from __future__ import annotations

from datetime import datetime, timedelta
from decimal import Decimal

import pytest

import leasekit as lk


@pytest.mark.parametrize(
    "child,parent,expected",
    [
        ({"model.use": ["gpt-4o-mini"]}, {"model.use": ["gpt-4*"]}, True),
        ({"fs.read": ["/a/**"]}, {"fs.read": ["/a/*"]}, False),
        ({"fs.read": ["/x/**"]}, {"fs.read": ["/x", "/x/*", "/x/*/**"]}, True),
        ({"tool.call": ["a*c"]}, {"tool.call": ["a*b*c"]}, False),
        ({"fs.read": ["/a"]}, {"fs.write": ["/a"]}, False),
        ({"fs.read": ["/a"]}, {"fs.read": ["/a"]}, True),
    ],
)
def test_subset_patterns(child: dict, parent: dict, expected: bool) -> None:
    assert lk.is_lease_subset(child, parent) is expected


def test_subset_budgets() -> None:
    parent = {"cost.budget": ["USD:5"]}
    assert lk.is_lease_subset({"cost.budget": ["USD:5"]}, parent)
    assert not lk.is_lease_subset({"cost.budget": ["USD:5.01"]}, parent)
    assert not lk.is_lease_subset({"cost.budget": ["USD:2"]}, parent, parent_remaining={"USD": Decimal("1.5")})
    assert lk.is_lease_subset({"cost.budget": ["USD:1"]}, parent, parent_remaining={"USD": "1.5"})
    assert lk.is_lease_subset({"cost.budget": ["EUR:100"]}, parent)  # EUR is unlimited in the parent
    with pytest.raises(lk.InvalidRequest):
        lk.is_lease_subset({}, parent, parent_remaining={"USD": 1.5})  # type: ignore[dict-item]


def test_parent_remaining_follows_the_one_wire_rule() -> None:
    """Caller-given amounts: signed, at most 9 fraction digits (core's leasekit::wire::Amounts)."""
    parent = {"cost.budget": ["USD:5"]}
    guard = lk.LeaseGuard(parent)
    guard.record_metric("cost.llm", "7.25", "USD")  # overspend: remaining is negative
    remaining = guard.remaining()
    assert remaining == {"USD": Decimal("-2.25")}
    assert not lk.is_lease_subset({"cost.budget": ["USD:0"]}, parent, parent_remaining=remaining)
    assert lk.is_lease_subset({}, parent, parent_remaining={"USD": "-1"})
    assert lk.is_lease_subset({"cost.budget": ["USD:1"]}, parent, parent_remaining={"USD": "1.000000000"})
    for bad in ("1.0000000000", "1e3", "+1", "", "1" * 28):
        with pytest.raises(lk.InvalidRequest):
            lk.is_lease_subset({}, parent, parent_remaining={"USD": bad})
    with pytest.raises(lk.InvalidRequest):
        lk.check_budget_remaining({"USD": "0.0000000001"})
    with pytest.raises(lk.BudgetExhausted):
        lk.check_budget_remaining(remaining)


def test_guard_options_follow_the_wire_shape() -> None:
    for kwargs in ({"grace_millis": -1}, {"grace_millis": 1.5}, {"grace_millis": "5"}, {"allow_any_model": 1}):
        with pytest.raises(lk.InvalidRequest):
            lk.LeaseGuard({}, **kwargs)  # type: ignore[arg-type]
    assert lk.LeaseGuard({}, grace_millis=5, allow_any_model=True).authorize_model("any") == "any"


def test_subset_expiry(t0: datetime) -> None:
    later = t0 + timedelta(hours=1)
    lease = {"fs.read": ["/a"]}
    assert lk.is_lease_subset(lease, lease, child_constraints={"expires_at": t0}, parent_constraints={"expires_at": later})
    assert not lk.is_lease_subset(lease, lease, child_constraints={"expires_at": later}, parent_constraints={"expires_at": t0})
    assert lk.is_lease_subset(lease, lease, parent_constraints=lk.LeaseConstraints(t0))


def test_subset_invalid_input_raises() -> None:
    with pytest.raises(lk.InvalidRequest):
        lk.is_lease_subset({"bogus": ["x"]}, {"fs.read": ["/a"]})
    with pytest.raises(lk.InvalidRequest):
        lk.is_lease_subset({"fs.read": ["/a"]}, {"fs.read": ["/a"]}, child_constraints={"expires_at": "tomorrow"})


def test_check_lease_subset_passes_silently() -> None:
    assert lk.check_lease_subset({"fs.read": ["/a/b"]}, {"fs.read": ["/a/*"]}) is None


def test_narrow_lease() -> None:
    n = lk.narrow_lease(
        {"fs.read": ["/data/**"], "net.fetch": ["https://x.com/**"], "cost.budget": ["USD:10"]},
        {"fs.read": ["/data/public/**"], "cost.budget": ["USD:3"]},
    )
    assert isinstance(n.lease, lk.Lease)
    d = n.lease.to_dict()
    assert set(d) == {"fs.read", "cost.budget"}
    assert d["fs.read"] == ["/data/public/**"]
    assert n.lease.budget == {"USD": Decimal(3)}
    assert all(isinstance(r, dict) and "capability" in r for r in n.reductions)
    assert {r["capability"] for r in n.reductions} >= {"net.fetch", "fs.read"}
    assert lk.is_lease_subset(n.lease, {"fs.read": ["/data/public/**"], "cost.budget": ["USD:3"]})
    assert "Narrowed(" in repr(n)


def test_parent_remaining_may_be_negative_after_overspend() -> None:
    parent = {"cost.budget": ["USD:5"]}
    assert not lk.is_lease_subset({"cost.budget": ["USD:0.01"]}, parent, parent_remaining={"USD": "-0.5"})
    assert lk.is_lease_subset({"fs.read": []}, {"fs.read": [], **parent}, parent_remaining={"USD": Decimal("-0.5")})
    with pytest.raises(lk.InvalidRequest):
        lk.is_lease_subset({}, parent, parent_remaining={"USD": "lots"})
