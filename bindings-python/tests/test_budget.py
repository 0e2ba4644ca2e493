"""Exact decimal budgets: Decimal/str in, Decimal out, floats refused."""

from __future__ import annotations

from datetime import datetime, timezone
from decimal import Decimal

import pytest

import leasekit as lk


def test_parse_budget_amount() -> None:
    e = lk.parse_budget_amount("USD:2.50")
    assert e.currency == "USD"
    assert e.amount == Decimal("2.5") and isinstance(e.amount, Decimal)
    currency, amount = e
    assert (currency, amount) == ("USD", Decimal("2.5"))
    assert e == lk.parse_budget_amount("USD:2.5")
    assert "USD" in repr(e)


@pytest.mark.parametrize(
    "entry",
    ["USD", "USD:-1", "USD:1e3", "USD:NaN", ":1", "1USD:1", "USD:1.", "USD:" + "9" * 16, "USD:0.0000000001"],
)
def test_parse_budget_amount_rejects(entry: str) -> None:
    with pytest.raises(lk.InvalidRequest):
        lk.parse_budget_amount(entry)


def test_amounts_are_exact() -> None:
    assert lk.parse_amount("0.1") + lk.parse_amount("0.2") == Decimal("0.3")
    assert lk.parse_amount(Decimal("2.50")) == Decimal("2.5")
    assert lk.parse_amount(3) == Decimal(3)
    assert lk.format_amount(Decimal("2.500")) == "2.5"
    assert lk.format_amount("10") == "10"


def test_floats_are_refused() -> None:
    with pytest.raises(lk.InvalidRequest, match="float"):
        lk.parse_amount(0.1)  # type: ignore[arg-type]
    with pytest.raises(lk.InvalidRequest):
        lk.parse_amount(True)  # type: ignore[arg-type]


def test_decimal_in_scientific_notation_is_converted_exactly() -> None:
    assert lk.parse_amount(Decimal("1E+2")) == Decimal(100)
    with pytest.raises(lk.InvalidRequest):
        lk.parse_amount(Decimal("-1"))
    with pytest.raises(lk.InvalidRequest):
        lk.parse_amount(Decimal("NaN"))


def test_sum_budget_entries() -> None:
    assert lk.sum_budget_entries(["USD:1.10", "USD:2.20", "EUR:1"]) == {"USD": Decimal("3.3"), "EUR": Decimal(1)}
    assert lk.sum_budget_entries(("usd:1",)) == {"usd": Decimal(1)}
    assert lk.sum_budget_entries([]) == {}
    with pytest.raises(lk.InvalidRequest):
        lk.sum_budget_entries(["USD:1", 2])  # type: ignore[list-item]
    with pytest.raises(lk.InvalidRequest):
        lk.sum_budget_entries("USD:1")  # type: ignore[arg-type]
    for bad in ({"USD:1": 1}, [Decimal("1")], [None], [["USD:1"]], [datetime(2030, 1, 1, tzinfo=timezone.utc)]):
        with pytest.raises(lk.InvalidRequest):
            lk.sum_budget_entries(bad)  # type: ignore[arg-type]
