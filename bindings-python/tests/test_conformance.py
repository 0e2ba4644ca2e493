"""Conformance runner: every vector in conformance/vectors (or $LEASEKIT_VECTORS) through the
public Python API, exactly as conformance/README.md prescribes. One pytest test per vector."""

from __future__ import annotations

import json
import os
import pathlib
from datetime import datetime, timezone
from decimal import Decimal
from typing import Any, Callable, Dict, List, Optional

import pytest

import leasekit as lk
from _governor_ops import equal_governor, op_frame_decode, op_governor

REPO = pathlib.Path(__file__).resolve().parents[2]


def _vector_dir() -> pathlib.Path:
    env = os.environ.get("LEASEKIT_VECTORS")
    return pathlib.Path(env) if env else REPO / "conformance" / "vectors"


def _load() -> List[Any]:
    params = []
    for path in sorted(_vector_dir().glob("*.json")):
        doc = json.loads(path.read_text(encoding="utf-8"))
        for i, vec in enumerate(doc["vectors"]):
            vid = f"{path.name}:{vec.get('id', i)}"
            params.append(pytest.param(vec, id=vid))
    return params


# A runner that runs nothing proves nothing: an empty directory yields one failing case.
VECTORS = _load() or [pytest.param(None, id="no-vectors")]


# ---------------------------------------------------------------- building inputs


def _lease(value: Any) -> lk.Lease:
    """Dicts go through the dict path; anything else through JSON text (core rejects it)."""
    if isinstance(value, dict):
        return lk.Lease(value)
    return lk.Lease.from_json(json.dumps(value))


# ---------------------------------------------------------------- ops


def op_capability_name(inp: Dict[str, Any]) -> Any:
    name = inp["name"]
    return {
        "valid": lk.is_valid_capability_name(name),
        "reserved": lk.is_reserved_capability_name(name),
    }


def op_validate_lease(inp: Dict[str, Any]) -> Any:
    _lease(inp["lease"])
    return "ok"


def op_canonicalize(inp: Dict[str, Any]) -> Any:
    return lk.canonicalize_target(inp["capability"], inp["target"])


def op_match(inp: Dict[str, Any]) -> Any:
    return lk.match_pattern(inp["capability"], inp["pattern"], inp["target"])


def op_subset(inp: Dict[str, Any]) -> Any:
    """Every input key but the two leases is a subset option, handed over exactly as the vector
    has it (amounts as strings, unknown keys included): the binding and core decide."""
    options = {k: v for k, v in inp.items() if k not in ("child", "parent")}
    return lk.is_lease_subset(_lease(inp["child"]), _lease(inp["parent"]), **options)


def op_budget_parse(inp: Dict[str, Any]) -> Any:
    entry = lk.parse_budget_amount(inp["entry"])
    return {"currency": entry.currency, "amount": entry.amount}


def op_budget_sum(inp: Dict[str, Any]) -> Any:
    return lk.sum_budget_entries(inp["entries"])


def op_expires_at(inp: Dict[str, Any]) -> Any:
    constraints = lk.LeaseConstraints(expires_at=inp["value"])
    lk.validate_lease_constraints(constraints, now=inp["now"])
    return "ok"


def _step(guard: lk.LeaseGuard, clock: lk.ManualClock, step: Dict[str, Any]) -> Any:
    if "at" in step:
        clock.set(step["at"])
    try:
        if "authorize" in step:
            cap, target = step["authorize"]
            guard.authorize(cap, target)
            return "ok"
        if "model" in step:
            guard.authorize_model(step["model"])
            return "ok"
        if "reserve" in step:
            cur, amount = step["reserve"]
            guard.reserve(cur, amount)
            return "ok"
        if "metric" in step:
            m = step["metric"]
            value = m["value"] if isinstance(m["value"], str) else json.dumps(m["value"])
            emitted = guard.record_metric(m["name"], value, m["unit"])
            return {
                "remaining": guard.remaining(),
                "emitted": [e.to_dict() for e in emitted],
            }
    except lk.LeaseError as e:
        return {"error": e.code}
    raise AssertionError(f"unknown step {step!r}")


def op_authorize(inp: Dict[str, Any]) -> Any:
    lease = _lease(inp["lease"])
    constraints = inp.get("constraints")
    clock = lk.ManualClock(datetime.now(timezone.utc))
    guard = lk.LeaseGuard(lease, constraints, clock=clock)
    return [_step(guard, clock, s) for s in inp["steps"]]


def op_narrow(inp: Dict[str, Any]) -> Any:
    return lk.narrow_lease(_lease(inp["requested"]), _lease(inp["ceiling"])).lease.to_dict()


def op_agentfile(inp: Dict[str, Any]) -> Any:
    report = lk.check_agentfile(inp["text"], compat=bool(inp.get("compat", False)))
    lease = report["lease"]
    return {
        "ok": report["ok"],
        "errors": sorted({d["code"] for d in report["diagnostics"] if d["severity"] == "error"}),
        "lease": lease.to_dict() if lease is not None else None,
    }


OPS: Dict[str, Callable[[Dict[str, Any]], Any]] = {
    "capability_name": op_capability_name,
    "validate_lease": op_validate_lease,
    "canonicalize": op_canonicalize,
    "match": op_match,
    "subset": op_subset,
    "budget_parse": op_budget_parse,
    "budget_sum": op_budget_sum,
    "expires_at": op_expires_at,
    "authorize": op_authorize,
    "narrow": op_narrow,
    "agentfile": op_agentfile,
    "governor": op_governor,
    "frame_decode": op_frame_decode,
}


# ---------------------------------------------------------------- comparing


def _dec_map_equal(got: Dict[str, Any], want: Dict[str, Any]) -> bool:
    return set(got) == set(want) and all(Decimal(str(got[k])) == Decimal(want[k]) for k in want)


def _lease_equal(got: Dict[str, List[str]], want: Dict[str, List[str]]) -> bool:
    if set(got) != set(want):
        return False
    for cap, patterns in want.items():
        if cap == "cost.budget":
            if lk.sum_budget_entries(got[cap]) != lk.sum_budget_entries(patterns):
                return False
        elif set(got[cap]) != set(patterns):
            return False
    return True


def _metric_result_equal(got: Any, want: Any) -> bool:
    if not isinstance(want, dict) or "remaining" not in want:
        return bool(got == want)
    if not isinstance(got, dict) or "remaining" not in got:
        return False
    if not _dec_map_equal(got["remaining"], want["remaining"]):
        return False
    ge, we = got["emitted"], want["emitted"]
    return len(ge) == len(we) and all(
        g["name"] == w["name"] and g["unit"] == w["unit"] and Decimal(str(g["value"])) == Decimal(w["value"])
        for g, w in zip(ge, we)
    )


def _equal(op: str, got: Any, want: Any) -> bool:
    if op == "governor":
        return equal_governor(got, want)
    if op == "budget_parse":
        return got["currency"] == want["currency"] and got["amount"] == Decimal(want["amount"])
    if op == "budget_sum":
        return _dec_map_equal(got, want)
    if op == "narrow":
        return _lease_equal(got, want)
    if op == "authorize":
        return isinstance(want, list) and len(got) == len(want) and all(
            _metric_result_equal(g, w) for g, w in zip(got, want)
        )
    if op == "agentfile":
        for key in want:
            if key == "errors":
                if set(got["errors"]) != set(want["errors"]):
                    return False
            elif key == "lease":
                if got["lease"] is None or not _lease_equal(got["lease"], want["lease"]):
                    return False
            elif got.get(key) != want[key]:
                return False
        return True
    return bool(got == want)


def _is_error(expect: Any) -> bool:
    return isinstance(expect, dict) and set(expect) == {"error"}


@pytest.mark.parametrize("vector", VECTORS)
def test_vector(vector: Optional[Dict[str, Any]]) -> None:
    """Run one vector; an error expectation passes only with that exact code."""
    assert vector is not None, f"no vectors in {_vector_dir()}"
    op, inp, expect = vector["op"], vector["input"], vector["expect"]
    run = OPS.get(op)
    assert run is not None, f"unknown op {op!r}"
    try:
        got = run(inp)
    except lk.LeaseError as e:
        assert _is_error(expect), f"unexpected {e.code}: {e.message}; expected {expect!r}"
        assert e.code == expect["error"], f"got {e.code} ({e.message}), expected {expect['error']}"
        return
    assert not _is_error(expect), f"expected error {expect['error']}, got {got!r}"
    assert _equal(op, got, expect), f"got {got!r}, expected {expect!r}"
