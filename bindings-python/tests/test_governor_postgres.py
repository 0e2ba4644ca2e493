"""``Governor.open("postgres://...")``: two embedded governors on one throwaway PostgreSQL share
one budget (SEMANTICS 13.12). The server is real: ``initdb`` + ``pg_ctl`` on a private Unix
socket (as the ``postgres`` account under root, as core/tests/pg/mod.rs does); skipped only when
the PostgreSQL server binaries are not installed (``scripts/ensure-postgres.sh`` installs them,
and ``make test`` runs it in the Rust step first)."""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import tempfile
import urllib.parse
from pathlib import Path
from typing import Iterator, List

import pytest

import leasekit as lk


def _bin() -> Path | None:
    for d in [os.environ.get("LEASEKIT_PG_BIN", ""), "/usr/local/bin",
              *sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True)]:
        if d and (Path(d) / "initdb").is_file() and (Path(d) / "pg_ctl").is_file():
            return Path(d)
    found = shutil.which("initdb")
    return Path(found).parent if found else None


def _run(cmd: List[str], as_postgres: bool) -> None:
    if as_postgres:
        cmd = ["runuser", "-u", "postgres", "--", *cmd]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


@pytest.fixture(scope="module")
def pg_url() -> Iterator[str]:
    bindir = _bin()
    if bindir is None:
        pytest.skip("PostgreSQL server binaries not installed (scripts/ensure-postgres.sh)")
    root = os.geteuid() == 0
    d = Path(tempfile.mkdtemp(prefix="lk-pypg-"))
    data = d / "data"
    if root:
        os.chmod(d, 0o777)
        shutil.chown(d, "postgres")
    try:
        _run([str(bindir / "initdb"), "-D", str(data), "-U", "postgres", "--auth=trust",
              "-E", "UTF8", "--no-locale", "--no-sync"], root)
        with open(data / "postgresql.conf", "a", encoding="utf-8") as f:
            f.write(f"listen_addresses = ''\nunix_socket_directories = '{d}'\n"
                    "unix_socket_permissions = 0777\n")
        _run([str(bindir / "pg_ctl"), "-D", str(data), "-l", str(d / "log"), "-w", "start"], root)
        yield f"postgres://postgres@{urllib.parse.quote(str(d), safe='')}/postgres"
    finally:
        if (data / "postmaster.pid").exists():
            _run([str(bindir / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop"], root)
        shutil.rmtree(d, ignore_errors=True)


def test_two_governors_on_one_database_share_the_budget(pg_url: str) -> None:
    policy = {"policyVersion": "py-fleet", "dailyBudgetCents": 100}
    a = lk.Governor.open(pg_url, policy)
    b = lk.Governor.open(pg_url, policy)
    try:
        first = a.acquire(actor_id="x", estimated_cost_cents=60)
        assert first["granted"], first
        second = b.acquire(actor_id="y", estimated_cost_cents=60)
        assert not second["granted"], second   # 60 + 60 > 100 across both governors
        assert b.status()["activeLeases"] == 1
        assert len(b.status()["connectedGovernors"]) == 2
        a.release(lease_id=first["leaseId"], actual_cost_cents=10)
        third = b.acquire(actor_id="y", estimated_cost_cents=60)
        assert third["granted"], third
        assert b.verify_audit()["ok"]
    finally:
        a.close()
        b.close()


def test_a_postgres_store_refuses_sqlite_options(pg_url: str) -> None:
    with pytest.raises(lk.InvalidRequest):
        lk.Governor.open(pg_url, None, {"synchronous": "full"})
