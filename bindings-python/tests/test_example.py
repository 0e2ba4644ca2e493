"""The examples/python agent loop runs and enforces its lease."""

from __future__ import annotations

import subprocess
import sys

from conftest import REPO


def test_agent_loop_example() -> None:
    script = REPO / "examples" / "python" / "agent_loop.py"
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert "FETCH  https://api.example.com/v1/users: " in "\n".join(lines)  # canonicalized
    assert any(line.startswith("DENIED https://evil.example/exfiltrate: PERMISSION_DENIED") for line in lines)
    assert any("@evil.example" in line and "INVALID_REQUEST" in line for line in lines)
    assert any(line.startswith("STOP") for line in lines)
    assert lines[-1] == "remaining: {'USD': '0.01'}"


def test_governor_loop_example_against_a_daemon(daemon) -> None:
    """examples/python/governor_loop.py: acquire before each simulated model call, release
    with the actual cost; the daemon's spend equals what the loop reported, nothing stays
    active."""
    script = REPO / "examples" / "python" / "governor_loop.py"
    out = subprocess.run([sys.executable, str(script), daemon.socket], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert sum(line.startswith("CALL ") for line in lines) == 4
    assert sum(line.startswith("RELEASE ") and line.endswith("recorded") for line in lines) == 4
    spent = int(lines[-1].split()[1])
    assert spent > 4  # actual costs, not the estimates of 5 each... nor zero
    assert lines[-1] == f"spent: {spent} cents; daemon: 0 active, {spent} cents today"
    with daemon.client() as gov:
        metrics = gov.metrics()
        assert (metrics["activeLeases"], metrics["spendTodayCents"]) == (0, spent)


def test_governor_loop_stops_at_a_denial() -> None:
    """With a daily budget of 10 cents and an estimate of 5 per call, the loop gets three calls
    only because each release returns the unused part of the estimate (actual cost 2): the
    fourth acquire (6 spent + 5 estimated > 10) is denied and the loop stops cleanly."""
    from _daemon import Daemon

    policy = {"maxInFlight": 64, "dailyBudgetCents": 10, "maxRequestsPerMinute": 100_000}
    with Daemon(["--store", "memory"], policy=policy) as d:
        d.start()
        script = REPO / "examples" / "python" / "governor_loop.py"
        out = subprocess.run([sys.executable, str(script), d.socket], capture_output=True, text=True, timeout=60)
        assert out.returncode == 0, out.stderr
        lines = out.stdout.splitlines()
        assert sum(line.startswith("CALL ") for line in lines) == 3
        assert lines[-2].startswith("DENIED 'translate the summary to French': daily_budget_exceeded")
        assert lines[-1] == "spent: 6 cents; daemon: 0 active, 6 cents today"
        d.stop()
