#!/usr/bin/env bash
# Python: install the binding into a virtual environment under target/ (the wheel `make dist`
# built, $LEASEKIT_WHEEL, as scripts/test-all.sh passes it; else built from ./bindings-python
# with maturin through pip), then run every pytest test (unit tests, stub check,
# example, conformance runner; the GovernorClient tests, the governor example loop and the
# socket replay of the governor vectors against a real `leasekit serve`), then the ARCP Python
# SDK's own suite with leasekit switched in (scripts/test-arcp-sdk.sh). Last line: "python: N passed, N failed".
set -u
cd "$(dirname "$0")/.."
root=$(pwd)
export CARGO_TARGET_DIR="$root/target"   # share the workspace target dir (core compiled once)
export PYTHONDONTWRITEBYTECODE=1
export PIP_DISABLE_PIP_VERSION_CHECK=1
venv="$root/target/py-venv"
status=0
fail_summary() { echo "python: 0 passed, 1 failed"; exit 1; }

[ -x "$venv/bin/python" ] || python3 -m venv "$venv" || fail_summary
"$venv/bin/pip" install -q pytest || fail_summary
# --force-reinstall: a rerun must test the current sources, not an older build.
"$venv/bin/pip" install --force-reinstall --no-deps "${LEASEKIT_WHEEL:-./bindings-python}" || fail_summary

# The daemon tests start a real `leasekit serve` (the CLI binary of this workspace).
# ($LEASEKIT_BIN when the caller built it: scripts/test-all.sh passes the Rust step's.)
[ -n "${LEASEKIT_BIN:-}" ] || cargo build -q -p leasekit-cli || fail_summary

out=$(mktemp)
(cd bindings-python && "$venv/bin/python" -m pytest -p no:cacheprovider -q tests) 2>&1 | tee "$out"
rc=${PIPESTATUS[0]}
# rc 5 = no tests collected: that is a failure, not a pass.
[ "$rc" -ne 0 ] && status=1
summary=$(grep -E '(passed|failed|errors?|no tests ran).* in [0-9.]+s' "$out" | tail -n 1)
num() { echo "$summary" | grep -oE "[0-9]+ $1" | grep -oE '^[0-9]+' || echo 0; }
pass=$(num passed); fail=$(num failed); errs=$(num 'errors?')
fail=$((fail + errs))
# The error-code tables are generated (scripts/gen-error-tables.py): their check is one more test.
if python3 "$root/scripts/gen-error-tables.py" --check; then pass=$((pass + 1)); else fail=$((fail + 1)); status=1; fi
# So are the typed governor methods (scripts/gen-governor-methods.py): one more test.
if python3 "$root/scripts/gen-governor-methods.py" --check; then pass=$((pass + 1)); else fail=$((fail + 1)); status=1; fi
# docs/quickstart.md runs as written, its Python blocks included, with this binding: one more.
if python3 "$root/scripts/check-docs.py" --quickstart-only --python "$venv/bin/python"; then pass=$((pass + 1)); else fail=$((fail + 1)); status=1; fi
# The ARCP Python SDK's own suite, as shipped and switched to leasekit (scripts/test-arcp-sdk.sh).
sdk_out=$(bash "$root/scripts/test-arcp-sdk.sh" 2>&1)
sdk_rc=$?
echo "$sdk_out"
sdk_line=$(echo "$sdk_out" | tail -n 1)
pass=$((pass + $(echo "$sdk_line" | grep -oE '[0-9]+ passed' | grep -oE '^[0-9]+' || echo 0)))
fail=$((fail + $(echo "$sdk_line" | grep -oE '[0-9]+ failed' | grep -oE '^[0-9]+' || echo 1)))
[ "$sdk_rc" -ne 0 ] && status=1
[ "$status" -ne 0 ] && [ "$fail" -eq 0 ] && fail=1
rm -f "$out"
echo "python: $pass passed, $fail failed"
exit $status
