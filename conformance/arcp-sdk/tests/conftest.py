"""Fixtures of leasekit's own tests of the ARCP SDK switch: a real SDK runtime and client over
the SDK's in-memory transport, and the switch installed for one test and undone after it."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
import pytest_asyncio
from arcp import Capabilities, ClientInfo, RuntimeInfo, pair_memory_transports
from arcp.client import ARCPClient
from arcp.runtime import ARCPRuntime, StaticBearerVerifier

import leasekit.integrations.arcp as lk_arcp


@pytest.fixture
def switched() -> Iterator[Any]:
    """``install(guard=True)`` for the test; ``uninstall()`` after it."""
    lk_arcp.install(guard=True)
    try:
        yield lk_arcp
    finally:
        lk_arcp.uninstall()


@pytest.fixture(autouse=True)
def _always_undone() -> Iterator[None]:
    yield
    lk_arcp.uninstall()


@pytest_asyncio.fixture
async def runtime() -> AsyncIterator[ARCPRuntime]:
    rt = ARCPRuntime(
        runtime=RuntimeInfo(name="test-rt", version="1.1.0"),
        bearer=StaticBearerVerifier({"demo-token": "p1"}),
        heartbeat_interval_sec=None,
    )
    try:
        yield rt
    finally:
        await rt.close()


@pytest_asyncio.fixture
async def client(runtime: ARCPRuntime) -> AsyncIterator[ARCPClient]:
    server_t, client_t = pair_memory_transports()
    accept_task = asyncio.create_task(runtime.accept(server_t))
    c = ARCPClient(
        client=ClientInfo(name="test-client", version="1.0.0"),
        token="demo-token",
        capabilities=Capabilities(features=runtime.capabilities.features),
    )
    await c.connect(client_t)
    try:
        yield c
    finally:
        with contextlib.suppress(Exception):
            await c.close()
        accept_task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await accept_task
