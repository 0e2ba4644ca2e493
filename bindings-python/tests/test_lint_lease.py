"""leasekit.lint_lease: core's lease lint (stable codes, the pattern, a hint) for a Lease, a
dict or JSON text; an invalid lease is InvalidRequest."""

from __future__ import annotations

import json

import pytest

import leasekit as lk
from conftest import REPO


def test_mistakes_are_reported_with_stable_codes() -> None:
    lease = json.loads((REPO / "examples" / "leases" / "lint-mistakes.json").read_text(encoding="utf-8"))
    warnings = lk.lint_lease(lease)
    codes = {w["code"] for w in warnings}
    assert {"host-open-suffix", "host-label-prefix", "scheme-wildcard", "url-fragment", "non-canonical-path"} <= codes
    for w in warnings:
        assert set(w) == {"code", "capability", "pattern", "message", "hint"}
        assert w["hint"] and w["message"]
    suffix = [w for w in warnings if w["code"] == "host-open-suffix"]
    assert suffix[0]["capability"] == "net.fetch" and suffix[0]["pattern"] == "https://api.example.com**"
    assert not any(w["pattern"] == "/workspace/**" for w in warnings)


def test_every_lease_form_gives_the_same_answer() -> None:
    d = {"net.fetch": ["*://api.example.com/**"]}
    want = lk.lint_lease(d)
    assert [w["code"] for w in want] == ["scheme-wildcard"]
    assert lk.lint_lease(json.dumps(d)) == want
    assert lk.lint_lease(lk.Lease(d)) == want


def test_a_clean_lease_has_no_warnings() -> None:
    assert lk.lint_lease({"fs.read": ["/workspace/**"], "net.fetch": ["https://api.example.com/v1/**"]}) == []


@pytest.mark.parametrize("bad", ['{"fs.read": "/x"}', "not json", {"fs.read": [1]}, {"Bad Name": ["x"]}])
def test_an_invalid_lease_is_invalid_request(bad) -> None:
    with pytest.raises(lk.InvalidRequest):
        lk.lint_lease(bad)
