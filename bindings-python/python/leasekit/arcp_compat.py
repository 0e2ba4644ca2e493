"""Drop-in lease helpers for users of the public ARCP Python SDK (PyPI
``agentruntimecontrolprotocol``, module ``arcp.runtime`` / ``arcp._runtime.lease``, version 1.1.3).

The functions below keep the SDK's names, parameters and return types, so::

    from arcp.runtime import validate_lease_op, is_lease_subset      # before
    from leasekit.arcp_compat import validate_lease_op, is_lease_subset  # after

works unchanged for well-formed input, but every answer comes from leasekit's core and follows
leasekit's normative semantics. This module only converts types (SDK objects -> leasekit values)
and calls the core. Where results differ from SDK 1.1.3, and why:

``validate_lease_shape(lease)``
    SDK: a capability is valid if it is reserved or merely *starts with* ``x-vendor.``; empty
    pattern strings, control characters, relative ``fs.*`` patterns and ``***`` are accepted;
    a bad budget entry raises a plain ``ValueError``.
    leasekit: vendor names must be ``x-vendor.<seg>.<seg>...`` in ``[a-z0-9_-]``; those patterns
    are rejected; every failure is ``leasekit.InvalidRequest`` (which *is* a ``ValueError``, so
    ``except ValueError`` keeps working, but ``except arcp.InvalidRequestError`` does not catch
    it).

``validate_lease_op(lease, ctx, *, constraints=None, budget=None)``
    SDK: ``fnmatch`` globbing (``*`` crosses ``/``; ``?`` and ``[...]`` are wildcards), no target
    canonicalization (``/data/../etc/passwd`` matches ``/data/*``), order expiry -> pattern ->
    budget, and the lease's own ``cost.budget`` is never consulted.
    leasekit: the target is canonicalized first (``..`` resolved, URL normalized, userinfo
    rejected), ``*`` stays inside one segment (``.`` and ``/`` separate ``tool.call`` names),
    ``**`` spans segments, order expiry -> budget -> canonicalization -> pattern, a lease whose
    own ``cost.budget`` has a counter <= 0 denies with ``BudgetExhausted``, and a malformed
    target raises ``InvalidRequest`` instead of ``PermissionDenied``.
    Exceptions are leasekit's (``PermissionDenied``, ``LeaseExpired``, ``BudgetExhausted``), not
    the SDK's ``*Error`` classes; compare ``.code`` (same ARCP strings) when mixing both.

``initial_budget_from_lease(lease)``
    Same totals; leasekit validates the whole lease first (an invalid lease raises
    ``InvalidRequest``), and amounts are normalized (``Decimal("2.5")`` for ``"USD:2.50"``;
    equal by value).

``is_lease_subset(child, parent, *, parent_budget_remaining=None, parent_constraints=None,
child_constraints=None)``
    SDK: a child pattern is covered when it equals a parent pattern or ``fnmatch``-matches one
    (so ``/a/** <= /a/*`` is wrongly true), and without ``parent_budget_remaining`` budgets are
    not compared; a currency missing from ``parent_budget_remaining`` counts as 0.
    leasekit: exact pattern-language inclusion over the union of the parent's patterns; the
    child's budget is compared with ``parent_budget_remaining`` or, when absent, the parent's
    own ``cost.budget``; a currency the parent does not budget is unlimited; an omitted child
    expiry inherits the parent's. Invalid leases raise ``InvalidRequest`` instead of answering.

``parse_budget_amount(amount)``
    Returns ``(currency, Decimal)`` like the SDK. leasekit accepts currencies
    ``[A-Za-z][A-Za-z0-9_-]{0,31}`` (SDK: ``[A-Za-z][A-Za-z0-9]{0,9}``), limits amounts to 15
    integer and 9 fraction digits, and normalizes the amount (``Decimal("2.5")``). Failures
    raise ``leasekit.InvalidRequest`` (a ``ValueError``, as in the SDK).

Cost: every call here validates and compiles the lease it is given (the SDK passes plain dicts),
about 17 us for ``validate_lease_op`` on a three-capability lease versus under 1 us for
``LeaseGuard.authorize`` on a guard built once; prefer a guard in hot loops.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any, Dict, List, Mapping, Optional, Tuple

import leasekit as _lk

__all__ = [
    "LeaseOpContext",
    "validate_lease_shape",
    "validate_lease_op",
    "initial_budget_from_lease",
    "is_lease_subset",
    "parse_budget_amount",
]

#: The SDK's lease type: capability -> list of patterns.
Lease = Dict[str, List[str]]


@dataclass(frozen=True)
class LeaseOpContext:
    """Same fields as the SDK's ``arcp.runtime.LeaseOpContext`` (any object with
    ``capability``, ``target`` and ``now`` attributes is accepted, including the SDK's own)."""

    capability: str
    target: str
    cost: Optional[Dict[str, Decimal]] = None
    now: Optional[datetime] = None


def _constraints(value: Any) -> Any:
    """SDK ``LeaseConstraints`` (pydantic, ``expires_at: str | None``), dict, or None."""
    if value is None or isinstance(value, (dict, str, _lk.LeaseConstraints)):
        return value
    return {"expires_at": getattr(value, "expires_at", None)}


def _plain_lease(lease: Any) -> Any:
    """Accept a mapping (the SDK's ``Lease`` is a plain dict) as a dict."""
    if isinstance(lease, Mapping) and not isinstance(lease, dict):
        return dict(lease)
    return lease


def validate_lease_shape(lease: Lease) -> None:
    """Check capability names and pattern shape; raise ``leasekit.InvalidRequest``."""
    _lk.validate_lease_shape(_plain_lease(lease))


def validate_lease_op(
    lease: Lease,
    ctx: Any,
    *,
    constraints: Any = None,
    budget: Optional[Dict[str, Decimal]] = None,
) -> None:
    """Authorize ``ctx.capability`` on ``ctx.target`` at ``ctx.now`` (default: system time).

    Raises ``LeaseExpired``, ``BudgetExhausted``, ``InvalidRequest`` or ``PermissionDenied``.
    ``budget`` is the caller-tracked remaining budget, as in the SDK.
    """
    now = getattr(ctx, "now", None)
    clock = _lk.ManualClock(now) if now is not None else None
    guard = _lk.LeaseGuard(_plain_lease(lease), _constraints(constraints), clock=clock)
    guard.authorize(ctx.capability, ctx.target)
    if budget:
        # After the pattern check, as in the SDK; the rule itself is core's.
        _lk.check_budget_remaining(budget)


def initial_budget_from_lease(lease: Lease) -> Dict[str, Decimal]:
    """Sum ``cost.budget`` entries into ``{currency: Decimal}``."""
    result: Dict[str, Decimal] = _lk.initial_budget(_plain_lease(lease))
    return result


def is_lease_subset(
    child: Lease,
    parent: Lease,
    *,
    parent_budget_remaining: Optional[Dict[str, Decimal]] = None,
    parent_constraints: Any = None,
    child_constraints: Any = None,
) -> bool:
    """Whether ``child`` is within ``parent`` (patterns, budget, expiry)."""
    result: bool = _lk.is_lease_subset(
        _plain_lease(child),
        _plain_lease(parent),
        parent_remaining=parent_budget_remaining,
        child_constraints=_constraints(child_constraints),
        parent_constraints=_constraints(parent_constraints),
    )
    return result


def parse_budget_amount(amount: str) -> Tuple[str, Decimal]:
    """Parse ``"CURRENCY:AMOUNT"`` into ``(currency, Decimal)``; raise ``InvalidRequest``."""
    entry = _lk.parse_budget_amount(amount)
    return entry.currency, entry.amount
