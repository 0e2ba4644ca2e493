"""Expiry: strict RFC 3339 parsing, aware datetimes, constraints and the manual clock."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

import leasekit as lk


def test_parse_expires_at_gives_aware_utc() -> None:
    t = lk.parse_expires_at("2026-01-01T00:00:00.5Z")
    assert t == datetime(2026, 1, 1, 0, 0, 0, 500000, tzinfo=timezone.utc)
    assert t.tzinfo is not None and t.utcoffset() == timedelta(0)


@pytest.mark.parametrize(
    "text",
    ["2026-01-01T00:00:00+00:00", "2026-01-01t00:00:00Z", "2026-02-30T00:00:00Z", "2026-01-01T24:00:00Z", "2026-01-01"],
)
def test_parse_expires_at_is_strict(text: str) -> None:
    with pytest.raises(lk.InvalidRequest):
        lk.parse_expires_at(text)


def test_constraints_from_datetime_with_offset_convert_exactly(t0: datetime) -> None:
    plus2 = timezone(timedelta(hours=2))
    c = lk.LeaseConstraints(expires_at=datetime(2026, 1, 1, 2, 0, 0, 123456, tzinfo=plus2))
    assert c.expires_at == t0 + timedelta(microseconds=123456)
    assert c.to_dict() == {"expires_at": "2026-01-01T00:00:00.123456Z"}
    assert lk.LeaseConstraints().expires_at is None


def test_naive_datetime_is_refused() -> None:
    with pytest.raises(lk.InvalidRequest, match="naive"):
        lk.LeaseConstraints(expires_at=datetime(2026, 1, 1))
    with pytest.raises(lk.InvalidRequest):
        lk.ManualClock(datetime(2026, 1, 1))


def test_validate_lease_constraints(t0: datetime) -> None:
    later = t0 + timedelta(seconds=1)
    lk.validate_lease_constraints({"expires_at": later}, now=t0)
    lk.validate_lease_constraints(lk.LeaseConstraints(later), now="2026-01-01T00:00:00Z")
    lk.validate_lease_constraints(None)
    with pytest.raises(lk.InvalidRequest):
        lk.validate_lease_constraints({"expires_at": t0}, now=t0)
    with pytest.raises(lk.InvalidRequest):
        lk.validate_lease_constraints({"expires_at": "2000-01-01T00:00:00Z"})


def test_manual_clock(t0: datetime) -> None:
    clock = lk.ManualClock(t0)
    assert clock.get() == t0 and clock() == t0
    clock.set("2026-06-01T12:00:00Z")
    assert clock() == datetime(2026, 6, 1, 12, tzinfo=timezone.utc)


def test_narrow_constraints_takes_the_earlier(t0: datetime) -> None:
    later = t0 + timedelta(days=1)
    assert lk.narrow_constraints({"expires_at": later}, {"expires_at": t0}).expires_at == t0
    assert lk.narrow_constraints(None, {"expires_at": t0}).expires_at == t0
    assert lk.narrow_constraints(None, None).expires_at is None
