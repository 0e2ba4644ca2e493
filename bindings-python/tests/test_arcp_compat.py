"""leasekit.arcp_compat: the ARCP Python SDK's (1.1.3) lease helper names and signatures, with
leasekit's semantics. The SDK is not a test dependency: its signatures are recorded below."""

from __future__ import annotations

import inspect
from datetime import datetime, timedelta, timezone
from decimal import Decimal
from typing import List, Optional, Tuple

import pytest

import leasekit as lk
from leasekit import arcp_compat as compat

# (name, kind, has default) as printed by inspect.signature on agentruntimecontrolprotocol 1.1.3.
SDK_SIGNATURES = {
    "validate_lease_op": [("lease", "POSITIONAL_OR_KEYWORD", False), ("ctx", "POSITIONAL_OR_KEYWORD", False),
                          ("constraints", "KEYWORD_ONLY", True), ("budget", "KEYWORD_ONLY", True)],
    "is_lease_subset": [("child", "POSITIONAL_OR_KEYWORD", False), ("parent", "POSITIONAL_OR_KEYWORD", False),
                        ("parent_budget_remaining", "KEYWORD_ONLY", True), ("parent_constraints", "KEYWORD_ONLY", True),
                        ("child_constraints", "KEYWORD_ONLY", True)],
    "validate_lease_shape": [("lease", "POSITIONAL_OR_KEYWORD", False)],
    "validate_lease_constraints": [("constraints", "POSITIONAL_OR_KEYWORD", False), ("now", "KEYWORD_ONLY", True)],
    "assert_lease_subset": [("child", "POSITIONAL_OR_KEYWORD", False), ("parent", "POSITIONAL_OR_KEYWORD", False),
                            ("parent_budget_remaining", "KEYWORD_ONLY", True), ("parent_constraints", "KEYWORD_ONLY", True),
                            ("child_constraints", "KEYWORD_ONLY", True)],
    "initial_budget_from_lease": [("lease", "POSITIONAL_OR_KEYWORD", False)],
    "parse_budget_amount": [("amount", "POSITIONAL_OR_KEYWORD", False)],
    "LeaseOpContext": [("capability", "POSITIONAL_OR_KEYWORD", False), ("target", "POSITIONAL_OR_KEYWORD", False),
                       ("cost", "POSITIONAL_OR_KEYWORD", True), ("now", "POSITIONAL_OR_KEYWORD", True)],
}


class SdkConstraints:
    """Stands in for the SDK's pydantic LeaseConstraints (``expires_at: str | None``)."""

    def __init__(self, expires_at: Optional[str]) -> None:
        self.expires_at = expires_at


def _sig(obj: object) -> List[Tuple[str, str, bool]]:
    return [
        (p.name, p.kind.name, p.default is not inspect.Parameter.empty)
        for p in inspect.signature(obj).parameters.values()  # type: ignore[arg-type]
    ]


@pytest.mark.parametrize("name", sorted(SDK_SIGNATURES))
def test_signatures_match_the_sdk(name: str) -> None:
    obj = getattr(compat, name)
    assert _sig(obj) == SDK_SIGNATURES[name]
    assert obj.__doc__


def test_canonicalize_target_keeps_the_sdks_one_argument_call() -> None:
    # SDK: canonicalize_target(target); the capability is an extra optional argument.
    assert _sig(compat.canonicalize_target)[0] == ("target", "POSITIONAL_OR_KEYWORD", False)
    assert all(has_default for _, _, has_default in _sig(compat.canonicalize_target)[1:])


def test_module_documents_every_difference() -> None:
    doc = compat.__doc__ or ""
    for name in [*SDK_SIGNATURES, "canonicalize_target"]:
        if name != "LeaseOpContext":
            assert f"``{name}(" in doc
    assert sorted(compat.__all__) == sorted([*SDK_SIGNATURES, "canonicalize_target"])


LEASE = {"fs.read": ["/data/*"], "tool.call": ["web.*"], "cost.budget": ["USD:5.00"]}


def test_validate_lease_op_allows_and_denies() -> None:
    compat.validate_lease_op(LEASE, compat.LeaseOpContext("fs.read", "/data/a.csv"))
    with pytest.raises(lk.PermissionDenied):
        compat.validate_lease_op(LEASE, compat.LeaseOpContext("fs.read", "/etc/passwd"))
    # Differences from the SDK's fnmatch: no traversal, `*` stays in its segment.
    with pytest.raises(lk.PermissionDenied):
        compat.validate_lease_op(LEASE, compat.LeaseOpContext("fs.read", "/data/../etc/passwd"))
    with pytest.raises(lk.PermissionDenied):
        compat.validate_lease_op(LEASE, compat.LeaseOpContext("fs.read", "/data/a/b"))


def test_validate_lease_op_expiry_uses_ctx_now() -> None:
    t0 = datetime(2026, 1, 1, tzinfo=timezone.utc)
    c = SdkConstraints("2026-01-01T00:00:10Z")
    compat.validate_lease_op(LEASE, compat.LeaseOpContext("tool.call", "web.search", now=t0), constraints=c)
    late = compat.LeaseOpContext("tool.call", "web.search", now=t0 + timedelta(seconds=10))
    with pytest.raises(lk.LeaseExpired):
        compat.validate_lease_op(LEASE, late, constraints=c)
    with pytest.raises(lk.LeaseExpired):
        compat.validate_lease_op(LEASE, late, constraints={"expires_at": "2026-01-01T00:00:10Z"})


def test_validate_lease_op_caller_budget() -> None:
    ctx = compat.LeaseOpContext("tool.call", "web.search")
    compat.validate_lease_op(LEASE, ctx, budget={"USD": Decimal("0.01")})
    with pytest.raises(lk.BudgetExhausted):
        compat.validate_lease_op(LEASE, ctx, budget={"USD": Decimal("0")})
    # As in the SDK the pattern is checked before the caller's budget.
    with pytest.raises(lk.PermissionDenied):
        compat.validate_lease_op(LEASE, compat.LeaseOpContext("tool.call", "shell"), budget={"USD": Decimal(0)})


def test_validate_lease_shape() -> None:
    compat.validate_lease_shape(LEASE)
    for bad in ({"x-vendor.": ["a"]}, {"fs.read": [""]}, {"cost.budget": ["USD:-1"]}):
        with pytest.raises(ValueError):
            compat.validate_lease_shape(bad)


def test_initial_budget_and_parse() -> None:
    assert compat.initial_budget_from_lease({"cost.budget": ["USD:1.50", "USD:2"]}) == {"USD": Decimal("3.5")}
    assert compat.parse_budget_amount("USD:2.50") == ("USD", Decimal("2.5"))
    with pytest.raises(ValueError):
        compat.parse_budget_amount("USD:abc")


def test_is_lease_subset() -> None:
    assert compat.is_lease_subset({"fs.read": ["/data/a"]}, LEASE)
    assert not compat.is_lease_subset({"fs.read": ["/data/**"]}, {"fs.read": ["/data/*"]})  # SDK: True
    assert not compat.is_lease_subset(
        {"cost.budget": ["USD:2"]}, LEASE, parent_budget_remaining={"USD": Decimal("1")}
    )
    t0 = "2026-01-01T00:00:00Z"
    t1 = "2026-01-02T00:00:00Z"
    assert not compat.is_lease_subset(
        {"fs.read": ["/data/a"]},
        LEASE,
        parent_constraints=SdkConstraints(t0),
        child_constraints=SdkConstraints(t1),
    )


def test_validate_lease_constraints() -> None:
    now = datetime(2026, 1, 1, tzinfo=timezone.utc)
    compat.validate_lease_constraints(None)
    compat.validate_lease_constraints(SdkConstraints(None))
    compat.validate_lease_constraints(SdkConstraints("2026-01-01T00:00:01Z"), now=now)
    # What datetime.isoformat() writes (the SDK accepts it) is read as Z.
    compat.validate_lease_constraints(SdkConstraints("2026-01-01T00:00:01.5+00:00"), now=now)
    with pytest.raises(lk.InvalidRequest, match="must be in the future"):
        compat.validate_lease_constraints(SdkConstraints("2026-01-01T00:00:00Z"), now=now)
    # Only that one offset form: other offsets and naive times stay refused.
    for text in ("2026-01-01T01:00:01+01:00", "2026-01-01T00:00:01", "2026-01-01 00:00:01Z", "2026-01-01T00:00:01-00:00"):
        with pytest.raises(lk.InvalidRequest):
            compat.validate_lease_constraints(SdkConstraints(text), now=now)


def test_assert_lease_subset() -> None:
    compat.assert_lease_subset({"fs.read": ["/data/a"]}, LEASE)
    with pytest.raises(lk.LeaseSubsetViolation, match="not a subset") as info:
        compat.assert_lease_subset({"fs.read": ["/data/**"]}, LEASE)
    assert info.value.details["capability"] == "fs.read"
    assert info.value.retryable is False


def test_a_child_without_expiry_under_an_expiring_parent_is_not_a_subset() -> None:
    # leasekit's own subset lets the child inherit the parent's expiry; an SDK runtime applies
    # no inheritance, so the compat functions refuse the child.
    parent_c = SdkConstraints("2030-01-01T00:00:00Z")
    child = {"fs.read": ["/data/a"]}
    assert lk.is_lease_subset(child, LEASE, parent_constraints={"expires_at": "2030-01-01T00:00:00Z"})
    assert not compat.is_lease_subset(child, LEASE, parent_constraints=parent_c)
    assert not compat.is_lease_subset(child, LEASE, parent_constraints=parent_c, child_constraints=SdkConstraints(None))
    with pytest.raises(lk.LeaseSubsetViolation):
        compat.assert_lease_subset(child, LEASE, parent_constraints=parent_c)
    assert compat.is_lease_subset(child, LEASE, parent_constraints=parent_c, child_constraints=parent_c)


def test_parent_remaining_is_read_as_the_sdk_does() -> None:
    child = {"cost.budget": ["EUR:5"]}
    # An entry for a currency the parent does not budget limits the child (leasekit alone
    # ignores it) ...
    assert lk.is_lease_subset(child, LEASE, parent_remaining={"EUR": "1"})
    assert not compat.is_lease_subset(child, LEASE, parent_budget_remaining={"EUR": Decimal("1")})
    assert compat.is_lease_subset(child, LEASE, parent_budget_remaining={"EUR": Decimal("5")})
    # ... and a currency missing from the map has nothing left.
    assert not compat.is_lease_subset(child, LEASE, parent_budget_remaining={"USD": Decimal("5")})
    # Without a map, the parent's own budget is compared (the SDK compares nothing).
    assert not compat.is_lease_subset({"cost.budget": ["USD:6"]}, LEASE)


def test_canonicalize_target() -> None:
    assert compat.canonicalize_target("/data//file.txt/") == "/data/file.txt"
    assert compat.canonicalize_target("/") == "/"
    assert compat.canonicalize_target("/data/../etc/passwd") == "/etc/passwd"
    assert compat.canonicalize_target("HTTPS://Example.COM/a", "net.fetch") == "https://example.com/a"
    for target in ("data//x", "https://example.com/a", ""):
        with pytest.raises(lk.InvalidRequest):
            compat.canonicalize_target(target)
