"""An agent loop governed by a `leasekit serve` daemon.

Before each (simulated) model call the agent acquires a lease from the daemon with its
estimated cost; after the call it releases the lease with the actual cost, so the daemon's
spend and concurrency accounting stay exact. A denial (budget, rate or concurrency limit) stops
the loop cleanly; the release happens even when the model call fails.

Run (needs `pip install ./bindings-python` and a daemon):
    leasekit serve --socket /tmp/lk.sock --state /tmp/lk-state &
    python examples/python/governor_loop.py /tmp/lk.sock
With no argument the client uses the default socket ($LEASEKIT_SOCKET, else
$XDG_RUNTIME_DIR/leasekit.sock). No model is called: call_model() is simulated.
"""

from __future__ import annotations

import sys
from typing import Dict, Optional, Tuple

import leasekit as lk

PROMPTS = [
    "summarize the incident report",
    "draft a reply to the customer",
    "list the follow-up actions",
    "translate the summary to French",
]


def call_model(prompt: str, max_output_tokens: int) -> Tuple[str, int, int]:
    """A stand-in for a model call: the answer, the tokens used and the actual cost in cents
    (deterministic, so the example's output can be checked)."""
    tokens_in = len(prompt.split()) * 3
    tokens_out = min(max_output_tokens, 40 + len(prompt))
    cost_cents = 1 + (tokens_in + tokens_out) // 50
    return f"[answer to {prompt!r}]", tokens_in + tokens_out, cost_cents


def run(socket: Optional[str]) -> Dict[str, int]:
    """The loop; answers the totals it saw (for the caller to compare with the daemon)."""
    spent = 0
    with lk.GovernorClient.connect(socket, timeout=5.0, fallback="off") as gov:
        for i, prompt in enumerate(PROMPTS):
            grant = gov.acquire(
                actor_id="example-agent",
                workspace_id="examples",
                action_type="chatCompletion",
                model_id="gpt-4o-mini",
                estimated_prompt_tokens=len(prompt.split()) * 3,
                max_output_tokens=128,
                estimated_cost_cents=5,
                idempotency_key=f"governor-loop-{i}",
            )
            if not grant["granted"]:
                print(f"DENIED {prompt!r}: {grant['deniedReason']} (retry after {grant.get('retryAfterMs')} ms)")
                break
            lease_id = grant["leaseId"]
            tokens, cost = 0, 0
            outcome = "success"
            try:
                answer, tokens, cost = call_model(prompt, 128)
                print(f"CALL   {lease_id}: {answer}")
            except Exception:
                outcome = "unknownError"
                raise
            finally:
                receipt = gov.release(
                    lease_id=lease_id,
                    actual_prompt_tokens=len(prompt.split()) * 3,
                    actual_output_tokens=max(0, tokens - len(prompt.split()) * 3),
                    actual_cost_cents=cost,
                    outcome=outcome,
                    idempotency_key=f"governor-loop-release-{i}",
                )
                spent += cost
                print(f"RELEASE {lease_id}: cost {cost} cents, {receipt['classification']}")
        metrics = gov.metrics()
    print(f"spent: {spent} cents; daemon: {metrics['activeLeases']} active, {metrics['spendTodayCents']} cents today")
    return {"spent": spent, "active": metrics["activeLeases"], "daemon_spend": metrics["spendTodayCents"]}


if __name__ == "__main__":
    run(sys.argv[1] if len(sys.argv) > 1 else None)
