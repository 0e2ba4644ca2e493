"""Switch an ARCP Python SDK runtime (``agentruntimecontrolprotocol``) to leasekit in one line::

    import leasekit.integrations.arcp as lk_arcp
    lk_arcp.install(guard=True)      # before or after building the ARCPRuntime
    ...
    lk_arcp.uninstall()              # back to the SDK's own functions

``install`` checks the installed SDK distribution's version (``importlib.metadata``; the SDK's own
``IMPL_VERSION`` string lags) and that every module global it rebinds still holds the SDK's own
function, and refuses with :class:`SdkLayoutError`, changing nothing, when either differs. It
then rebinds the SDK's lease helpers (``validate_lease_shape``, ``validate_lease_constraints``,
``validate_lease_op``, ``initial_budget_from_lease``, ``is_lease_subset``,
``assert_lease_subset``, ``canonicalize_target``, ``parse_budget_amount``) at every site that
holds them to :mod:`leasekit.arcp_compat`, and makes every leasekit error an instance of the
SDK's class for its code (:mod:`leasekit.integrations.arcp_errors`), so a denial reaches the
client with its real code, not as a retryable ``INTERNAL_ERROR``.

With ``guard=True`` each job gets one :class:`leasekit.LeaseGuard` (built from the job's lease
and constraints on first use) behind ``JobContext.authorize``, ``JobContext.authorize_model``
(which then also checks the budget) and ``Job.apply_cost_metric`` (exact decimals; ``job.budget``
mirrors the guard's counters). ``authorize`` and ``authorize_model`` return the canonical target
the agent should operate on.

With ``delegation=True`` (needs ``guard=True``) a submit naming a ``parent_job_id`` whose job is
live in the same runtime is admitted through the parent's guard (``LeaseGuard.delegate``: subset
against the live remaining budget and the effective expiry, the child's budget reserved from the
parent's counters); the child's unspent budget returns to the parent when the child ends.
"""

from __future__ import annotations

import importlib
import sys
import threading
from datetime import datetime
from decimal import Decimal, InvalidOperation
from importlib import metadata
from typing import Any, Callable, Dict, List, NoReturn, Optional, Tuple

import leasekit as _lk

from .. import _errors, arcp_compat
from .arcp_errors import sdk_error_class, to_sdk_error

__all__ = [
    "SDK_DISTRIBUTION",
    "SUPPORTED_SDK_VERSIONS",
    "SITES",
    "SdkLayoutError",
    "install",
    "uninstall",
    "installed",
    "guard_for",
]

#: The PyPI distribution of the ARCP Python SDK.
SDK_DISTRIBUTION = "agentruntimecontrolprotocol"
#: Versions whose layout this module knows (every site below checked against them).
SUPPORTED_SDK_VERSIONS = ("1.1.3",)

_LEASE_MODULE = "arcp._runtime.lease"
_EXECUTION_MODULE = "arcp._messages.execution"

#: Where each lease helper is defined in the SDK.
_HOMES: Dict[str, str] = {
    "validate_lease_shape": _LEASE_MODULE,
    "validate_lease_constraints": _LEASE_MODULE,
    "validate_lease_op": _LEASE_MODULE,
    "initial_budget_from_lease": _LEASE_MODULE,
    "is_lease_subset": _LEASE_MODULE,
    "assert_lease_subset": _LEASE_MODULE,
    "canonicalize_target": _LEASE_MODULE,
    "parse_budget_amount": _EXECUTION_MODULE,
}

#: Every module global of SDK 1.1.3 that holds a lease helper (the SDK imports them by name, so
#: each of these is rebound).
SITES: Tuple[Tuple[str, str], ...] = (
    *((_LEASE_MODULE, name) for name in _HOMES),
    ("arcp._runtime._handlers", "initial_budget_from_lease"),
    ("arcp._runtime._handlers", "validate_lease_constraints"),
    ("arcp._runtime._handlers", "validate_lease_shape"),
    ("arcp._runtime.job", "validate_lease_op"),
    ("arcp._runtime.server", "assert_lease_subset"),
    ("arcp._runtime.server", "validate_lease_op"),
    ("arcp.runtime", "assert_lease_subset"),
    ("arcp.runtime", "initial_budget_from_lease"),
    ("arcp.runtime", "is_lease_subset"),
    ("arcp.runtime", "validate_lease_constraints"),
    ("arcp.runtime", "validate_lease_op"),
    ("arcp.runtime", "validate_lease_shape"),
    (_EXECUTION_MODULE, "parse_budget_amount"),
    ("arcp", "parse_budget_amount"),
)

#: Methods replaced with ``guard=True``: (module, class, attribute).
_GUARD_METHODS: Tuple[Tuple[str, str, str], ...] = (
    ("arcp._runtime.job", "JobContext", "authorize"),
    ("arcp._runtime.job", "JobContext", "authorize_model"),
    ("arcp._runtime.job", "Job", "apply_cost_metric"),
)
#: Replaced with ``delegation=True``.
_DELEGATION_SITES: Tuple[Tuple[str, str], ...] = (
    ("arcp._runtime._handlers", "_build_job_and_accept"),
    ("arcp._runtime.server", "ARCPRuntime._run_job"),
)

_GUARD_ATTR = "_leasekit_guard"


class SdkLayoutError(RuntimeError):
    """The installed SDK is not a version or layout this module knows; nothing was changed."""


class _State:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.options: Optional[Tuple[bool, bool]] = None
        # (owner object, attribute, original value, replacement)
        self.patches: List[Tuple[Any, str, Any, Any]] = []


_STATE = _State()


def installed() -> bool:
    """Whether :func:`install` is active."""
    return _STATE.options is not None


def _sdk_version() -> str:
    try:
        return metadata.version(SDK_DISTRIBUTION)
    except metadata.PackageNotFoundError:
        raise SdkLayoutError(f"the ARCP SDK ({SDK_DISTRIBUTION}) is not installed") from None


def _module(name: str) -> Any:
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        raise SdkLayoutError(f"SDK module {name} cannot be imported: {exc}") from None


def _originals() -> Dict[str, Any]:
    out = {}
    for name, home in _HOMES.items():
        fn = getattr(_module(home), name, None)
        if not callable(fn) or getattr(fn, "__module__", None) != home:
            raise SdkLayoutError(f"{home}.{name} is not the SDK's own function (found {fn!r})")
        out[name] = fn
    return out


def _plan_sites(originals: Dict[str, Any]) -> List[Tuple[Any, str, Any, Any]]:
    plan = []
    for mod_name, name in SITES:
        mod = _module(mod_name)
        held = getattr(mod, name, None)
        if held is not originals[name]:
            raise SdkLayoutError(f"{mod_name}.{name} does not hold the SDK's {name} (found {held!r})")
        plan.append((mod, name, held, getattr(arcp_compat, name)))
    # A module global this table does not know would keep the SDK's function: refuse.
    known = {(m, n) for m, n in SITES}
    wanted = {id(fn): name for name, fn in originals.items()}
    for mod_name, mod in list(sys.modules.items()):
        if mod is None or not (mod_name == "arcp" or mod_name.startswith("arcp.")):
            continue
        for attr, value in list(vars(mod).items()):
            if id(value) in wanted and (mod_name, attr) not in known:
                raise SdkLayoutError(f"{mod_name}.{attr} holds the SDK's {wanted[id(value)]}: unknown site")
    return plan


def _plan_methods(replacements: Dict[str, Callable[..., Any]]) -> List[Tuple[Any, str, Any, Any]]:
    plan = []
    for mod_name, cls_name, attr in _GUARD_METHODS:
        cls = getattr(_module(mod_name), cls_name, None)
        held = vars(cls).get(attr) if isinstance(cls, type) else None
        if not callable(held) or getattr(held, "__module__", None) != mod_name:
            raise SdkLayoutError(f"{mod_name}.{cls_name}.{attr} is not the SDK's own method")
        plan.append((cls, attr, held, replacements[attr]))
    return plan


def _plan_delegation() -> List[Tuple[Any, str, Any, Any]]:
    handlers = _module("arcp._runtime._handlers")
    build = getattr(handlers, "_build_job_and_accept", None)
    runtime_cls = getattr(_module("arcp._runtime.server"), "ARCPRuntime", None)
    run = vars(runtime_cls).get("_run_job") if isinstance(runtime_cls, type) else None
    for fn, where in ((build, _DELEGATION_SITES[0]), (run, _DELEGATION_SITES[1])):
        if not callable(fn) or not getattr(fn, "__module__", "").startswith("arcp._runtime."):
            raise SdkLayoutError(f"{'.'.join(where)} is not the SDK's own function")
    return [
        (handlers, "_build_job_and_accept", build, _delegating_build(build)),
        (runtime_cls, "_run_job", run, _closing_run(run)),
    ]


def install(guard: bool = True, *, delegation: bool = False) -> None:
    """Switch the installed ARCP SDK to leasekit (see the module documentation).

    Idempotent: a second call with the same options does nothing; with other options the
    previous installation is undone first. Raises :class:`SdkLayoutError`, changing nothing,
    when the SDK's version or layout is not the one this module knows.
    """
    if delegation and not guard:
        raise ValueError("delegation=True needs guard=True")
    with _STATE.lock:
        if _STATE.options == (guard, delegation):
            return
        version = _sdk_version()
        if version not in SUPPORTED_SDK_VERSIONS:
            raise SdkLayoutError(
                f"{SDK_DISTRIBUTION} {version} is not supported (known: {', '.join(SUPPORTED_SDK_VERSIONS)})"
            )
        if _STATE.options is not None:
            _undo()
        originals = _originals()
        plan = _plan_sites(originals)
        if guard:
            plan += _plan_methods(
                {
                    "authorize": _authorize,
                    "authorize_model": _authorize_model,
                    "apply_cost_metric": _apply_cost_metric,
                }
            )
        if delegation:
            plan += _plan_delegation()
        # Every check passed: apply.
        for owner, attr, _original, replacement in plan:
            setattr(owner, attr, replacement)
        _STATE.patches = plan
        _errors._class_for = sdk_error_class
        _STATE.options = (guard, delegation)


def uninstall() -> None:
    """Restore every site :func:`install` changed. Idempotent."""
    with _STATE.lock:
        _undo()


def _undo() -> None:
    for owner, attr, original, replacement in reversed(_STATE.patches):
        current = vars(owner).get(attr) if isinstance(owner, type) else getattr(owner, attr, None)
        if current is replacement:
            setattr(owner, attr, original)
    _STATE.patches = []
    _errors._class_for = None
    _STATE.options = None


# ---- the guard behind JobContext / Job ------------------------------------------------------


def guard_for(job: Any) -> Any:
    """The job's :class:`leasekit.LeaseGuard` (built on first use from its lease and constraints)."""
    g = job.__dict__.get(_GUARD_ATTR)
    if g is None:
        try:
            g = _lk.LeaseGuard(
                arcp_compat._plain_lease(job.lease), arcp_compat._constraints(job.lease_constraints)
            )
        except _lk.LeaseError as exc:
            raise to_sdk_error(exc) from None
        g = job.__dict__.setdefault(_GUARD_ATTR, g)
    return g


def _raise_sdk(exc: _lk.LeaseError, capability: str, target: str) -> NoReturn:
    if isinstance(exc, _lk.LeaseExpired):
        raise arcp_compat._reworded(exc, "lease has expired") from None
    if isinstance(exc, _lk.PermissionDenied):
        raise arcp_compat._reworded(exc, f"operation {capability}:{target} not permitted by lease") from None
    if isinstance(exc, _lk.BudgetExhausted):
        currency = exc.details.get("currency", "")
        raise arcp_compat._reworded(exc, f"budget for {currency} exhausted") from None
    raise to_sdk_error(exc) from None


def _check_now(g: Any, now: Optional[datetime]) -> None:
    """The SDK's ``now`` test seam: an expiry at or before ``now`` also denies."""
    if now is None:
        return
    expires_at = g.expires_at
    if expires_at is not None and now >= expires_at:
        raise sdk_error_class("LEASE_EXPIRED")("lease has expired")


def _check_job_budget(job: Any) -> None:
    """Keep the SDK's own rule on ``job.budget`` (a counter at or below zero denies)."""
    if "cost.budget" in job.lease:
        for currency, remaining in job.budget.items():
            if remaining <= 0:
                raise sdk_error_class("BUDGET_EXHAUSTED")(
                    f"budget for {currency} exhausted (remaining={remaining})", details={"currency": currency}
                )


def _authorize(
    self: Any,
    capability: str,
    target: str,
    *,
    cost: Optional[Dict[str, Decimal]] = None,
    now: Optional[datetime] = None,
) -> str:
    """Authorize through the job's guard; returns the canonical target to operate on."""
    g = guard_for(self.job)
    _check_now(g, now)
    try:
        result: str = g.authorize(capability, target)
    except _lk.LeaseError as exc:
        _raise_sdk(exc, capability, target)
    _check_job_budget(self.job)
    return result


def _authorize_model(self: Any, model_id: str, *, now: Optional[datetime] = None) -> str:
    """Authorize ``model_id`` (``model.use``) through the job's guard, budget included."""
    g = guard_for(self.job)
    _check_now(g, now)
    try:
        result: str = g.authorize_model(model_id)
    except _lk.LeaseError as exc:
        _raise_sdk(exc, "model.use", model_id)
    _check_job_budget(self.job)
    return result


def _decimal(value: Any) -> Decimal:
    """The SDK's conversion (``Decimal(str(value))``), refusing NaN and infinities."""
    try:
        delta = value if isinstance(value, Decimal) else Decimal(str(value))
    except (InvalidOperation, ValueError):
        raise sdk_error_class("INVALID_REQUEST")(f"metric value is not a number: {value!r}") from None
    if not delta.is_finite():
        raise sdk_error_class("INVALID_REQUEST")(f"metric value is not finite: {value!r}")
    return delta


def _apply_cost_metric(self: Any, name: str, value: Any, unit: Optional[str]) -> Optional[Decimal]:
    """Charge a ``cost.*`` metric to the job's guard; ``job.budget`` mirrors its counters."""
    if not name.startswith("cost.") or unit is None:
        return None
    delta = _decimal(value)
    if delta < 0:
        return None
    g = guard_for(self)
    # A delegated child's guard also holds the parent's counters it shares (semantics 9):
    # spend in those currencies is charged to the parent.
    if unit not in self.budget and unit not in g.remaining():
        return None
    try:
        g.record_metric(name, delta, unit)
    except _lk.LeaseError as exc:
        raise to_sdk_error(exc) from None
    remaining = g.remaining()
    _mirror(self.__dict__.get("_leasekit_parent"))
    if unit not in self.budget:
        result: Decimal = remaining[unit]
        return result
    if unit in remaining:
        self.budget[unit] = remaining[unit]
    else:
        # A counter the lease does not hold (a hand-built Job): the SDK's own arithmetic.
        self.budget[unit] = self.budget[unit] - delta
    result = self.budget[unit]
    return result


# ---- delegation at submit -------------------------------------------------------------------


def _delegating_build(original: Callable[..., Any]) -> Callable[..., Any]:
    async def build(runtime: Any, ctx: Any, env: Any, submit: Any, name: str, version: Any) -> Any:
        parent = runtime._jobs.get(submit.parent_job_id) if submit.parent_job_id else None
        child_guard = None
        if parent is not None and parent.state in ("pending", "running"):
            try:
                child_guard = guard_for(parent).delegate(
                    arcp_compat._plain_lease(submit.lease_request),
                    arcp_compat._constraints(submit.lease_constraints),
                )
            except _lk.LeaseError as exc:
                raise to_sdk_error(exc) from None
            for currency, left in guard_for(parent).remaining().items():
                if currency in parent.budget:
                    parent.budget[currency] = left
        try:
            job, accept = await original(runtime, ctx, env, submit, name, version)
        except BaseException:
            if child_guard is not None:
                child_guard.close()
                _mirror(parent)
            raise
        if child_guard is not None:
            job.__dict__[_GUARD_ATTR] = child_guard
            job.__dict__["_leasekit_parent"] = parent
        return job, accept

    build.__module__ = __name__
    return build


def _mirror(job: Any) -> None:
    if job is None:
        return
    for currency, left in guard_for(job).remaining().items():
        if currency in job.budget:
            job.budget[currency] = left


def _closing_run(original: Callable[..., Any]) -> Callable[..., Any]:
    async def run_job(self: Any, job: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return await original(self, job, *args, **kwargs)
        finally:
            parent = job.__dict__.get("_leasekit_parent")
            if parent is not None:
                guard_for(job).close()
                _mirror(parent)

    run_job.__module__ = __name__
    return run_job
