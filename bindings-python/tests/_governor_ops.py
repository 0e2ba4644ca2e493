"""Conformance ops ``governor`` and ``frame_decode`` of the Python runner (docs/governor.md,
conformance/README.md): every step goes through ``leasekit.Governor``."""

from __future__ import annotations

import json
import os
import tempfile
from decimal import Decimal, InvalidOperation
from typing import Any, Dict, List, Optional

import leasekit as lk


def _open(inp: Dict[str, Any], store: str, time: Any) -> lk.Governor:
    options = inp.get("options", {})
    if isinstance(options, dict):
        options = {**options, "manualClock": time, "ids": "deterministic"}
    return lk.Governor.open(store, inp.get("policy", {}), options)


def op_governor(inp: Dict[str, Any]) -> Any:
    kind = inp.get("store", "memory")
    if kind not in ("memory", "sqlite"):
        raise AssertionError(f"unknown store {kind!r}")
    with tempfile.TemporaryDirectory(prefix="leasekit-py-gov-") as tmp:
        store = os.path.join(tmp, "gov.db") if kind == "sqlite" else "memory"
        gov: Optional[lk.Governor] = _open(inp, store, inp["start"])
        out: List[Any] = []
        try:
            for step in inp["steps"]:
                assert gov is not None
                at = step.get("at")
                if isinstance(at, str) and at.startswith("+"):
                    gov.advance_time(int(at[1:]))
                elif at is not None:
                    gov.set_time(at)
                if "restart" in step:
                    assert kind == "sqlite", "restart needs store sqlite"
                    now = gov.time()
                    gov.close()
                    gov = None
                    gov = _open(inp, store, now)
                    out.append("ok")
                elif "verify_audit" in step:
                    out.append(gov.verify_audit())
                else:
                    payload = step.get("payload", {})
                    text = payload if isinstance(payload, str) else json.dumps(payload)
                    env = json.loads(gov.handle(step["command"], text))
                    if env["success"]:
                        out.append(json.loads(env["payloadJson"]))
                    else:
                        out.append({"success": False, "error": env["error"]})
        finally:
            if gov is not None:
                gov.close()
    return out


def op_frame_decode(inp: Dict[str, Any]) -> Any:
    return {"command": lk.decode_frame(bytes.fromhex(inp["hex"]))["command"]}


def _dec(text: str) -> Optional[Decimal]:
    try:
        return Decimal(text)
    except InvalidOperation:
        return None


def _set(patterns: Any) -> Any:
    return {json.dumps(p) for p in patterns} if isinstance(patterns, list) else None


def _lease_sets(want: Any, got: Any) -> bool:
    if not isinstance(want, dict) or not isinstance(got, dict):
        return bool(want == got)
    return set(want) == set(got) and all(_set(want[k]) == _set(got[k]) for k in want)


def _partial(want: Any, got: Any) -> bool:
    """Keys present in ``want`` only, recursively; lists whole; numbers as numbers; strings equal
    or equal as decimals; ``effectiveLease`` pattern lists as sets."""
    if isinstance(want, dict) and isinstance(got, dict):
        return all(
            k in got and (_lease_sets(v, got[k]) if k == "effectiveLease" else _partial(v, got[k]))
            for k, v in want.items()
        )
    if isinstance(want, list) and isinstance(got, list):
        return len(want) == len(got) and all(_partial(w, g) for w, g in zip(want, got))
    if isinstance(want, bool) or isinstance(got, bool):
        return want is got
    if isinstance(want, (int, float)) and isinstance(got, (int, float)):
        return float(want) == float(got)
    if isinstance(want, str) and isinstance(got, str):
        if want == got:
            return True
        a, b = _dec(want), _dec(got)
        return a is not None and b is not None and a.is_finite() and b.is_finite() and a == b
    return bool(want == got)


def equal_governor(got: Any, want: Any) -> bool:
    """One expect entry per step; ``{"success": False}`` matches a failed command and only that."""
    if not isinstance(want, list) or not isinstance(got, list) or len(want) != len(got):
        return False
    for w, g in zip(want, got):
        failed = isinstance(g, dict) and g.get("success") is False
        wants_failure = isinstance(w, dict) and w.get("success") is False
        if failed != wants_failure or not _partial(w, g):
            return False
    return True
