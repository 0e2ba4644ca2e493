"""The governor (docs/governor.md): LeaseGate's admission protocol, embedded over an in-memory
or SQLite store (``Governor``) or behind a ``leasekit serve`` daemon's socket
(``GovernorClient``, docs/daemon.md).

``Governor.open(store, policy, options=None)`` opens one and
``GovernorClient.connect(socket)`` reaches a daemon; both have the same typed methods
(``GovernorMethods``). They take a request as a
mapping in the protocol's field names (``{"actorId": "alice"}``) and/or as snake_case keyword
arguments (``actor_id="alice"``), and answer the response as a dict in the protocol's field
names (``resp["granted"]``, ``resp["leaseId"]``). Every shape is core's; a field the request
does not have is ``InvalidRequest`` (a misspelt field never silently takes its default).
``handle(command, payload_json)`` is the wire dispatcher: JSON text in, the response envelope
JSON text out, unknown fields ignored as the protocol does.
"""

from __future__ import annotations

import os
from datetime import datetime
import math
from typing import Any, Dict, Mapping, Optional, Union

from ._errors import InvalidRequest
from ._native import GovernorClientCore as _ClientCore
from ._native import GovernorCore as _Core
from ._native import decode_frame

__all__ = ["Governor", "GovernorClient", "GovernorMethods", "decode_frame"]

#: A store: ``"memory"``, ``"sqlite:PATH"`` or a SQLite file path.
StoreLike = Union[str, "os.PathLike[str]"]
#: A policy or options object: a mapping, JSON text, or None for ``{}``.
JsonLike = Union[Mapping[str, Any], str, None]


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(p[:1].upper() + p[1:] for p in rest)


def _payload(request: Optional[Mapping[str, Any]], fields: Mapping[str, Any]) -> Dict[str, Any]:
    body: Dict[str, Any] = dict(request) if request is not None else {}
    for key, value in fields.items():
        body[_camel(key)] = value
    return body


class GovernorMethods:
    """The typed methods shared by :class:`Governor` (embedded) and :class:`GovernorClient`
    (a daemon): one table, so a program switches between them by its constructor. Each takes a
    request as a mapping in the protocol's field names and/or snake_case keyword arguments and
    answers the response payload as a dict; a field the request does not have, or an unknown
    command, is ``InvalidRequest``."""

    __slots__ = ()
    _core: Any

    # ------------------------------------------------------------------ wire form

    def handle(self, command: str, payload_json: str = "{}") -> str:
        """The wire dispatcher: the response envelope
        ``{"protocolVersion","success","payloadJson","error"}`` as JSON text (unknown payload
        fields ignored, as the protocol does; a refused command is ``success: false``)."""
        return self._core.handle(command, payload_json)

    def call(self, command: str, request: Optional[Mapping[str, Any]] = None, /, **fields: Any) -> Dict[str, Any]:
        """Run any command strictly (unknown command or field: ``InvalidRequest``)."""
        return self._core.call(command, _payload(request, fields))

    # ------------------------------------------------------------------ typed commands

    # BEGIN generated (scripts/gen-governor-methods.py)
    def acquire(self, request: Optional[Mapping[str, Any]] = None, /, **fields: Any) -> Dict[str, Any]:
        """``Acquire``: a grant (``granted``, ``leaseId``, ``expiresAtUtc``, ``constraints``) or a
        denial (``deniedReason``, ``retryAfterMs``, ``recommendation``)."""
        return self._core.call("Acquire", _payload(request, fields))

    def release(self, request: Optional[Mapping[str, Any]] = None, /, **fields: Any) -> Dict[str, Any]:
        """``Release``: the actuals of a granted lease in; ``classification`` and the ``receipt``
        out."""
        return self._core.call("Release", _payload(request, fields))

    def request_approval(self, request: Optional[Mapping[str, Any]] = None, /, **fields: Any) -> Dict[str, Any]:
        """``RequestApproval``: asks for an approval."""
        return self._core.call("RequestApproval", _payload(request, fields))

    def grant_approval(self, request: Optional[Mapping[str, Any]] = None, /, **fields: Any) -> Dict[str, Any]:
        """``GrantApproval``: grants an approval (its token is in the answer)."""
        return self._core.call("GrantApproval", _payload(request, fields))

    def deny_approval(self, request: Optional[Mapping[str, Any]] = None, /, **fields: Any) -> Dict[str, Any]:
        """``DenyApproval``: denies an approval."""
        return self._core.call("DenyApproval", _payload(request, fields))

    def list_pending_approvals(self, request: Optional[Mapping[str, Any]] = None, /, **fields: Any) -> Dict[str, Any]:
        """``ListPendingApprovals``: the pending approvals, oldest first, one page (``limit``,
        ``afterApprovalId``) at a time."""
        return self._core.call("ListPendingApprovals", _payload(request, fields))

    def review_approval(self, request: Optional[Mapping[str, Any]] = None, /, **fields: Any) -> Dict[str, Any]:
        """``ReviewApproval``: one reviewer's decision (quorum; a requester cannot review their own
        approval)."""
        return self._core.call("ReviewApproval", _payload(request, fields))

    def metrics(self) -> Dict[str, Any]:
        """``GetMetrics``: active leases, spend today, pool utilization, grants and denials by
        reason."""
        return self._core.call("GetMetrics", None)

    def status(self) -> Dict[str, Any]:
        """``GetStatus``: health, the store, active leases, pending approvals, spend today, the
        policy version and the audit chain length."""
        return self._core.call("GetStatus", None)

    def export_diagnostics(self, request: Optional[Mapping[str, Any]] = None, /, **fields: Any) -> Dict[str, Any]:
        """``ExportDiagnostics``: the diagnostics document (inline)."""
        return self._core.call("ExportDiagnostics", _payload(request, fields))

    def export_runaway_report(self, request: Optional[Mapping[str, Any]] = None, /, **fields: Any) -> Dict[str, Any]:
        """``ExportRunawayReport``: the runaway report (inline)."""
        return self._core.call("ExportRunawayReport", _payload(request, fields))

    def stage_policy_bundle(self, request: Optional[Mapping[str, Any]] = None, /, **fields: Any) -> Dict[str, Any]:
        """``StagePolicyBundle``: stages a signed or unsigned policy bundle (a refused one is
        ``accepted: false``)."""
        return self._core.call("StagePolicyBundle", _payload(request, fields))

    def activate_policy(self, request: Optional[Mapping[str, Any]] = None, /, **fields: Any) -> Dict[str, Any]:
        """``ActivatePolicy``: activates a staged policy."""
        return self._core.call("ActivatePolicy", _payload(request, fields))

    def request_tool_sub_lease(self, request: Optional[Mapping[str, Any]] = None, /, **fields: Any) -> Dict[str, Any]:
        """``RequestToolSubLease``: a tool sub-lease under a granted lease."""
        return self._core.call("RequestToolSubLease", _payload(request, fields))

    def execute_tool_call(self, request: Optional[Mapping[str, Any]] = None, /, **fields: Any) -> Dict[str, Any]:
        """``ExecuteToolCall``: authorizes a tool call against its sub-lease and accounts for it."""
        return self._core.call("ExecuteToolCall", _payload(request, fields))

    def authorize(self, request: Optional[Mapping[str, Any]] = None, /, **fields: Any) -> Dict[str, Any]:
        """``Authorize``: a capability and target against a granted lease's effective lease."""
        return self._core.call("Authorize", _payload(request, fields))

    def export_audit(self, request: Optional[Mapping[str, Any]] = None, /, **fields: Any) -> Dict[str, Any]:
        """``ExportAudit``: audit records (``fromLine``/``toLine``, 1-based, inclusive; none: the
        whole chain) as ``{records: [...], nextLine?}``: at most 10 000 per call, ``nextLine`` when
        more remain (admin uids behind the daemon)."""
        return self._core.call("ExportAudit", _payload(request, fields))

    def verify_audit(self, request: Optional[Mapping[str, Any]] = None, /, **fields: Any) -> Dict[str, Any]:
        """``VerifyAudit``: verifies the store's audit chain (or the given ``records``): ``ok``,
        ``records``, ``firstBadLine`` (admin uids behind the daemon)."""
        return self._core.call("VerifyAudit", _payload(request, fields))

    def rollback_policy(self, request: Optional[Mapping[str, Any]] = None, /, **fields: Any) -> Dict[str, Any]:
        """``RollbackPolicy``: re-activates an earlier activated policy by its ``version`` (an
        unknown version is ``activated: false``)."""
        return self._core.call("RollbackPolicy", _payload(request, fields))

    def record_decision(self, request: Optional[Mapping[str, Any]] = None, /, **fields: Any) -> Dict[str, Any]:
        """``RecordDecision``: appends a guard's decision (allowed, denied, by which rule) to the
        audit chain as this caller's ``guard_decision`` record."""
        return self._core.call("RecordDecision", _payload(request, fields))
    # END generated


class Governor(GovernorMethods):
    """An embedded governor. Safe to share between threads (calls release the GIL); use it as a
    context manager or call :meth:`close`."""

    __slots__ = ("_core",)

    def __init__(self, core: _Core) -> None:
        """Use :meth:`open`."""
        self._core = core

    @classmethod
    def open(cls, store: StoreLike, policy: JsonLike = None, options: JsonLike = None) -> "Governor":
        """Open a governor on ``store`` (``"memory"``, ``"sqlite:PATH"`` or a path) with ``policy``
        (the policy JSON as a mapping or text; None: defaults). ``options``: the construction
        options (limits, ``allowedPublicKeysBase64``, ``requireSignedBundles``) plus
        ``synchronous`` (``"full"``, the default, or ``"normal"``) and, for tests,
        ``manualClock`` (an aware datetime or RFC 3339 string: a manual clock starting there)
        and ``ids`` (``"deterministic"``: ``lease-1``, ``approval-1``, ...). A reopened SQLite
        store keeps its leases, approvals, idempotency records, policy and audit chain."""
        return cls(_Core.open(store, policy, options))

    # ------------------------------------------------------------------ frames

    def handle_frame(self, frame: bytes) -> bytes:
        """One request frame (4-byte little-endian length + envelope JSON) in, the response
        frame out; a malformed frame is answered with a failure envelope."""
        return self._core.handle_frame(frame)

    # ------------------------------------------------------------------ clock, lifetime

    def set_time(self, time: Union[datetime, str]) -> None:
        """Set the manual clock (only for a governor opened with ``manualClock``)."""
        self._core.set_time(time)

    def advance_time(self, milliseconds: int) -> None:
        """Move the manual clock forward."""
        self._core.advance_time(milliseconds)

    def time(self) -> datetime:
        """The manual clock's time (aware UTC)."""
        return self._core.time()

    def close(self) -> None:
        """Close this governor (the store closes once no call is using it)."""
        self._core.close()

    @property
    def closed(self) -> bool:
        """True once closed."""
        return self._core.closed

    def __enter__(self) -> "Governor":
        return self

    def __exit__(self, *args: Any) -> bool:
        self.close()
        return False

    def __repr__(self) -> str:
        return f"<leasekit.Governor{' closed' if self.closed else ''}>"


class GovernorClient(GovernorMethods):
    """A governor behind a ``leasekit serve`` daemon, reached over its Unix socket, with the
    typed methods of :class:`Governor`. Safe to share between threads (connections are pooled
    and reused; calls release the GIL); use it as a context manager or call :meth:`close`.

    An answer with ``success: false`` raises (``PermissionDenied`` for an admin command from a
    non-admin uid, else ``InternalError`` with ``details["reason"] == "daemon_error"``); an
    unreachable daemon raises ``InternalError`` (``"daemon_unreachable"``), except ``acquire``
    under a fallback mode, decided by SEMANTICS 13.13's local rules (``degradedMode: True``,
    ``local-`` lease ids, released locally)."""

    __slots__ = ("_core",)

    def __init__(self, core: _ClientCore) -> None:
        """Use :meth:`connect`."""
        self._core = core

    @classmethod
    def connect(
        cls,
        socket: Optional[StoreLike] = None,
        *,
        timeout: float = 10.0,
        fallback: str = "prod",
    ) -> "GovernorClient":
        """A client of the daemon at ``socket`` (None: ``$LEASEKIT_SOCKET``, else
        ``$XDG_RUNTIME_DIR/leasekit.sock``, else under the default state directory).
        ``timeout``: seconds allowed for one call (connect, send, answer; at most one day).
        ``fallback``: what ``acquire`` does when the daemon cannot be reached: ``"off"``
        (raise), ``"dev"`` or ``"prod"`` (13.13's local rules). Nothing is connected yet: the
        first call connects."""
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not math.isfinite(timeout):
            raise InvalidRequest("timeout must be a finite number of seconds", details={"timeout": repr(timeout)})
        if not isinstance(fallback, str):
            raise InvalidRequest("fallback must be \"off\", \"dev\" or \"prod\"", details={"fallback": repr(fallback)})
        options = {"timeoutMs": max(0, math.ceil(timeout * 1000)), "fallback": fallback}
        return cls(_ClientCore.connect(socket, options))

    @property
    def socket(self) -> str:
        """The socket path this client talks to."""
        return self._core.socket

    def close(self) -> None:
        """Close this client (its pooled connections close once no call is using them)."""
        self._core.close()

    @property
    def closed(self) -> bool:
        """True once closed."""
        return self._core.closed

    def __enter__(self) -> "GovernorClient":
        return self

    def __exit__(self, *args: Any) -> bool:
        self.close()
        return False

    def __repr__(self) -> str:
        return f"<leasekit.GovernorClient {self.socket!r}{' closed' if self.closed else ''}>"
