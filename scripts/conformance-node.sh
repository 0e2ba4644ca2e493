#!/usr/bin/env bash
# Node conformance runner only: every vector of $LEASEKIT_VECTORS (default
# conformance/vectors) through the public `leasekit` package. Builds the addon if needed
# (npm ci, napi build; cargo makes a rebuild cheap). Last line: "N passed, N failed".
set -u
root="$(cd "$(dirname "$0")/.." && pwd)"
if [ -n "${LEASEKIT_VECTORS:-}" ]; then
  LEASEKIT_VECTORS="$(cd "$LEASEKIT_VECTORS" && pwd)" || { echo "0 passed, 1 failed"; exit 1; }
  export LEASEKIT_VECTORS
fi
cd "$root/bindings-node"
if [ ! -d node_modules/@napi-rs/cli ]; then
  npm ci --no-audit --no-fund --loglevel=error || { echo "0 passed, 1 failed"; exit 1; }
fi
export CARGO_TARGET_DIR="$root/target"
export CARGO="$root/scripts/napi-cargo.sh"   # one release tree shared with run, Python and the JVM
npm run --silent build >/dev/null || { echo "napi build failed"; echo "0 passed, 1 failed"; exit 1; }

out="$(mktemp)"
trap 'rm -f "$out"' EXIT
node --test --test-reporter=spec --test-reporter-destination=stdout \
  --test-reporter=tap --test-reporter-destination="$out" test/conformance.test.mjs
status=$?
pass=$(awk '/^# pass / { print $3 }' "$out" | tail -n 1)
fail=$(awk '/^# fail / { print $3 }' "$out" | tail -n 1)
pass=${pass:-0}
fail=${fail:-0}
[ "$status" -ne 0 ] && [ "$fail" -eq 0 ] && fail=1
echo "$pass passed, $fail failed"
exit "$status"
