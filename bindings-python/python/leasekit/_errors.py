"""Exceptions raised by leasekit: ``LeaseError`` and one subclass per stable ARCP error code.

The native module raises these through :func:`_from_native`; this file only declares the
classes and maps a code string to its class.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, Optional, Type

__all__ = [
    "LeaseError",
    # BEGIN generated (scripts/gen-error-tables.py)
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
    # END generated
    "ERROR_CLASSES",
]


class LeaseError(Exception):
    """Base class of every leasekit error.

    Attributes:
        code: the stable ARCP error code, e.g. ``"PERMISSION_DENIED"``.
        message: a human-readable message (never compare it; compare ``code``).
        retryable: whether the operation may succeed if retried.
        details: structured details (e.g. ``capability``, ``pattern``, ``witness``).
    """

    code: str = ""
    retryable: bool = False

    def __init__(
        self,
        message: str = "",
        *,
        retryable: Optional[bool] = None,
        details: Optional[Dict[str, Any]] = None,
    ) -> None:
        """Create the error; ``retryable`` defaults to the class's flag for its code."""
        super().__init__(message)
        self.message = message
        if retryable is not None:
            self.retryable = retryable
        self.details: Dict[str, Any] = dict(details or {})

    def to_dict(self) -> Dict[str, Any]:
        """The ARCP error object ``{code, message, retryable, details}``."""
        return {
            "code": self.code,
            "message": self.message,
            "retryable": self.retryable,
            "details": dict(self.details),
        }

    def __repr__(self) -> str:
        return f"{type(self).__name__}(code={self.code!r}, message={self.message!r})"


# BEGIN generated (scripts/gen-error-tables.py)
class PermissionDenied(LeaseError):
    """PERMISSION_DENIED: the lease does not cover the operation."""

    code = "PERMISSION_DENIED"


class LeaseSubsetViolation(LeaseError):
    """LEASE_SUBSET_VIOLATION: a delegated lease is not a subset of its parent."""

    code = "LEASE_SUBSET_VIOLATION"


class LeaseExpired(LeaseError):
    """LEASE_EXPIRED: the operation happened at or after ``expires_at``."""

    code = "LEASE_EXPIRED"


class BudgetExhausted(LeaseError):
    """BUDGET_EXHAUSTED: a budget counter is spent (or a reservation does not fit)."""

    code = "BUDGET_EXHAUSTED"


class InvalidRequest(LeaseError, ValueError):
    """INVALID_REQUEST: malformed input (lease shape, pattern, target, amount, time)."""

    code = "INVALID_REQUEST"


class Unauthenticated(LeaseError):
    """UNAUTHENTICATED."""

    code = "UNAUTHENTICATED"


class JobNotFound(LeaseError):
    """JOB_NOT_FOUND."""

    code = "JOB_NOT_FOUND"


class DuplicateKey(LeaseError):
    """DUPLICATE_KEY."""

    code = "DUPLICATE_KEY"


class AgentNotAvailable(LeaseError):
    """AGENT_NOT_AVAILABLE."""

    code = "AGENT_NOT_AVAILABLE"


class AgentVersionNotAvailable(LeaseError):
    """AGENT_VERSION_NOT_AVAILABLE."""

    code = "AGENT_VERSION_NOT_AVAILABLE"


class Cancelled(LeaseError):
    """CANCELLED."""

    code = "CANCELLED"


class Timeout(LeaseError):
    """TIMEOUT (retryable)."""

    code = "TIMEOUT"
    retryable = True


class ResumeWindowExpired(LeaseError):
    """RESUME_WINDOW_EXPIRED."""

    code = "RESUME_WINDOW_EXPIRED"


class HeartbeatLost(LeaseError):
    """HEARTBEAT_LOST (retryable)."""

    code = "HEARTBEAT_LOST"
    retryable = True


class InternalError(LeaseError):
    """INTERNAL_ERROR (retryable): a bug or a panic caught at the native boundary."""

    code = "INTERNAL_ERROR"
    retryable = True


#: Every code -> its exception class.
ERROR_CLASSES: Dict[str, Type[LeaseError]] = {
    cls.code: cls
    for cls in (
        PermissionDenied,
        LeaseSubsetViolation,
        LeaseExpired,
        BudgetExhausted,
        InvalidRequest,
        Unauthenticated,
        JobNotFound,
        DuplicateKey,
        AgentNotAvailable,
        AgentVersionNotAvailable,
        Cancelled,
        Timeout,
        ResumeWindowExpired,
        HeartbeatLost,
        InternalError,
    )
}
# END generated


#: When set (by ``leasekit.integrations.arcp.install``), maps a code to the class raised for it
#: (a subclass of that code's class in ``ERROR_CLASSES``); ``None`` means ``ERROR_CLASSES``.
_class_for: Optional[Callable[[str], Optional[Type[LeaseError]]]] = None


def _from_native(code: str, message: str, retryable: bool, details: Dict[str, Any]) -> LeaseError:
    """Build the exception for a core error (called by the native module).

    An unknown code (core newer than this file) becomes ``InternalError`` carrying the code in
    ``details["code"]`` rather than being silently mislabelled.
    """
    cls = ERROR_CLASSES.get(code) if _class_for is None else _class_for(code)
    if cls is None:
        details = dict(details)
        details["code"] = code
        return InternalError(f"unknown error code {code}: {message}", retryable=True, details=details)
    return cls(message, retryable=retryable, details=details)
