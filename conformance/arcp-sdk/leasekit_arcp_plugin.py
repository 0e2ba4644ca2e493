"""pytest plugin: run the ARCP Python SDK's own test suite with leasekit switched in.

Loaded with ``-p leasekit_arcp_plugin`` (this directory on ``PYTHONPATH``). It calls
``leasekit.integrations.arcp.install(guard=True)`` before any test is collected, fails the run
if the switch did not happen, and writes the node ids of failed tests (one per line, sorted) to
the file named by ``LEASEKIT_ARCP_FAILURES`` for ``compare_failures.py``.
"""

from __future__ import annotations

import os
from typing import Any, Set

import leasekit.integrations.arcp as lk_arcp

_FAILED: Set[str] = set()


def pytest_configure(config: Any) -> None:
    lk_arcp.install(guard=True)
    import arcp._runtime.job as job
    import arcp.runtime as runtime

    assert runtime.validate_lease_op.__module__ == "leasekit.arcp_compat"
    assert job.JobContext.authorize.__module__ == "leasekit.integrations.arcp"


def pytest_runtest_logreport(report: Any) -> None:
    if report.failed:
        _FAILED.add(report.nodeid)


def pytest_sessionfinish(session: Any, exitstatus: int) -> None:
    path = os.environ.get("LEASEKIT_ARCP_FAILURES")
    if path:
        with open(path, "w", encoding="utf-8") as out:
            out.writelines(f"{nodeid}\n" for nodeid in sorted(_FAILED))
