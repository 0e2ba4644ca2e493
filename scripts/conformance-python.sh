#!/usr/bin/env bash
# Python conformance only: runs bindings-python/tests/test_conformance.py over every vector in
# $LEASEKIT_VECTORS (default conformance/vectors). Installs the binding like test-python.sh.
# LEASEKIT_GOVERNOR_SOCKET_REPLAY=1 adds the socket mode: every governor vector replayed through
# leasekit.GovernorClient against a real `leasekit serve` (tests/test_governor_socket_replay.py).
# Last line: "N passed, N failed".
set -u
cd "$(dirname "$0")/.."
root=$(pwd)
export CARGO_TARGET_DIR="$root/target"
export PYTHONDONTWRITEBYTECODE=1
export PIP_DISABLE_PIP_VERSION_CHECK=1
if [ -n "${LEASEKIT_VECTORS:-}" ]; then
  LEASEKIT_VECTORS=$(cd "$LEASEKIT_VECTORS" && pwd) || { echo "0 passed, 1 failed"; exit 1; }
  export LEASEKIT_VECTORS
fi
venv="$root/target/py-venv"
fail_summary() { echo "0 passed, 1 failed"; exit 1; }
[ -x "$venv/bin/python" ] || python3 -m venv "$venv" || fail_summary
"$venv/bin/pip" install -q pytest || fail_summary
"$venv/bin/pip" install -q --force-reinstall --no-deps ./bindings-python || fail_summary

tests=(tests/test_conformance.py)
if [ "${LEASEKIT_GOVERNOR_SOCKET_REPLAY:-}" = 1 ]; then
  cargo build -q -p leasekit-cli || fail_summary
  tests+=(tests/test_governor_socket_replay.py)
fi

out=$(mktemp)
(cd bindings-python && "$venv/bin/python" -m pytest -p no:cacheprovider -q "${tests[@]}") 2>&1 | tee "$out"
rc=${PIPESTATUS[0]}
summary=$(grep -E '(passed|failed|errors?|no tests ran).* in [0-9.]+s' "$out" | tail -n 1)
num() { echo "$summary" | grep -oE "[0-9]+ $1" | grep -oE '^[0-9]+' || echo 0; }
pass=$(num passed); fail=$(( $(num failed) + $(num 'errors?') ))
[ "$rc" -ne 0 ] && [ "$fail" -eq 0 ] && fail=1
rm -f "$out"
echo "$pass passed, $fail failed"
[ "$rc" -eq 0 ]
