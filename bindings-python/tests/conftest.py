"""Shared pytest fixtures and helpers for the leasekit Python binding tests."""

from __future__ import annotations

import pathlib
from datetime import datetime, timezone

import pytest

#: Repository root (bindings-python/tests/ -> repo).
REPO = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture
def t0() -> datetime:
    """A fixed aware UTC instant used as 'now' in tests."""
    return datetime(2026, 1, 1, tzinfo=timezone.utc)


@pytest.fixture
def daemon():
    """A real ``leasekit serve`` (memory store, roomy policy) for one test, stopped with SIGTERM
    after it (a daemon that does not exit cleanly fails the test)."""
    from _daemon import ROOMY_POLICY, Daemon

    d = Daemon(["--store", "memory"], policy=ROOMY_POLICY)
    try:
        d.start()
        yield d
        d.stop()
    finally:
        d.remove()
