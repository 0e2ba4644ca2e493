"""Plain data, the Python side: what leasekit reads from a caller's dict, list or tuple is
its own storage (what `dict.items(d)`, `len()` and `list.__getitem__` see), never what an
overridden `__iter__`, `items`, `keys` or `__getitem__` reports; amounts are exact `int`/`Decimal`/`str`, not
subclasses that could report another amount than their value."""

from __future__ import annotations

from decimal import Decimal
from typing import Any, Iterator

import pytest

import leasekit as lk


class LyingDict(dict):  # type: ignore[type-arg]
    """Reports an extra capability to every Python-level way of reading it."""

    def __iter__(self) -> Iterator[Any]:
        return iter([*super().keys(), "fs.read"])

    def keys(self) -> Any:  # type: ignore[override]
        return [*super().keys(), "fs.read"]

    def items(self) -> Any:  # type: ignore[override]
        return [*super().items(), ("fs.read", ["/**"])]

    def __getitem__(self, key: Any) -> Any:
        return ["/**"] if key == "fs.read" else super().__getitem__(key)


class LyingList(list):  # type: ignore[type-arg]
    def __iter__(self) -> Iterator[Any]:
        return iter(["/**"])


class LyingDecimal(Decimal):
    def __format__(self, spec: str) -> str:
        return "1000000"

    def __str__(self) -> str:
        return "1000000"


class LyingInt(int):
    def __str__(self) -> str:
        return "1000000"


def test_dict_subclass_is_read_from_its_storage() -> None:
    lease = LyingDict({"tool.call": ["web.*"]})
    assert dict(dict.items(lease)) == {"tool.call": ["web.*"]}  # the dict's own storage
    assert lk.Lease(lease).to_dict() == {"tool.call": ["web.*"]}
    guard = lk.LeaseGuard(lease)
    with pytest.raises(lk.PermissionDenied):
        guard.authorize("fs.read", "/etc/shadow")
    assert not lk.is_lease_subset({"fs.read": ["/x"]}, lease)


def test_list_subclass_is_read_from_its_storage() -> None:
    lease = {"fs.read": LyingList(["/data/**"])}
    assert lk.Lease(lease).to_dict() == {"fs.read": ["/data/**"]}
    with pytest.raises(lk.PermissionDenied):
        lk.LeaseGuard(lease).authorize("fs.read", "/etc/shadow")
    assert lk.sum_budget_entries(LyingList(["USD:1"])) == {"USD": Decimal("1")}


@pytest.mark.parametrize("amount", [LyingDecimal("1"), LyingInt(1)])
def test_amount_subclasses_are_refused(amount: Any) -> None:
    parent = {"cost.budget": ["USD:5"]}
    with pytest.raises(lk.InvalidRequest):
        lk.is_lease_subset({"cost.budget": ["USD:100"]}, parent, parent_remaining={"USD": amount})
    guard = lk.LeaseGuard(parent)
    with pytest.raises(lk.InvalidRequest):
        guard.reserve("USD", amount)
    with pytest.raises(lk.InvalidRequest):
        lk.parse_amount(amount)


def test_plain_amounts_still_work() -> None:
    parent = {"cost.budget": ["USD:5"]}
    assert lk.is_lease_subset({"cost.budget": ["USD:1"]}, parent, parent_remaining={"USD": Decimal("1")})
    with pytest.raises(lk.InvalidRequest):  # an amount map takes strings (or Decimal) only
        lk.is_lease_subset({"cost.budget": ["USD:1"]}, parent, parent_remaining={"USD": 1})
    assert lk.parse_amount(2) == Decimal("2")


def test_a_non_dict_mapping_is_refused() -> None:
    from types import MappingProxyType

    with pytest.raises(lk.InvalidRequest):
        lk.Lease(MappingProxyType({"tool.call": ["x"]}))  # type: ignore[arg-type]
