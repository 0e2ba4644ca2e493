"""Error classes: one subclass per stable ARCP code, in parity with core and with
conformance/error-codes.json (codes and retryable flags)."""

from __future__ import annotations

import json

import pytest

import leasekit as lk
from conftest import REPO


def _spec() -> dict:
    doc = json.loads((REPO / "conformance" / "error-codes.json").read_text(encoding="utf-8"))
    return {c["code"]: c["retryable"] for c in doc["codes"]}


def test_classes_match_error_codes_json() -> None:
    ours = {code: cls.retryable for code, cls in lk.ERROR_CLASSES.items()}
    assert ours == _spec()


def test_core_codes_match_error_codes_json() -> None:
    assert dict(lk.error_codes()) == _spec()


def test_every_class_is_exported_and_subclasses_lease_error() -> None:
    for code, cls in lk.ERROR_CLASSES.items():
        assert issubclass(cls, lk.LeaseError)
        assert getattr(lk, cls.__name__) is cls
        assert cls.code == code


def test_invalid_request_is_a_value_error() -> None:
    with pytest.raises(ValueError):
        lk.canonicalize_target("fs.read", "relative/path")


def test_error_attributes_from_core() -> None:
    with pytest.raises(lk.InvalidRequest) as info:
        lk.parse_budget_amount("USD:-1")
    e = info.value
    assert e.code == "INVALID_REQUEST"
    assert e.retryable is False
    assert isinstance(e.details, dict)
    assert e.message and str(e) == e.message
    assert e.to_dict()["code"] == "INVALID_REQUEST"


def test_subset_violation_details_name_a_witness() -> None:
    with pytest.raises(lk.LeaseSubsetViolation) as info:
        lk.check_lease_subset({"fs.read": ["/a/**"]}, {"fs.read": ["/a/*"]})
    d = info.value.details
    assert d.get("capability") == "fs.read"
    assert d.get("pattern") == "/a/**"
    assert isinstance(d.get("witness"), str)


def test_unknown_code_from_native_is_internal_not_mislabelled() -> None:
    from leasekit._errors import _from_native

    e = _from_native("SOMETHING_NEW", "m", False, {})
    assert isinstance(e, lk.InternalError)
    assert e.details["code"] == "SOMETHING_NEW"


def test_retryable_codes() -> None:
    assert {c for c, cls in lk.ERROR_CLASSES.items() if cls.retryable} == {
        "TIMEOUT",
        "HEARTBEAT_LOST",
        "INTERNAL_ERROR",
    }
