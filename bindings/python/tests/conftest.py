"""Shared pytest fixtures and helpers for the leasekit Python binding tests."""

from __future__ import annotations

import pathlib
from datetime import datetime, timezone

import pytest

#: Repository root (bindings/python/tests/ -> repo).
REPO = pathlib.Path(__file__).resolve().parents[3]


@pytest.fixture
def t0() -> datetime:
    """A fixed aware UTC instant used as 'now' in tests."""
    return datetime(2026, 1, 1, tzinfo=timezone.utc)
