"""A tiny agent loop guarded by leasekit.

The "agent" wants to fetch a list of URLs. Each fetch is authorized against the lease first
(the guard returns the canonical URL to actually fetch), then its known cost is reserved from the
budget (a sub-agent records its spend as a metric instead). The loop stops cleanly when the budget runs out. A sub-agent gets a narrower, delegated
lease whose budget is carved out of ours and returned when it finishes.

Run:  python examples/python/agent_loop.py      (needs `pip install ./bindings-python`)
No network access is made: fetch() is simulated.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from decimal import Decimal

import leasekit as lk

LEASE = {
    "net.fetch": ["https://api.example.com/**", "https://docs.example.com/*"],
    "model.use": ["gpt-4*"],
    "cost.budget": ["USD:0.10"],
}
COST_PER_FETCH = Decimal("0.02")

PLAN = [
    "https://api.example.com/v1/items",
    "HTTPS://API.Example.com:443/v1/../v1/users",  # canonicalized before matching
    "https://docs.example.com/guide",
    "https://api.example.com@evil.example/steal",  # userinfo trick: rejected
    "https://evil.example/exfiltrate",  # not in the lease
    "https://api.example.com/v1/orders",
    "https://api.example.com/v1/invoices",
    "https://api.example.com/v1/more",  # budget is gone by now
]


def fetch(url: str) -> str:
    """Pretend to fetch a URL (no network in the example)."""
    return f"<{len(url)} bytes from {url}>"


def main() -> int:
    """Run the loop; returns the process exit code."""
    now = datetime.now(timezone.utc)
    guard = lk.LeaseGuard(LEASE, {"expires_at": now + timedelta(minutes=5)})
    guard.authorize_model("gpt-4o")

    # A sub-agent that may only read the docs, with 0.02 USD of our budget.
    with guard.delegate({"net.fetch": ["https://docs.example.com/*"], "cost.budget": ["USD:0.02"]}) as sub:
        url = sub.authorize("net.fetch", "https://docs.example.com/faq")
        print("sub-agent fetched", fetch(url))
        sub.record_metric("cost.fetch", "0.01", "USD")
        print("parent remaining while the sub-agent runs:", guard.remaining()["USD"])
    print("parent remaining after the sub-agent closed:", guard.remaining()["USD"])

    for target in PLAN:
        try:
            url = guard.authorize("net.fetch", target)
            # The cost is known up front, so reserve it: a reservation that does not fit is
            # refused atomically (no overspend), unlike a spend metric recorded afterwards.
            emitted = guard.reserve("USD", COST_PER_FETCH)
        except lk.BudgetExhausted:
            print(f"STOP   {target}: budget exhausted")
            break
        except lk.LeaseError as e:  # PermissionDenied, InvalidRequest, LeaseExpired
            print(f"DENIED {target}: {e.code}")
            continue
        print(f"FETCH  {url}: {fetch(url)}")
        for metric in emitted:
            print(f"       emit {metric.name} = {metric.value} {metric.unit}")
    print("remaining:", {k: str(v) for k, v in guard.remaining().items()})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
