"""The Agentfile API: parse, lint, derived lease, lockfile, inheritance, Cedar policy."""

from __future__ import annotations

import json

import pytest

import leasekit as lk

GOOD = """# syntax=agentrc.agentfile/v0.1
AGENT hello-local
CMD strands run --agent hello-local
TOOL utcp:file_read
URL https://api.example.com
MOUNT /data ro
AUDIT basic
POLICY
permit(
  principal == AgentRC::Agent::"hello-local",
  action in [AgentRC::Action::"tool.invoke"],
  resource == AgentRC::Tool::"file_read"
);
END
"""


def test_parse_good_file() -> None:
    af = lk.parse_agentfile(GOOD)
    assert not af.has_errors
    assert af.agent == "hello-local"
    assert af.audit == "basic"
    assert af.source_digest.startswith("sha256:")
    names = [d["name"] for d in af.directives]
    assert names[:2] == ["AGENT", "CMD"] and "POLICY" in names
    assert isinstance(af.to_dict(), dict)
    assert "hello-local" in repr(af)
    assert all(d["severity"] != "error" for d in lk.lint(af))


def test_derived_lease() -> None:
    lease = lk.agentfile_lease(lk.parse_agentfile(GOOD))
    d = lease.to_dict()
    assert d["tool.call"] == ["utcp:file_read"]
    assert set(d["net.fetch"]) == {"https://api.example.com/", "https://api.example.com/**"}
    assert set(d["fs.read"]) == {"/data", "/data/**"}
    assert "fs.write" not in d


def test_check_agentfile_report() -> None:
    report = lk.check_agentfile(GOOD)
    assert report["ok"] is True
    assert isinstance(report["lease"], lk.Lease)
    bad = lk.check_agentfile("AGENT a\nAUDIT basic\nFOO bar\n")
    assert bad["ok"] is False and bad["lease"] is None
    codes = {d["code"] for d in bad["diagnostics"] if d["severity"] == "error"}
    assert codes == {"unknown-directive"}
    d = bad["diagnostics"][0]
    assert {"code", "severity", "line", "column", "message"} <= set(d)


def test_parse_never_raises_on_garbage() -> None:
    af = lk.parse_agentfile("\x00\x01 nonsense\nagent x\n" * 50)
    assert af.has_errors
    assert any(d["code"] == "lowercase-directive" for d in af.diagnostics)


def test_secret_values_never_appear() -> None:
    text = "AGENT a\nAUDIT basic\nCRED gh env:GH_TOKEN api.github.com ghp_supersecretvalue123\n"
    af = lk.parse_agentfile(text)
    everything = json.dumps([af.to_dict(), af.diagnostics, lk.lint(af), af.creds])
    assert "ghp_supersecretvalue123" not in everything


def test_lock() -> None:
    af = lk.parse_agentfile(GOOD)
    lf = lk.lock(af)
    assert isinstance(lf, dict)
    text = lk.lockfile_json(af)
    assert json.loads(text) == lf and text.endswith("\n")
    assert lk.package_digest(af).startswith("sha256:")
    with pytest.raises(lk.InvalidRequest):
        lk.lock(lk.parse_agentfile("FOO bar\n"))


def test_inheritance_may_only_narrow() -> None:
    parent = lk.parse_agentfile("AGENT p\nAUDIT all\nTOOL utcp:a\nTOOL utcp:b\n")
    child_ok = lk.parse_agentfile("AGENT c\nAUDIT all\nTOOL utcp:a\n")
    child_wide = lk.parse_agentfile("AGENT c\nAUDIT all\nTOOL utcp:a\nTOOL utcp:z\n")
    lk.check_inheritance(parent, child_ok)
    with pytest.raises(lk.LeaseError) as info:
        lk.check_inheritance(parent, child_wide)
    assert info.value.code in {"LEASE_SUBSET_VIOLATION", "INVALID_REQUEST"}


def test_evaluate_policy_fails_closed() -> None:
    af = lk.parse_agentfile(GOOD)
    allow = lk.evaluate_policy(
        af, 'AgentRC::Agent::"hello-local"', 'AgentRC::Action::"tool.invoke"', 'AgentRC::Tool::"file_read"'
    )
    assert allow["allowed"] is True
    deny = lk.evaluate_policy(
        af, 'AgentRC::Agent::"hello-local"', 'AgentRC::Action::"tool.invoke"', 'AgentRC::Tool::"rm"', {}
    )
    assert deny["allowed"] is False
    broken = lk.evaluate_policy(af, "not an entity", "x", "y")
    assert broken["allowed"] is False


def test_child_may_not_lower_audit() -> None:
    parent = lk.parse_agentfile("AGENT p\nAUDIT all\nTOOL utcp:a\n")
    child = lk.parse_agentfile("AGENT c\nAUDIT basic\nTOOL utcp:a\n")
    with pytest.raises(lk.LeaseError):
        lk.check_inheritance(parent, child)
