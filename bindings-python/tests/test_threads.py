"""One LeaseGuard shared by many Python threads: no update is lost, reservations never
overdraw, and the native calls release the interpreter lock."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal
from typing import List

import leasekit as lk

THREADS = 16
PER_THREAD = 500


def test_concurrent_spend_adds_up_exactly() -> None:
    guard = lk.LeaseGuard({"tool.call": ["web.*"], "cost.budget": ["USD:1000"]})
    start = threading.Barrier(THREADS)

    def worker(_: int) -> int:
        start.wait()
        emitted = 0
        for _ in range(PER_THREAD):
            guard.authorize("tool.call", "web.search")
            emitted += len(guard.record_metric("cost.llm", "0.01", "USD"))
        return emitted

    with ThreadPoolExecutor(THREADS) as pool:
        emitted = sum(pool.map(worker, range(THREADS)))
    spent = Decimal("0.01") * THREADS * PER_THREAD
    assert guard.remaining() == {"USD": Decimal(1000) - spent}
    # 80 USD of 1000 is 8 %: exactly one remaining metric (the 5 % step) across all threads.
    assert emitted == 1


def test_concurrent_reservations_never_overdraw() -> None:
    guard = lk.LeaseGuard({"cost.budget": ["USD:100"]})
    ok: List[int] = []
    denied: List[int] = []
    lock = threading.Lock()
    start = threading.Barrier(THREADS)

    def worker(_: int) -> None:
        start.wait()
        for _ in range(PER_THREAD):
            try:
                guard.reserve("USD", Decimal("0.03"))
                with lock:
                    ok.append(1)
            except lk.BudgetExhausted:
                with lock:
                    denied.append(1)

    with ThreadPoolExecutor(THREADS) as pool:
        list(pool.map(worker, range(THREADS)))
    granted = len(ok)
    # 100 / 0.03 = 3333 reservations fit exactly; every other attempt is refused.
    assert granted == 3333
    assert len(denied) == THREADS * PER_THREAD - granted
    assert guard.remaining() == {"USD": Decimal(100) - Decimal("0.03") * granted}


def test_concurrent_delegation_and_close_return_everything() -> None:
    parent = lk.LeaseGuard({"tool.call": ["*"], "cost.budget": ["USD:50"]})

    def worker(_: int) -> None:
        for _ in range(50):
            with parent.delegate({"tool.call": ["a"], "cost.budget": ["USD:0.5"]}) as child:
                child.record_metric("cost.x", "0.01", "USD")

    with ThreadPoolExecutor(8) as pool:
        list(pool.map(worker, range(8)))
    assert parent.remaining() == {"USD": Decimal(50) - Decimal("0.01") * 8 * 50}


def test_python_clock_in_a_worker_thread_while_others_use_guards() -> None:
    """A guard call in a worker thread re-enters Python for its clock (the call itself runs
    detached from the interpreter); meanwhile the main thread keeps using other guards, and
    nothing deadlocks."""
    started = threading.Event()
    release = threading.Event()

    def slow_clock():  # type: ignore[no-untyped-def]
        started.set()
        release.wait(5)
        from datetime import datetime, timezone

        return datetime.now(timezone.utc)

    guard = lk.LeaseGuard({"tool.call": ["*"]}, {"expires_at": "2999-01-01T00:00:00Z"}, clock=slow_clock)
    result: List[str] = []
    t = threading.Thread(target=lambda: result.append(guard.authorize("tool.call", "x")))
    t.start()
    assert started.wait(5)
    # The main thread runs Python code while the worker is inside the native call.
    other = lk.LeaseGuard({"tool.call": ["*"]})
    assert other.authorize("tool.call", "y") == "y"
    release.set()
    t.join(5)
    assert result == ["x"]
