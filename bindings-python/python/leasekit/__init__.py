"""leasekit: ARCP v1.1 leases (patterns, canonicalization, subset, exact decimal budgets, expiry,
guard, narrowing, the agentrc Agentfile), implemented once in Rust.

Leases are accepted as ``Lease`` objects, dicts or JSON strings; amounts as ``decimal.Decimal``
or strings (never floats); times as aware ``datetime`` objects or strict RFC 3339 ``Z`` strings.
Errors are ``LeaseError`` subclasses carrying the stable ARCP ``code``.
"""

from __future__ import annotations

from . import _errors, _native
from ._errors import *  # noqa: F403  (LeaseError, one class per code, ERROR_CLASSES)

from .governor import Governor, GovernorClient, decode_frame

__version__ = "0.1.0"

#: The names the native module contributes to the package's API (each listed once: imported
#: from `_native` below and exported in `__all__`; their types are in `__init__.pyi`).
_NATIVE_API = (
    # values
    "Lease",
    "LeaseConstraints",
    "LeaseGuard",
    "ManualClock",
    "Metric",
    "BudgetEntry",
    "Narrowed",
    # functions
    "is_valid_capability_name",
    "is_reserved_capability_name",
    "validate_lease_shape",
    "canonicalize_target",
    "validate_pattern",
    "lint_lease",
    "match_pattern",
    "is_lease_subset",
    "check_lease_subset",
    "parse_budget_amount",
    "parse_amount",
    "format_amount",
    "sum_budget_entries",
    "initial_budget",
    "check_budget_remaining",
    "parse_expires_at",
    "validate_lease_constraints",
    "narrow_lease",
    "narrow_constraints",
    "error_codes",
    # Agentfile
    "Agentfile",
    "parse_agentfile",
    "lint",
    "agentfile_lease",
    "check_agentfile",
    "lock",
    "lockfile_json",
    "package_digest",
    "check_inheritance",
    "evaluate_policy",
)
globals().update((name, getattr(_native, name)) for name in _NATIVE_API)

__all__ = [
    *_NATIVE_API,
    # governor
    "Governor",
    "GovernorClient",
    "decode_frame",
    # errors
    *_errors.__all__,
]
