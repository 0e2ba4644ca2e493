"""leasekit: ARCP v1.1 leases (patterns, canonicalization, subset, exact decimal budgets, expiry,
guard, narrowing, the agentrc Agentfile), implemented once in Rust.

Leases are accepted as ``Lease`` objects, dicts or JSON strings; amounts as ``decimal.Decimal``
or strings (never floats); times as aware ``datetime`` objects or strict RFC 3339 ``Z`` strings.
Errors are ``LeaseError`` subclasses carrying the stable ARCP ``code``.
"""

from __future__ import annotations

from ._errors import (
    ERROR_CLASSES,
    AgentNotAvailable,
    AgentVersionNotAvailable,
    BudgetExhausted,
    Cancelled,
    DuplicateKey,
    HeartbeatLost,
    InternalError,
    InvalidRequest,
    JobNotFound,
    LeaseError,
    LeaseExpired,
    LeaseSubsetViolation,
    PermissionDenied,
    ResumeWindowExpired,
    Timeout,
    Unauthenticated,
)
from ._native import (
    BudgetEntry,
    Lease,
    LeaseConstraints,
    LeaseGuard,
    ManualClock,
    Metric,
    Narrowed,
    canonicalize_target,
    check_lease_subset,
    error_codes,
    format_amount,
    initial_budget,
    is_lease_subset,
    is_reserved_capability_name,
    is_valid_capability_name,
    match_pattern,
    narrow_constraints,
    narrow_lease,
    parse_amount,
    parse_budget_amount,
    parse_expires_at,
    sum_budget_entries,
    validate_lease_constraints,
    validate_lease_shape,
    validate_pattern,
)

__version__ = "0.1.0"

__all__ = [
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
    "match_pattern",
    "is_lease_subset",
    "check_lease_subset",
    "parse_budget_amount",
    "parse_amount",
    "format_amount",
    "sum_budget_entries",
    "initial_budget",
    "parse_expires_at",
    "validate_lease_constraints",
    "narrow_lease",
    "narrow_constraints",
    "error_codes",
    # errors
    "ERROR_CLASSES",
    "LeaseError",
    "PermissionDenied",
    "LeaseSubsetViolation",
    "LeaseExpired",
    "BudgetExhausted",
    "InvalidRequest",
    "Unauthenticated",
    "JobNotFound",
    "DuplicateKey",
    "AgentNotAvailable",
    "AgentVersionNotAvailable",
    "Cancelled",
    "Timeout",
    "ResumeWindowExpired",
    "HeartbeatLost",
    "InternalError",
]
