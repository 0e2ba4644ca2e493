"""Every string argument goes through one conversion (text.rs `str_of` / `Text`): a `str`
holding a lone surrogate has no UTF-8 form and is `InvalidRequest` everywhere, never a
`UnicodeEncodeError` and never replaced by U+FFFD (docs/decisions.md, "Text crossing a binding")."""

from __future__ import annotations

from typing import Any, Callable, List, Tuple

import pathlib

import pytest

import leasekit as lk

BAD = "/data/\ud800"  # a lone (high) surrogate
LOW = "x\udc00"  # a lone low surrogate

AGENTFILE = lk.parse_agentfile("AGENT x\n")
GUARD = lk.LeaseGuard({"fs.read": ["/data/**"], "model.use": ["gpt-*"], "cost.budget": ["USD:5"]})
LEASE = lk.Lease({"fs.read": ["/data/**"]})

# (name, call) for every public function and method that takes a string.
CALLS: List[Tuple[str, Callable[[], Any]]] = [
    ("is_valid_capability_name", lambda: lk.is_valid_capability_name(LOW)),
    ("is_reserved_capability_name", lambda: lk.is_reserved_capability_name(LOW)),
    ("canonicalize_target.capability", lambda: lk.canonicalize_target(LOW, "/a")),
    ("canonicalize_target.target", lambda: lk.canonicalize_target("fs.read", BAD)),
    ("validate_pattern.capability", lambda: lk.validate_pattern(LOW, "/a")),
    ("validate_pattern.pattern", lambda: lk.validate_pattern("fs.read", BAD)),
    ("match_pattern.capability", lambda: lk.match_pattern(LOW, "/a", "/a")),
    ("match_pattern.pattern", lambda: lk.match_pattern("fs.read", BAD, "/a")),
    ("match_pattern.target", lambda: lk.match_pattern("fs.read", "/**", BAD)),
    ("validate_lease_shape.dict key", lambda: lk.validate_lease_shape({LOW: ["/a"]})),
    ("validate_lease_shape.dict pattern", lambda: lk.validate_lease_shape({"fs.read": [BAD]})),
    ("validate_lease_shape.json", lambda: lk.validate_lease_shape('{"fs.read": ["' + BAD + '"]}')),
    ("Lease.dict", lambda: lk.Lease({"fs.read": [BAD]})),
    ("Lease.json", lambda: lk.Lease('{"fs.read": ["' + BAD + '"]}')),
    ("Lease.from_json", lambda: lk.Lease.from_json('{"fs.read": ["' + BAD + '"]}')),
    ("Lease.patterns", lambda: LEASE.patterns(LOW)),
    ("Lease.__contains__", lambda: LOW in LEASE),
    ("parse_budget_amount", lambda: lk.parse_budget_amount("USD:1" + LOW)),
    ("parse_amount", lambda: lk.parse_amount("1" + LOW)),
    ("format_amount", lambda: lk.format_amount("1" + LOW)),
    ("sum_budget_entries", lambda: lk.sum_budget_entries(["USD:1", LOW])),
    ("initial_budget", lambda: lk.initial_budget({"cost.budget": ["USD:1" + LOW]})),
    ("check_budget_remaining.key", lambda: lk.check_budget_remaining({LOW: "1"})),
    ("check_budget_remaining.amount", lambda: lk.check_budget_remaining({"USD": "1" + LOW})),
    ("parse_expires_at", lambda: lk.parse_expires_at("2030-01-01T00:00:00Z" + LOW)),
    ("LeaseConstraints", lambda: lk.LeaseConstraints(expires_at=LOW)),
    ("validate_lease_constraints", lambda: lk.validate_lease_constraints({"expires_at": LOW})),
    ("validate_lease_constraints.now", lambda: lk.validate_lease_constraints(None, now=LOW)),
    ("is_lease_subset.child", lambda: lk.is_lease_subset({"fs.read": [BAD]}, {"fs.read": ["/**"]})),
    ("is_lease_subset.remaining", lambda: lk.is_lease_subset({}, {}, parent_remaining={LOW: "1"})),
    ("check_lease_subset.constraints", lambda: lk.check_lease_subset({}, {}, child_constraints=LOW)),
    ("is_lease_subset.option name", lambda: lk.is_lease_subset({}, {}, **{LOW: None})),
    ("narrow_lease", lambda: lk.narrow_lease({"fs.read": [BAD]}, {"fs.read": ["/**"]})),
    ("narrow_constraints", lambda: lk.narrow_constraints({"expires_at": LOW}, None)),
    ("ManualClock", lambda: lk.ManualClock(LOW)),
    ("LeaseGuard.lease", lambda: lk.LeaseGuard({"fs.read": [BAD]})),
    ("LeaseGuard.constraints", lambda: lk.LeaseGuard({}, {"expires_at": LOW})),
    ("LeaseGuard.authorize.capability", lambda: GUARD.authorize(LOW, "/data/x")),
    ("LeaseGuard.authorize.target", lambda: GUARD.authorize("fs.read", BAD)),
    ("LeaseGuard.authorize_model", lambda: GUARD.authorize_model("gpt-" + LOW)),
    ("LeaseGuard.record_metric.name", lambda: GUARD.record_metric("cost." + LOW, "1", "USD")),
    ("LeaseGuard.record_metric.value", lambda: GUARD.record_metric("cost.llm", "1" + LOW, "USD")),
    ("LeaseGuard.record_metric.unit", lambda: GUARD.record_metric("cost.llm", "1", LOW)),
    ("LeaseGuard.reserve.currency", lambda: GUARD.reserve(LOW, "1")),
    ("LeaseGuard.reserve.amount", lambda: GUARD.reserve("USD", "1" + LOW)),
    ("LeaseGuard.delegate", lambda: GUARD.delegate({"fs.read": [BAD]})),
    ("parse_agentfile", lambda: lk.parse_agentfile("AGENT " + LOW)),
    ("check_agentfile", lambda: lk.check_agentfile("AGENT " + LOW)),
    ("evaluate_policy.principal", lambda: lk.evaluate_policy(AGENTFILE, LOW, "a", "r")),
    ("evaluate_policy.action", lambda: lk.evaluate_policy(AGENTFILE, "p", LOW, "r")),
    ("evaluate_policy.resource", lambda: lk.evaluate_policy(AGENTFILE, "p", "a", LOW)),
    ("evaluate_policy.context", lambda: lk.evaluate_policy(AGENTFILE, "p", "a", "r", {"k": LOW})),
    ("Governor.open.store", lambda: lk.Governor.open(LOW)),
    ("Governor.open.path", lambda: lk.Governor.open(pathlib.PurePosixPath("/tmp/" + LOW))),
    ("Governor.open.policy", lambda: lk.Governor.open("memory", {LOW: 1})),
    ("Governor.open.options", lambda: lk.Governor.open("memory", None, '{"ids": "' + LOW + '"}')),
    ("GovernorClient.connect.socket", lambda: lk.GovernorClient.connect("/tmp/" + LOW)),
    ("GovernorClient.connect.path", lambda: lk.GovernorClient.connect(pathlib.PurePosixPath("/tmp/" + LOW))),
]


@pytest.mark.parametrize("name,call", CALLS, ids=[c[0] for c in CALLS])
def test_lone_surrogate_is_invalid_request(name: str, call: Callable[[], Any]) -> None:
    with pytest.raises(lk.InvalidRequest) as info:
        call()
    assert not isinstance(info.value, UnicodeError), name


def test_wrong_type_is_still_a_type_error() -> None:
    with pytest.raises(TypeError):
        lk.canonicalize_target("fs.read", 42)  # type: ignore[arg-type]


def test_valid_non_ascii_text_passes_unchanged() -> None:
    assert lk.canonicalize_target("fs.read", "/données/😀") == "/données/😀"
    assert GUARD.authorize("fs.read", "/data/é") == "/data/é"
