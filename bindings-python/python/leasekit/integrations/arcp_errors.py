"""leasekit errors as the ARCP Python SDK's own exception classes.

For every ARCP code, :func:`sdk_error_class` builds (once) a class deriving from both the SDK's
class for that code (``arcp._errors.PermissionDeniedError`` ...) and leasekit's
(``leasekit.PermissionDenied`` ...), so ``except arcp.PermissionDeniedError`` and
``except leasekit.PermissionDenied`` both catch it, and the SDK's job runner reports the real
code and ``retryable`` flag instead of a retryable ``INTERNAL_ERROR``. ``.code``, ``.message``,
``.retryable``, ``.details``, ``to_payload()`` (the SDK's) and ``to_dict()`` (leasekit's) work.

The SDK is imported only when a class is first asked for; without it, leasekit's classes are
returned unchanged.
"""

from __future__ import annotations

from typing import Any, Dict, Optional, Type

from .. import _errors

__all__ = ["sdk_error_class", "to_sdk_error", "sdk_available"]

_CACHE: Dict[str, Type[_errors.LeaseError]] = {}


def sdk_available() -> bool:
    """Whether the SDK's error module can be imported."""
    try:
        import arcp._errors  # noqa: F401
    except ImportError:
        return False
    return True


def _bridge(code: str) -> Optional[Type[_errors.LeaseError]]:
    try:
        from arcp import _errors as sdk
    except ImportError:
        return None
    sdk_cls = getattr(sdk, "_BY_CODE", {}).get(code)
    lk_cls = _errors.ERROR_CLASSES.get(code)
    if sdk_cls is None or lk_cls is None:
        return None

    def __init__(
        self: Any,
        message: str = "",
        *,
        retryable: Optional[bool] = None,
        details: Optional[Dict[str, Any]] = None,
    ) -> None:
        # The SDK's __init__ sets retryable (its default when None) and details; its
        # super().__init__ reaches leasekit's, which sets message and a details dict first.
        sdk_cls.__init__(self, message, retryable=lk_cls.retryable if retryable is None else retryable,
                         details=details)
        self.details = dict(details or {})

    name = sdk_cls.__name__
    cls = type(
        name,
        (sdk_cls, lk_cls),
        {
            "__init__": __init__,
            "__module__": __name__,
            "__qualname__": name,
            "__doc__": f"{code}: the SDK's {name} and leasekit's {lk_cls.__name__} at once.",
            "__repr__": _errors.LeaseError.__repr__,
            "__str__": Exception.__str__,
        },
    )
    return cls


def sdk_error_class(code: str) -> Type[_errors.LeaseError]:
    """The bridged class for ``code`` (leasekit's own class when the SDK is absent)."""
    cls = _CACHE.get(code)
    if cls is None:
        cls = _bridge(code) or _errors.ERROR_CLASSES.get(code, _errors.InternalError)
        _CACHE[code] = cls
    return cls


def to_sdk_error(exc: _errors.LeaseError, message: Optional[str] = None) -> _errors.LeaseError:
    """``exc`` as an instance of its bridged class (itself when it already is one).

    ``message`` replaces the message (used to keep the SDK's wording where its callers match
    on text); code, ``retryable`` and details are kept.
    """
    cls = sdk_error_class(exc.code)
    if isinstance(exc, cls) and message is None:
        return exc
    out = cls(exc.message if message is None else message, retryable=exc.retryable, details=exc.details)
    out.__cause__ = exc.__cause__
    out.__traceback__ = exc.__traceback__
    return out
