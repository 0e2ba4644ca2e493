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
