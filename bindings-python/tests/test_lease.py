"""The Lease class and lease-shape validation from dicts, JSON strings and Lease objects."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest

import leasekit as lk

LEASE = {
    "net.fetch": ["HTTPS://API.example.com:443"],
    "fs.read": ["/data/**"],
    "cost.budget": ["USD:2.50", "USD:0.50", "EUR:1"],
}


def test_from_dict_json_and_lease_agree() -> None:
    a = lk.Lease(LEASE)
    b = lk.Lease(json.dumps(LEASE))
    c = lk.Lease.from_json(json.dumps(LEASE))
    d = lk.Lease(a)
    e = lk.Lease.from_dict(LEASE)
    assert a == b == c == d == e
    assert a != lk.Lease({"fs.read": ["/data/**"]})
    assert a != "not a lease"


def test_patterns_are_stored_canonically() -> None:
    lease = lk.Lease(LEASE)
    assert lease.patterns("net.fetch") == ["https://api.example.com/"]
    assert lease.patterns("tool.call") is None
    assert "fs.read" in lease and "tool.call" not in lease
    assert set(lease.capabilities()) == set(LEASE)
    assert lease.to_dict()["net.fetch"] == ["https://api.example.com/"]
    assert lk.Lease(lease.to_json()) == lease
    assert repr(lease).startswith("Lease(")


def test_budget_sums_exactly() -> None:
    assert lk.Lease(LEASE).budget == {"USD": Decimal("3"), "EUR": Decimal("1")}
    assert lk.initial_budget(LEASE) == {"USD": Decimal("3"), "EUR": Decimal("1")}


@pytest.mark.parametrize(
    "bad",
    [
        {"acme.foo": ["x"]},
        {"fs.read": "/a"},
        {"fs.read": [1]},
        {"fs.read": [""]},
        {"fs.read": ["relative/*"]},
        {"tool.call": ["a\nb"]},
        {"cost.budget": ["USD:-1"]},
        {"cost.budget": ["USD:1e3"]},
        {"fs.read": ["/a/***"]},
        {"fs.read": ["/x"] * 1025},
        {1: ["a"]},
        ["fs.read"],
        None,
    ],
)
def test_bad_shapes_raise_invalid_request(bad: object) -> None:
    with pytest.raises(lk.InvalidRequest):
        lk.Lease(bad)  # type: ignore[arg-type]
    with pytest.raises(lk.InvalidRequest):
        lk.validate_lease_shape(bad)  # type: ignore[arg-type]


def test_json_errors() -> None:
    with pytest.raises(lk.InvalidRequest):
        lk.Lease("{not json")
    with pytest.raises(lk.InvalidRequest):
        lk.Lease('{"fs.read": ["/a"], "fs.read": ["/b"]}')


def test_empty_list_is_allowed_and_grants_nothing() -> None:
    guard = lk.LeaseGuard({"fs.read": []})
    with pytest.raises(lk.PermissionDenied):
        guard.authorize("fs.read", "/a")


def test_validate_lease_shape_accepts_valid() -> None:
    assert lk.validate_lease_shape(LEASE) is None
    assert lk.validate_lease_shape(json.dumps(LEASE)) is None
    assert lk.validate_lease_shape(lk.Lease(LEASE)) is None


def test_unsupported_types_in_lease_data() -> None:
    with pytest.raises(lk.InvalidRequest):
        lk.Lease({"fs.read": [object()]})
