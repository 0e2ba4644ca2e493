"""Amount maps and subset options cross through core's wire layer (docs/semantics.md 6,
docs/decisions.md "Amount maps take strings only, in every language"): an amount-map value is a
``str`` or a ``decimal.Decimal`` (its exact text), never a JSON number; every value a guard
reports as remaining is accepted back; an unknown subset-option key reaches core, which refuses
it with ``InvalidRequest``."""

from __future__ import annotations

from decimal import Decimal
from typing import Any, Dict

import pytest

import leasekit as lk
from test_conformance import op_subset

PARENT = {"cost.budget": ["USD:5"]}


@pytest.mark.parametrize("amount", [1, 0, -1, 1.5, True, None, ["1"], {"amount": "1"}])
def test_a_non_string_amount_is_refused(amount: Any) -> None:
    with pytest.raises(lk.InvalidRequest):
        lk.is_lease_subset({"cost.budget": ["USD:1"]}, PARENT, parent_remaining={"USD": amount})
    with pytest.raises(lk.InvalidRequest):
        lk.check_lease_subset({"cost.budget": ["USD:1"]}, PARENT, parent_remaining={"USD": amount})
    with pytest.raises(lk.InvalidRequest):
        lk.check_budget_remaining({"USD": amount})


@pytest.mark.parametrize("remaining", [["USD:1"], "USD:1", ("USD", "1"), 5])
def test_an_amount_map_that_is_not_a_dict_is_refused(remaining: Any) -> None:
    with pytest.raises(lk.InvalidRequest):
        lk.is_lease_subset({}, PARENT, parent_remaining=remaining)
    with pytest.raises(lk.InvalidRequest):
        lk.check_budget_remaining(remaining)


@pytest.mark.parametrize("text", ["\u0661", "1\u0660", "\uff11", "\u0967.5"])
def test_digits_other_than_ascii_are_refused(text: str) -> None:
    """As a string: core's grammar refuses them (Python's own ``Decimal`` would accept them)."""
    with pytest.raises(lk.InvalidRequest):
        lk.is_lease_subset({}, PARENT, parent_remaining={"USD": text})
    with pytest.raises(lk.InvalidRequest):
        lk.check_budget_remaining({"USD": text})


def test_decimal_and_string_amounts_are_read_exactly() -> None:
    child = {"cost.budget": ["USD:1"]}
    assert lk.is_lease_subset(child, PARENT, parent_remaining={"USD": Decimal("1")})
    assert lk.is_lease_subset(child, PARENT, parent_remaining={"USD": "1.000000000"})
    assert not lk.is_lease_subset(child, PARENT, parent_remaining={"USD": Decimal("0.999999999")})
    assert lk.is_lease_subset(child, PARENT, parent_remaining={"USD": Decimal("1E+3")})
    for bad in (Decimal("NaN"), Decimal("Infinity"), Decimal("1.0000000000"), Decimal("1E-10")):
        with pytest.raises(lk.InvalidRequest):
            lk.is_lease_subset(child, PARENT, parent_remaining={"USD": bad})


def _overspent_guard() -> lk.LeaseGuard:
    """A guard whose counters reach every shape of remaining value: a large sum (more integer
    digits than an AMOUNT), nine fraction digits, and negative after an overspend."""
    lease = {
        "cost.budget": ["USD:999999999999999.999999999", "USD:999999999999999.999999999", "EUR:1", "GBP:3"],
        "tool.call": ["**"],
    }
    guard = lk.LeaseGuard(lease)
    guard.record_metric("cost.llm", "2.000000001", "EUR")  # EUR: -1.000000001
    guard.record_metric("cost.llm", "0.000000001", "GBP")  # GBP: 2.999999999
    return guard


def test_every_remaining_value_is_accepted_back() -> None:
    guard = _overspent_guard()
    remaining: Dict[str, Decimal] = guard.remaining()
    assert remaining == {
        "USD": Decimal("1999999999999999.999999998"),
        "EUR": Decimal("-1.000000001"),
        "GBP": Decimal("2.999999999"),
    }
    parent = guard.lease
    # Negative EUR: a child asking for EUR is refused; one asking for nothing is a subset.
    assert lk.is_lease_subset({"tool.call": ["x"]}, parent, parent_remaining=remaining)
    assert not lk.is_lease_subset({"cost.budget": ["EUR:0"]}, parent, parent_remaining=remaining)
    assert lk.is_lease_subset({"cost.budget": ["GBP:2.999999999"]}, parent, parent_remaining=remaining)
    assert not lk.is_lease_subset({"cost.budget": ["GBP:3"]}, parent, parent_remaining=remaining)
    with pytest.raises(lk.BudgetExhausted):
        lk.check_budget_remaining(remaining)
    # The same values as text (what another language would hand over) are read the same way.
    as_text = {k: format(v, "f") for k, v in remaining.items()}
    assert lk.is_lease_subset({"cost.budget": ["GBP:2.999999999"]}, parent, parent_remaining=as_text)
    with pytest.raises(lk.BudgetExhausted):
        lk.check_budget_remaining(as_text)
    positive = {k: v for k, v in remaining.items() if v > 0}
    lk.check_budget_remaining(positive)


def test_remaining_after_reserve_and_delegate_is_accepted_back() -> None:
    guard = lk.LeaseGuard({"cost.budget": ["USD:1"], "tool.call": ["**"]})
    guard.reserve("USD", "0.333333333")
    child = guard.delegate({"cost.budget": ["USD:0.5"], "tool.call": ["a"]})
    child.record_metric("cost.llm", "0.75", "USD")  # the child overspends its own counter
    for g in (guard, child):
        remaining = g.remaining()
        assert lk.is_lease_subset({"tool.call": ["a"]}, g.lease, parent_remaining=remaining)
    assert child.remaining() == {"USD": Decimal("-0.25")}


@pytest.mark.parametrize(
    "options",
    [
        {"parent_remainder": {"USD": "0.5"}},
        {"remaining": {"USD": "0.5"}},
        {"options": {}},
        {"strict": True},
        {"child_expires_at": "2030-01-01T00:00:00Z"},
        {"parent_remaining": {"USD": "5"}, "extra": None},
    ],
)
def test_an_unknown_option_key_is_refused_by_core(options: Dict[str, Any]) -> None:
    with pytest.raises(lk.InvalidRequest):
        lk.is_lease_subset({"cost.budget": ["USD:1"]}, PARENT, **options)
    with pytest.raises(lk.InvalidRequest):
        lk.check_lease_subset({"cost.budget": ["USD:1"]}, PARENT, **options)


def test_known_option_keys_still_work() -> None:
    later, earlier = "2030-01-01T00:00:00Z", "2029-01-01T00:00:00Z"
    child = {"cost.budget": ["USD:1"]}
    assert lk.is_lease_subset(child, PARENT, child_constraints={"expires_at": later}, parent_constraints=None)
    assert not lk.is_lease_subset(
        child, PARENT, child_constraints=lk.LeaseConstraints(later), parent_constraints={"expires_at": earlier}
    )
    assert lk.is_lease_subset(child, PARENT, child_constraints='{"expires_at": "' + earlier + '"}')
    assert lk.is_lease_subset(child, PARENT, parent_remaining=None)


@pytest.mark.parametrize(
    "options",
    [
        {"parent_remaining": {"USD": "\u0661"}},
        {"parent_remaining": {"USD": 1}},
        {"parent_remaining": ["USD:1"]},
        {"parent_remaining": "USD:1"},
        {"strict": True},
    ],
)
def test_the_conformance_runner_hands_the_vector_over_unchanged(options: Dict[str, Any]) -> None:
    """The runner must not rewrite a vector's options (into a ``Decimal``, or by dropping a key)."""
    with pytest.raises(lk.InvalidRequest):
        op_subset({"child": {"cost.budget": ["USD:1"]}, "parent": PARENT, **options})
