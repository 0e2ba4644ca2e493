"""The MCP guard for the Python ``mcp`` SDK (docs/mcp.md): an Agentfile (or a lease) enforced
on every tool call a ``mcp.ClientSession`` makes, decided by leasekit's core before the server
sees anything.

    from leasekit.mcp import guard_session
    guarded = guard_session(session, agentfile="Agentfile")
    result = await guarded.call_tool("read_text_file", {"path": "/srv/data/a.txt"})

``call_tool`` is allowed only when the lease's ``tool.call`` covers ``mcp:<server>.<tool>``
and every path or URL argument the argument map names passes ``authorize`` for its
capability; the server then receives the canonical targets (symlinks resolved). A denial
never reaches the server: ``call_tool`` returns a ``CallToolResult`` with ``is_error=True``
whose text names the ARCP code and the reason (``result.meta["leasekit"]`` holds both).
``list_tools`` hides the tools the lease does not allow, ``read_resource`` authorizes
``file://`` URIs as ``fs.read`` and ``http(s)://`` as ``net.fetch`` (a denial raises the
``LeaseError`` of its code). Every other attribute is the wrapped session's.

The ``mcp`` package is not a dependency of leasekit: this module imports it only to build the
denial results.
"""

from __future__ import annotations

import json
import logging
import os
from typing import Any, Dict, Mapping, Optional, Union

from ._errors import ERROR_CLASSES, InternalError, InvalidRequest
from ._native import McpGuardCore as _Core

__all__ = ["McpGuard", "GuardedClientSession", "guard_session"]

_log = logging.getLogger("leasekit.mcp")

#: A path to a file.
PathLike = Union[str, "os.PathLike[str]"]
#: A JSON object: a mapping or JSON text.
JsonLike = Union[Mapping[str, Any], str]


def _json_text(value: Any, what: str) -> str:
    try:
        return json.dumps(value, allow_nan=False, separators=(",", ":"))
    except (TypeError, ValueError, RecursionError) as e:
        raise InvalidRequest(f"{what} is not JSON data: {e}") from None


def _emit(lines: Any) -> None:
    for line in lines or ():
        _log.info("%s", line)


class McpGuard:
    """The decision function over one MCP server's calls (core's MCP guard, the one
    ``leasekit mcp-guard`` runs). Safe to share between threads and sessions.

    Give exactly one of ``agentfile`` (a path), ``agentfile_text`` or ``lease`` (a mapping,
    JSON text or ``leasekit.Lease``). ``server`` is the NAME of ``TOOL mcp:NAME.<tool>``
    (default: the Agentfile's one ``MCP`` line; required with a lease). ``args_map`` adds
    argument maps to the built-in ones (docs/mcp.md), ``strict`` refuses tools with no map,
    ``monitor`` logs (logger ``leasekit.mcp``) what would be denied and allows it, ``audit``
    appends every decision to a JSONL chain that ``leasekit audit verify`` accepts, and
    ``governor`` (a ``leasekit serve`` socket path, or a mapping ``{"socket", "actor",
    "workspace", "org"}``) makes every allowed call an Acquire and a Release. Bad input is
    ``InvalidRequest``.
    """

    __slots__ = ("_core",)

    def __init__(
        self,
        *,
        agentfile: Optional[PathLike] = None,
        agentfile_text: Optional[str] = None,
        lease: Any = None,
        server: Optional[str] = None,
        args_map: Optional[JsonLike] = None,
        strict: bool = False,
        monitor: bool = False,
        audit: Optional[PathLike] = None,
        governor: Union[PathLike, Mapping[str, Any], None] = None,
    ) -> None:
        config: Dict[str, Any] = {"strict": bool(strict), "monitor": bool(monitor)}
        if agentfile is not None:
            with open(os.fspath(agentfile), encoding="utf-8") as f:
                config["agentfile"] = f.read()
        if agentfile_text is not None:
            if "agentfile" in config:
                raise InvalidRequest("give one of agentfile and agentfile_text")
            config["agentfile"] = agentfile_text
        if lease is not None:
            to_json = getattr(lease, "to_json", None)
            config["lease"] = to_json() if callable(to_json) else lease
        if server is not None:
            config["server"] = server
        if args_map is not None:
            config["argsMap"] = args_map
        if audit is not None:
            config["audit"] = os.fspath(audit)
        if governor is not None:
            if isinstance(governor, Mapping):
                config["governor"] = dict(governor)
            else:
                config["governor"] = {"socket": os.fspath(governor)}
        self._core = _Core(_json_text(config, "the MCP guard configuration"))

    @property
    def server(self) -> str:
        """The server name calls are checked against (``mcp:<server>.<tool>``)."""
        return str(self._core.server)

    def decide_call(self, name: Any, arguments: Any = None, meta: Any = None) -> Dict[str, Any]:
        """The decision on one ``tools/call``: ``{"decision": "allow", "callId", "params"}``
        (``params`` carries the canonical arguments; report the call's end with
        :meth:`finish_call`) or ``{"decision": "deny", "code", "reason", "result"}``
        (``result``, the ``CallToolResult`` to answer, in MCP's JSON shape). Arguments that are
        not JSON data raise ``InvalidRequest``; malformed ones are a denial. ``meta`` is the
        request's ``_meta``: its ``"leasekit/approvalToken"`` goes to the governor's Acquire
        and is removed from ``params["_meta"]``."""
        params: Dict[str, Any] = {"name": name}
        if arguments is not None:
            params["arguments"] = arguments
        if meta is not None:
            params["_meta"] = dict(meta)
        answer: Dict[str, Any] = self._core.decide_call(_json_text(params, "the tool call"))
        _emit(answer.pop("log", None))
        return answer

    def finish_call(self, call_id: int, outcome: str) -> None:
        """Reports the end of an allowed call (``success``, ``toolError``, ``error`` or
        ``cancelled``): the governor's Release and the audit record."""
        _emit(self._core.finish_call(call_id, outcome))

    def allowed_tools(self, names: Any) -> "list[str]":
        """Of ``names``, the tools the lease allows (all of them under ``monitor``)."""
        listing = {"tools": [{"name": n} for n in names]}
        answer = self._core.filter_tools(_json_text(listing, "the tool names"))
        _emit(answer.get("log"))
        tools = (answer.get("result") or {}).get("tools") or []
        return [t["name"] for t in tools]

    def decide_resource(self, uri: str) -> str:
        """The URI to read for ``resources/read`` (canonical for ``file://`` and
        ``http(s)://``); a denial raises the ``LeaseError`` of its code."""
        answer = self._core.decide_resource(str(uri))
        _emit(answer.get("log"))
        if answer.get("decision") == "allow":
            return str(answer["uri"])
        cls = ERROR_CLASSES.get(str(answer.get("code")), InternalError)
        raise cls(str(answer.get("reason", "")))


def _cancelled_class() -> Any:
    try:
        import anyio

        return anyio.get_cancelled_exc_class()
    except Exception:  # no anyio, or not inside an async library's context
        import asyncio

        return asyncio.CancelledError


class GuardedClientSession:
    """A ``mcp.ClientSession`` (or any object with its ``call_tool``/``list_tools``/
    ``read_resource``) behind an :class:`McpGuard`. Every other attribute is the session's."""

    __slots__ = ("_session", "_guard")

    def __init__(self, session: Any, guard: McpGuard) -> None:
        self._session = session
        self._guard = guard

    @property
    def session(self) -> Any:
        """The wrapped session."""
        return self._session

    @property
    def guard(self) -> McpGuard:
        """The guard."""
        return self._guard

    def __getattr__(self, name: str) -> Any:
        return getattr(self._session, name)

    async def call_tool(self, name: str, arguments: Any = None, *args: Any, **kwargs: Any) -> Any:
        """Decides the call, then forwards it with the canonical arguments (other arguments
        pass unchanged); a denial is returned as a ``CallToolResult`` with ``is_error=True``
        and never reaches the server. An approval token in ``meta={"leasekit/approvalToken":
        token}`` goes to the governor and is removed from the ``meta`` the server gets."""
        meta = kwargs.get("meta")
        decision = self._guard.decide_call(name, arguments, meta)
        if decision.get("decision") != "allow":
            from mcp.types import CallToolResult

            return CallToolResult.model_validate(decision["result"])
        params = decision["params"]
        if meta is not None:
            # Without the approval token (the guard removed it; the server never sees it).
            kwargs["meta"] = params.get("_meta")
        call_id = int(decision["callId"])
        outcome = "error"
        try:
            result = await self._session.call_tool(
                params["name"], params.get("arguments"), *args, **kwargs
            )
            outcome = "toolError" if getattr(result, "is_error", False) else "success"
            return result
        except BaseException as e:
            if isinstance(e, _cancelled_class()):
                outcome = "cancelled"
            raise
        finally:
            self._guard.finish_call(call_id, outcome)

    async def list_tools(self, *args: Any, **kwargs: Any) -> Any:
        """The session's ``list_tools`` result without the tools the lease does not allow."""
        result = await self._session.list_tools(*args, **kwargs)
        allowed = set(self._guard.allowed_tools([t.name for t in result.tools]))
        return result.model_copy(update={"tools": [t for t in result.tools if t.name in allowed]})

    async def read_resource(self, uri: Any, *args: Any, **kwargs: Any) -> Any:
        """Authorizes ``uri`` (a denial raises the ``LeaseError`` of its code), then reads
        the canonical URI."""
        return await self._session.read_resource(self._guard.decide_resource(str(uri)), *args, **kwargs)


def guard_session(session: Any, guard: Optional[McpGuard] = None, **options: Any) -> GuardedClientSession:
    """``session`` behind ``guard``, or behind ``McpGuard(**options)``."""
    if guard is None:
        guard = McpGuard(**options)
    elif options:
        raise InvalidRequest("give a guard or its options, not both")
    return GuardedClientSession(session, guard)
