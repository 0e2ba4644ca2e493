#!/usr/bin/env bash
# Node: install the npm dev dependencies (npm ci, committed package-lock.json), build the
# native addon in release mode, verify the checked-in generated files (index.d.ts,
# native.js), build the `leasekit` CLI (the daemon the client tests start), then run every
# `node --test` file (unit tests, examples, conformance runner, client against a daemon).
# Last line: "node: N passed, N failed".
set -u
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root/bindings-node"
status=0
log="$root/target/test-logs"
mkdir -p "$log"

summary() {
  echo "node: $1 passed, $2 failed"
  exit "$3"
}

if [ -n "${LEASEKIT_VECTORS:-}" ]; then
  LEASEKIT_VECTORS="$(cd "$LEASEKIT_VECTORS" && pwd)" || summary 0 1 1
  export LEASEKIT_VECTORS
fi

npm ci --no-audit --no-fund --loglevel=error || { echo "npm ci failed"; summary 0 1 1; }

# Keep the committed generated files to compare after the build regenerates them.
snap="$(mktemp -d)"
trap 'rm -rf "$snap"' EXIT
for f in index.d.ts native.js; do
  [ -f "$f" ] && cp "$f" "$snap/$f"
done

export CARGO_TARGET_DIR="$root/target"
export CARGO="$root/scripts/napi-cargo.sh"   # one release tree shared with run, Python and the JVM
npm run --silent build || { echo "napi build failed"; summary 0 1 1; }

generated_ok=1
for f in index.d.ts native.js; do
  if ! cmp -s "$f" "$snap/$f"; then
    echo "bindings-node/$f differs from the checked-in file after regeneration:"
    diff -u "$snap/$f" "$f" | head -n 40
    echo "(commit the regenerated bindings-node/$f)"
    generated_ok=0
    status=1
  fi
done

# The GovernorClient tests and the agent-loop example run against a real `leasekit serve`
# (the CLI binary, debug build as the Rust step builds it), unless LEASEKIT_BIN names one.
if [ -z "${LEASEKIT_BIN:-}" ]; then
  cargo build -p leasekit-cli --quiet || { echo "leasekit CLI build failed"; summary 0 1 1; }
  export LEASEKIT_BIN="$CARGO_TARGET_DIR/debug/leasekit"
fi

out="$log/node-test.tap"
node --test --test-reporter=spec --test-reporter-destination=stdout \
  --test-reporter=tap --test-reporter-destination="$out" test/*.test.mjs
[ $? -eq 0 ] || status=1

pass=$(awk '/^# pass / { print $3 }' "$out" | tail -n 1)
fail=$(awk '/^# fail / { print $3 }' "$out" | tail -n 1)
pass=${pass:-0}
fail=${fail:-0}
# The generated-file check counts as one test.
if [ "$generated_ok" -eq 1 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
# The error-code tables are generated (scripts/gen-error-tables.py): their check is one more test.
if python3 "$root/scripts/gen-error-tables.py" --check; then pass=$((pass + 1)); else fail=$((fail + 1)); status=1; fi
# So are the typed governor methods (scripts/gen-governor-methods.py): one more test.
if python3 "$root/scripts/gen-governor-methods.py" --check; then pass=$((pass + 1)); else fail=$((fail + 1)); status=1; fi
[ "$status" -ne 0 ] && [ "$fail" -eq 0 ] && fail=1
summary "$pass" "$fail" "$status"
