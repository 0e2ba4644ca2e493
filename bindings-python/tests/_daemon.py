"""A real ``leasekit serve`` process for the Python daemon tests: started on a fresh temporary
directory (socket, state, stderr log), waited for until its socket answers ``GetStatus``,
stopped with SIGTERM (graceful: it must exit 0 and remove its socket) and restarted on the same
state. The binary is ``$LEASEKIT_BIN``, else ``target/<profile>/leasekit`` of this repository
(scripts/test-python.sh builds it). Nothing is mocked."""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import signal
import subprocess
import tempfile
import time
from typing import Any, List, Optional, Sequence

import leasekit as lk

REPO = pathlib.Path(__file__).resolve().parents[2]


def leasekit_bin() -> pathlib.Path:
    """The CLI binary that runs ``leasekit serve``; a missing one is a test failure."""
    env = os.environ.get("LEASEKIT_BIN")
    path = pathlib.Path(env) if env else REPO / "target" / os.environ.get("LEASEKIT_PROFILE", "debug") / "leasekit"
    if not path.is_file():
        raise AssertionError(f"{path} is not built: cargo build -p leasekit-cli (or set LEASEKIT_BIN)")
    return path


#: A policy roomy enough that the client tests are never refused by a limit they do not test.
ROOMY_POLICY = {"maxInFlight": 64, "dailyBudgetCents": 1_000_000, "maxRequestsPerMinute": 100_000}


class Daemon:
    """One running daemon; use as a context manager or call :meth:`stop` and :meth:`remove`."""

    def __init__(self, args: Sequence[str] = (), policy: Any = None, options: Any = None) -> None:
        self.dir = pathlib.Path(tempfile.mkdtemp(prefix="lk-py-"))
        self.socket = str(self.dir / "s.sock")
        self.state = str(self.dir / "state")
        base: List[str] = ["--sweep-interval-ms", "3600000"]
        if policy is not None:
            (self.dir / "policy.json").write_text(json.dumps(policy), encoding="utf-8")
            base += ["--policy", str(self.dir / "policy.json")]
        if options is not None:
            (self.dir / "options.json").write_text(json.dumps(options), encoding="utf-8")
            base += ["--options", str(self.dir / "options.json")]
        self.base = base + list(args)
        self.proc: Optional[subprocess.Popen] = None

    def start(self, extra: Sequence[str] = ()) -> "Daemon":
        """Starts the daemon with ``extra`` flags and waits until it answers (at most 20 s)."""
        cmd = [str(leasekit_bin()), "serve", "--socket", self.socket, "--state", self.state, *self.base, *extra]
        log = open(self.dir / "daemon.log", "ab")
        try:
            self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=log)
        finally:
            log.close()
        probe = lk.GovernorClient.connect(self.socket, timeout=2.0, fallback="off")
        deadline = time.monotonic() + 20
        try:
            while True:
                if self.proc.poll() is not None:
                    raise AssertionError(f"leasekit serve exited early ({self.proc.returncode}):\n{self.log()}")
                if os.path.exists(self.socket):
                    try:
                        probe.status()
                        return self
                    except lk.LeaseError:
                        pass
                if time.monotonic() > deadline:
                    raise AssertionError(f"daemon not ready after 20 s:\n{self.log()}")
                time.sleep(0.005)
        finally:
            probe.close()

    def client(self, **kwargs: Any) -> lk.GovernorClient:
        """A client of this daemon; fallback off unless given (tests want every failure)."""
        kwargs.setdefault("fallback", "off")
        return lk.GovernorClient.connect(self.socket, **kwargs)

    def stop(self) -> None:
        """SIGTERM; the daemon must exit 0 within 20 s and remove its socket."""
        proc, self.proc = self.proc, None
        if proc is None:
            return
        proc.send_signal(signal.SIGTERM)
        try:
            rc = proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            raise AssertionError(f"daemon ignored SIGTERM for 20 s:\n{self.log()}")
        if rc != 0:
            raise AssertionError(f"daemon exited {rc} after SIGTERM:\n{self.log()}")
        if os.path.exists(self.socket):
            raise AssertionError("the daemon left its socket behind")

    def kill(self) -> None:
        """SIGKILL (cleanup after a failed test)."""
        proc, self.proc = self.proc, None
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.wait()

    def log(self) -> str:
        """The daemon's stderr so far."""
        try:
            return (self.dir / "daemon.log").read_text(encoding="utf-8", errors="replace")
        except OSError:
            return ""

    def remove(self) -> None:
        """Kills a daemon still running and removes the temporary directory."""
        self.kill()
        shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self) -> "Daemon":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.remove()
