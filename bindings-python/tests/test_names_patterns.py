"""Capability names, canonicalization, pattern validation and matching through Python."""

from __future__ import annotations

import time

import pytest

import leasekit as lk


@pytest.mark.parametrize(
    "name,valid,reserved",
    [
        ("fs.read", True, True),
        ("model.use", True, True),
        ("x-vendor.acme.kafka.publish", True, False),
        ("x-vendor.acme", False, False),
        ("x-vendor.Acme.x", False, False),
        ("acme.foo", False, False),
        ("", False, False),
    ],
)
def test_capability_names(name: str, valid: bool, reserved: bool) -> None:
    assert lk.is_valid_capability_name(name) is valid
    assert lk.is_reserved_capability_name(name) is reserved


def test_canonicalize_paths_and_urls() -> None:
    assert lk.canonicalize_target("fs.read", "/a//b/./c/../d/") == "/a/b/d"
    assert lk.canonicalize_target("net.fetch", "HTTPS://API.example.com:443/v1/../v2") == "https://api.example.com/v2"
    assert lk.canonicalize_target("tool.call", "web.search") == "web.search"


@pytest.mark.parametrize(
    "cap,target",
    [
        ("fs.read", "relative"),
        ("net.fetch", "https://user@api.example.com/"),
        ("net.fetch", "https://api.example.com:99999/"),
        ("tool.call", ""),
        ("tool.call", "a\x00b"),
        ("cost.budget", "USD"),
    ],
)
def test_canonicalize_rejects(cap: str, target: str) -> None:
    with pytest.raises(lk.InvalidRequest):
        lk.canonicalize_target(cap, target)


def test_validate_pattern_returns_the_stored_form() -> None:
    assert lk.validate_pattern("net.fetch", "HTTPS://API.example.com:443") == "https://api.example.com/"
    with pytest.raises(lk.InvalidRequest):
        lk.validate_pattern("fs.read", "/a/***")


@pytest.mark.parametrize(
    "cap,pattern,target,expected",
    [
        ("tool.call", "web.*", "web.search", True),
        ("tool.call", "web.*", "web.search.advanced", False),
        ("model.use", "gpt-4*", "gpt-4.1", True),
        ("fs.read", "/a/**", "/a", True),
        ("fs.read", "/a/**", "/a/b/c", True),
        ("fs.read", "/a/*", "/a/b/c", False),
        ("net.fetch", "s3://reports/**.csv", "s3://reports/2026/W19.csv", True),
        ("fs.read", "/data/*", "/data/../etc/passwd", False),
        ("fs.read", "/a/?", "/a/x", False),
    ],
)
def test_match(cap: str, pattern: str, target: str, expected: bool) -> None:
    assert lk.match_pattern(cap, pattern, target) is expected


def test_match_is_linear_time() -> None:
    start = time.perf_counter()
    assert lk.match_pattern("tool.call", "*a*a*a*a*a*a*a*a*a*a*a*a*c", "a" * 10_000) is False
    # A backtracking matcher takes minutes here; 2 s keeps a loaded machine from failing it.
    assert time.perf_counter() - start < 2.0


def test_non_str_arguments_raise_type_error() -> None:
    with pytest.raises(TypeError):
        lk.match_pattern("fs.read", 1, "/a")  # type: ignore[arg-type]
