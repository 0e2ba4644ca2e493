"""Drop-in lease helpers for users of the public ARCP Python SDK (PyPI
``agentruntimecontrolprotocol``, module ``arcp.runtime`` / ``arcp._runtime.lease``, version 1.1.3).

The functions below keep the SDK's names, parameters and return types, so::

    from arcp.runtime import validate_lease_op, is_lease_subset      # before
    from leasekit.arcp_compat import validate_lease_op, is_lease_subset  # after

works unchanged for well-formed input, but every answer comes from leasekit's core and follows
leasekit's normative semantics (``leasekit.integrations.arcp.install()`` puts these functions
in place inside the SDK itself). This module only converts types (SDK objects -> leasekit
values) and errors, and calls the core. It is never less strict than the SDK function it
replaces: where leasekit's own answer is looser (two subset rules below), the SDK's stricter
rule is asked of core. Where results differ from SDK 1.1.3, and why:

Errors: when the SDK is installed, every error is an instance of the SDK's class for its code
*and* of leasekit's (``leasekit.integrations.arcp_errors``): ``except
arcp.PermissionDeniedError`` and ``except leasekit.PermissionDenied`` both catch it, and the
SDK's runtime reports the real code, not retryable. Messages start with the SDK's wording
(``"operation fs.read:/x not permitted by lease: ..."``) followed by leasekit's reason.
Without the SDK, leasekit's own classes are raised.

``validate_lease_shape(lease)``
    SDK: a capability is valid if it is reserved or merely *starts with* ``x-vendor.``; empty
    pattern strings, control characters, relative ``fs.*`` patterns and ``***`` are accepted;
    a bad budget entry raises a plain ``ValueError``.
    leasekit: vendor names must be ``x-vendor.<seg>.<seg>...`` in ``[a-z0-9_-]``; those patterns
    are rejected; every failure is ``InvalidRequest`` (also a ``ValueError``).

``validate_lease_constraints(constraints, *, now=None)``
    SDK: ``datetime.fromisoformat`` (a naive time is taken as UTC; a space for ``T`` passes).
    leasekit: exactly ``YYYY-MM-DDTHH:MM:SS[.f]Z``; the one other form the SDK itself writes,
    a ``+00:00`` suffix, is read as ``Z``; anything else is ``InvalidRequest``. An expiry not
    after ``now`` is ``InvalidRequest`` ("must be in the future"), as in the SDK.

``validate_lease_op(lease, ctx, *, constraints=None, budget=None)``
    SDK: ``fnmatch`` globbing (``*`` crosses ``/``; ``?`` and ``[...]`` are wildcards), no target
    canonicalization (``/data/../etc/passwd`` matches ``/data/*``), order expiry -> pattern ->
    budget, and the lease's own ``cost.budget`` is never consulted.
    leasekit: the target is canonicalized first (``..`` resolved, URL normalized, userinfo
    rejected; a relative ``fs.*`` target is refused), ``*`` stays inside one segment (``.`` and
    ``/`` separate ``tool.call`` names), ``**`` spans segments, order expiry -> budget ->
    canonicalization -> pattern, then the caller's ``budget``; a lease whose own
    ``cost.budget`` has a counter <= 0 denies with ``BudgetExhausted``, and a malformed target
    raises ``InvalidRequest`` instead of ``PermissionDenied``.

``initial_budget_from_lease(lease)``
    Same totals; leasekit validates the whole lease first (an invalid lease raises
    ``InvalidRequest``), and amounts are normalized (``Decimal("2.5")`` for ``"USD:2.50"``;
    equal by value).

``is_lease_subset(child, parent, *, parent_budget_remaining=None, parent_constraints=None,
child_constraints=None)``
    SDK: a child pattern is covered when it equals a parent pattern or ``fnmatch``-matches one
    (so ``/a/** <= /a/*`` is wrongly true), and without ``parent_budget_remaining`` budgets are
    not compared.
    leasekit: exact pattern-language inclusion over the union of the parent's patterns; without
    ``parent_budget_remaining`` the child's budget is compared with the parent's own
    ``cost.budget``. Kept from the SDK (stricter than leasekit's own subset, core options
    ``strict_remaining`` and ``require_child_expiry``): with ``parent_budget_remaining``, a
    currency missing from it counts as 0 and an entry limits the child even for a currency the
    parent does not budget; a child without ``expires_at`` under a parent with one is not a
    subset (an SDK runtime does not apply leasekit's expiry inheritance). Invalid leases raise
    ``InvalidRequest`` instead of answering.

``assert_lease_subset(child, parent, *, parent_budget_remaining=None, parent_constraints=None,
child_constraints=None)``
    ``is_lease_subset``'s rules; the ``LeaseSubsetViolation`` names the capability and a
    witness string the parent does not cover in ``details``.

``canonicalize_target(target, capability=None)``
    SDK: collapses ``//`` and strips a trailing ``/`` of any string (``..`` is kept).
    leasekit: the canonical form for ``capability`` (section 5 of the semantics: ``..``
    resolved, URLs normalized). Without ``capability`` only an absolute path is accepted (as
    an ``fs.*`` target); anything else is ``InvalidRequest``, since URLs and names have other
    rules.

``parse_budget_amount(amount)``
    Returns ``(currency, Decimal)`` like the SDK. leasekit accepts currencies
    ``[A-Za-z][A-Za-z0-9_-]{0,31}`` (SDK: ``[A-Za-z][A-Za-z0-9]{0,9}``), limits amounts to 15
    integer and 9 fraction digits, and normalizes the amount (``Decimal("2.5")``). Failures
    raise ``InvalidRequest`` (a ``ValueError``, as in the SDK).

Cost: every call here validates and compiles the lease it is given (the SDK passes plain dicts),
about 17 us for ``validate_lease_op`` on a three-capability lease versus under 1 us for
``LeaseGuard.authorize`` on a guard built once; prefer a guard in hot loops (what
``install(guard=True)`` does for ``JobContext.authorize``).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple, TypeVar

import leasekit as _lk

from .integrations.arcp_errors import to_sdk_error

__all__ = [
    "LeaseOpContext",
    "validate_lease_shape",
    "validate_lease_constraints",
    "validate_lease_op",
    "initial_budget_from_lease",
    "is_lease_subset",
    "assert_lease_subset",
    "canonicalize_target",
    "parse_budget_amount",
]

#: The SDK's lease type: capability -> list of patterns.
Lease = Dict[str, List[str]]

_F = TypeVar("_F", bound=Callable[..., Any])


def _sdk_errors(fn: _F) -> _F:
    """Raise leasekit errors as the SDK's classes for their code (when the SDK is installed)."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except _lk.LeaseError as exc:
            raise to_sdk_error(exc) from None

    return wrapper  # type: ignore[return-value]


def _reworded(exc: _lk.LeaseError, sdk_message: str) -> _lk.LeaseError:
    """``exc`` with the SDK's wording first and leasekit's reason after it."""
    return to_sdk_error(exc, f"{sdk_message}: {exc.message}" if exc.message else sdk_message)


@dataclass(frozen=True)
class LeaseOpContext:
    """Same fields as the SDK's ``arcp.runtime.LeaseOpContext`` (any object with
    ``capability``, ``target`` and ``now`` attributes is accepted, including the SDK's own)."""

    capability: str
    target: str
    cost: Optional[Dict[str, Decimal]] = None
    now: Optional[datetime] = None


def _expires_at(value: Any) -> Any:
    """The SDK writes ``+00:00`` (``datetime.isoformat()``); read exactly that suffix as ``Z``."""
    if isinstance(value, str) and value.endswith("+00:00"):
        return value[: -len("+00:00")] + "Z"
    return value


def _constraints(value: Any) -> Any:
    """SDK ``LeaseConstraints`` (pydantic, ``expires_at: str | None``), dict, or None."""
    if value is None or isinstance(value, (str, _lk.LeaseConstraints)):
        return value
    if isinstance(value, Mapping):
        return {**value, "expires_at": _expires_at(value.get("expires_at"))}
    return {"expires_at": _expires_at(getattr(value, "expires_at", None))}


def _plain_lease(lease: Any) -> Any:
    """Accept a mapping (the SDK's ``Lease`` is a plain dict) as a dict."""
    if isinstance(lease, Mapping) and not isinstance(lease, dict):
        return dict(lease)
    return lease


def _shape_wording(lease: Any) -> Optional[str]:
    """The SDK's message for the first entry it would itself refuse, if any."""
    if not isinstance(lease, Mapping):
        return None
    for ns, patterns in lease.items():
        if not isinstance(ns, str) or not _lk.is_valid_capability_name(ns):
            return f"unknown lease capability namespace: {ns!r}"
        if not isinstance(patterns, list) or not all(isinstance(p, str) for p in patterns):
            return f"lease patterns for {ns!r} must be list[str]"
    return None


def validate_lease_shape(lease: Lease) -> None:
    """Check capability names and pattern shape; raise ``InvalidRequest``."""
    try:
        _lk.validate_lease_shape(_plain_lease(lease))
    except _lk.LeaseError as exc:
        wording = _shape_wording(lease)
        raise (_reworded(exc, wording) if wording else to_sdk_error(exc)) from None


def validate_lease_constraints(constraints: Any, *, now: Optional[datetime] = None) -> None:
    """Refuse an ``expires_at`` that is malformed or not in the future (``InvalidRequest``)."""
    c = _constraints(constraints)
    try:
        _lk.validate_lease_constraints(c, now)
    except _lk.LeaseError as exc:
        text = c.get("expires_at") if isinstance(c, dict) else None
        if isinstance(exc, _lk.InvalidRequest) and isinstance(text, str) and _parses(text):
            shown = getattr(constraints, "expires_at", None) or text
            raise _reworded(exc, f"lease_constraints.expires_at must be in the future: {shown!r}") from None
        raise to_sdk_error(exc) from None


def _parses(text: str) -> bool:
    try:
        _lk.parse_expires_at(text)
    except _lk.LeaseError:
        return False
    return True


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
    try:
        clock = _lk.ManualClock(now) if now is not None else None
        guard = _lk.LeaseGuard(_plain_lease(lease), _constraints(constraints), clock=clock)
        guard.authorize(ctx.capability, ctx.target)
        if budget:
            # After the pattern check, as in the SDK; the rule itself is core's.
            _lk.check_budget_remaining(budget)
    except _lk.LeaseExpired as exc:
        raise _reworded(exc, "lease has expired") from None
    except _lk.PermissionDenied as exc:
        raise _reworded(exc, f"operation {ctx.capability}:{ctx.target} not permitted by lease") from None
    except _lk.BudgetExhausted as exc:
        currency = exc.details.get("currency", "")
        raise _reworded(exc, f"budget for {currency} exhausted") from None
    except _lk.LeaseError as exc:
        raise to_sdk_error(exc) from None


@_sdk_errors
def initial_budget_from_lease(lease: Lease) -> Dict[str, Decimal]:
    """Sum ``cost.budget`` entries into ``{currency: Decimal}``."""
    result: Dict[str, Decimal] = _lk.initial_budget(_plain_lease(lease))
    return result


def _subset_args(
    parent_budget_remaining: Optional[Dict[str, Decimal]], parent_constraints: Any, child_constraints: Any
) -> Dict[str, Any]:
    # An SDK runtime neither applies expiry inheritance nor knows a parent's unbudgeted
    # currencies as unlimited: the SDK's stricter reading of both is asked of core.
    return {
        "parent_remaining": parent_budget_remaining,
        "child_constraints": _constraints(child_constraints),
        "parent_constraints": _constraints(parent_constraints),
        "require_child_expiry": True,
        "strict_remaining": True,
    }


@_sdk_errors
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
        **_subset_args(parent_budget_remaining, parent_constraints, child_constraints),
    )
    return result


def assert_lease_subset(
    child: Lease,
    parent: Lease,
    *,
    parent_budget_remaining: Optional[Dict[str, Decimal]] = None,
    parent_constraints: Any = None,
    child_constraints: Any = None,
) -> None:
    """Raise ``LeaseSubsetViolation`` (details name the capability and a witness) unless
    ``child`` is within ``parent``."""
    try:
        _lk.check_lease_subset(
            _plain_lease(child),
            _plain_lease(parent),
            **_subset_args(parent_budget_remaining, parent_constraints, child_constraints),
        )
    except _lk.LeaseSubsetViolation as exc:
        raise _reworded(exc, "child lease is not a subset of parent") from None
    except _lk.LeaseError as exc:
        raise to_sdk_error(exc) from None


@_sdk_errors
def canonicalize_target(target: str, capability: Optional[str] = None) -> str:
    """The canonical form of ``target`` for ``capability``.

    Without ``capability`` (the SDK's one-argument call) only an absolute path is accepted,
    canonicalized as an ``fs.*`` target; anything else is ``InvalidRequest``.
    """
    if capability is None:
        if not isinstance(target, str) or not target.startswith("/"):
            raise _lk.InvalidRequest(
                "canonicalize_target needs the capability unless the target is an absolute path"
            )
        capability = "fs.read"
    result: str = _lk.canonicalize_target(capability, target)
    return result


@_sdk_errors
def parse_budget_amount(amount: str) -> Tuple[str, Decimal]:
    """Parse ``"CURRENCY:AMOUNT"`` into ``(currency, Decimal)``; raise ``InvalidRequest``."""
    entry = _lk.parse_budget_amount(amount)
    return entry.currency, entry.amount
