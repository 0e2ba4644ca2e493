#!/usr/bin/env bash
# Makes sure the PostgreSQL server binaries (initdb, pg_ctl, postgres) that the governor's
# PostgreSQL tests start a throwaway server with are present; installs Debian's `postgresql`
# with apt-get when they are missing. The tests find them in LEASEKIT_PG_BIN, PATH,
# /usr/local/bin or /usr/lib/postgresql/*/bin (core/tests/pg/mod.rs), and run them as the
# unprivileged `postgres` account when run as root (initdb refuses root).
set -eu
have() {
  command -v initdb >/dev/null 2>&1 && command -v pg_ctl >/dev/null 2>&1 && return 0
  for d in /usr/local/bin /usr/lib/postgresql/*/bin; do
    [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ] && return 0
  done
  return 1
}
if ! have; then
  echo "ensure-postgres: initdb/pg_ctl missing, installing postgresql with apt-get"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq postgresql >/dev/null
  # Debian's package starts a cluster of its own; the tests do not use it.
  if command -v pg_lsclusters >/dev/null 2>&1; then
    pg_lsclusters -h 2>/dev/null | while read -r ver name _; do
      pg_ctlcluster "$ver" "$name" stop >/dev/null 2>&1 || true
    done
  fi
fi
have || { echo "ensure-postgres: PostgreSQL server binaries still missing" >&2; exit 1; }
if [ "$(id -u)" = 0 ] && ! id postgres >/dev/null 2>&1; then
  useradd --system --home-dir /var/lib/postgresql --shell /bin/bash postgres
fi
echo "ensure-postgres: ok"
