#!/usr/bin/env bash
# Runs a command against a real `leasekit serve` daemon: starts LEASEKIT_BIN (default
# target/<profile>/leasekit) on a socket in a fresh temp directory with the memory store and a
# roomy test policy, waits until the socket exists, runs `CMD... SOCKET` (the socket path as the
# last argument), stops the daemon with SIGTERM and waits for it. Exit status: the command's,
# or 1 when the daemon does not start or does not stop cleanly (its log is printed then).
#   ffi/tests/with-daemon.sh valgrind target/debug/c/governor_client_test
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${LEASEKIT_BIN:-$root/target/${LEASEKIT_PROFILE:-debug}/leasekit}
[ -x "$bin" ] || { echo "with-daemon: $bin not built (cargo build -p leasekit-cli)"; exit 1; }
dir=$(mktemp -d /tmp/lk-c-XXXXXX)
sock="$dir/s.sock"
cat > "$dir/policy.json" <<'JSON'
{"maxInFlight":64,"dailyBudgetCents":1000000,"maxRequestsPerMinute":100000}
JSON
"$bin" serve --socket "$sock" --state "$dir/state" --store memory --policy "$dir/policy.json" \
  </dev/null >/dev/null 2>"$dir/daemon.log" &
pid=$!
cleanup() {
  if kill -0 "$pid" 2>/dev/null; then kill -KILL "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; fi
  rm -rf "$dir"
}
trap cleanup EXIT
for _ in $(seq 1 400); do  # at most 20 s
  [ -S "$sock" ] && break
  kill -0 "$pid" 2>/dev/null || { echo "with-daemon: leasekit serve exited early:"; cat "$dir/daemon.log"; exit 1; }
  sleep 0.05
done
[ -S "$sock" ] || { echo "with-daemon: no socket after 20 s:"; cat "$dir/daemon.log"; exit 1; }

"$@" "$sock"
rc=$?

kill -TERM "$pid"
wait "$pid"
drc=$?
if [ "$drc" -ne 0 ]; then echo "with-daemon: daemon exited $drc after SIGTERM:"; cat "$dir/daemon.log"; exit 1; fi
if [ -e "$sock" ]; then echo "with-daemon: the daemon left its socket behind"; exit 1; fi
exit $rc
