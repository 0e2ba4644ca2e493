#!/usr/bin/env bash
# The ARCP Python SDK's own test suite (agentruntimecontrolprotocol 1.1.3: its sdist from PyPI,
# sha256-checked, dependencies pinned in conformance/arcp-sdk/requirements.txt) run twice in
# its own virtual environment: as shipped (every test must pass) and with
# `leasekit.integrations.arcp.install(guard=True)` active (the pytest plugin
# conformance/arcp-sdk/leasekit_arcp_plugin.py); the second run's failures must be exactly
# those of conformance/arcp-sdk-expected-failures.json, each with its reason.
# The SDK's coverage gate (pytest-cov) is not run: it measures the SDK, not leasekit; its
# 10 s per-test timeout is 60 s here (a hang guard; a loaded CI machine must not flake it).
# Then leasekit's own tests of the switch (conformance/arcp-sdk/tests) in the same venv.
# Last line: "arcp-sdk: N passed, N failed" (one per step: each run, the comparison, own tests).
set -u
cd "$(dirname "$0")/.."
root=$(pwd)
export CARGO_TARGET_DIR="$root/target"
export PYTHONDONTWRITEBYTECODE=1
export PIP_DISABLE_PIP_VERSION_CHECK=1
sdk_version=1.1.3
sdk_sha256=5f22bc46087a146d44eb59cffca2c71ba1339b5e306cc96a17fe2ab06c909ee7
sdk_tests=310
dir="$root/target/arcp-sdk"
venv="$dir/venv"
sdist="$dir/agentruntimecontrolprotocol-$sdk_version.tar.gz"
pass=0
fail=0
fail_summary() { echo "arcp-sdk: $1" >&2; echo "arcp-sdk: 0 passed, 1 failed"; exit 1; }
hash_ok() { echo "$sdk_sha256  $sdist" | sha256sum -c --status 2>/dev/null; }

mkdir -p "$dir"
if ! hash_ok; then
    rm -f "$sdist"
    python3 -m pip download -q --no-binary :all: --no-deps -d "$dir" \
        "agentruntimecontrolprotocol==$sdk_version" || fail_summary "download failed"
    hash_ok || fail_summary "sdist sha256 differs from $sdk_sha256"
fi
rm -rf "$dir/src" && mkdir -p "$dir/src" && tar xzf "$sdist" -C "$dir/src" || fail_summary "unpack failed"
tree="$dir/src/agentruntimecontrolprotocol-$sdk_version"

[ -x "$venv/bin/python" ] || python3 -m venv "$venv" || fail_summary "venv failed"
"$venv/bin/pip" install -q -r conformance/arcp-sdk/requirements.txt || fail_summary "pip failed"
"$venv/bin/pip" install -q --no-deps --no-build-isolation "$sdist" || fail_summary "SDK install failed"
# LEASEKIT_WHEEL: a wheel already built from these sources (default: build ./bindings-python,
# which reuses the cargo build of scripts/test-python.sh in target/).
"$venv/bin/pip" install -q --force-reinstall --no-deps "${LEASEKIT_WHEEL:-./bindings-python}" ||
    fail_summary "leasekit install failed"

run_suite() {  # $1: log file; other args: extra pytest arguments
    local log=$1
    shift
    # CI unset: the SDK skips its websocket test when CI=true, and all 310 tests are to run here.
    (cd "$tree" && env -u CI "$venv/bin/python" -m pytest -p no:cacheprovider -q \
        -o addopts="--strict-markers --timeout=60" "$@" tests) >"$log" 2>&1
}

# 1. As shipped.
run_suite "$dir/shipped.log"
rc=$?
if [ "$rc" -eq 0 ] && grep -qE "^$sdk_tests passed in" "$dir/shipped.log"; then
    pass=$((pass + 1))
else
    tail -n 30 "$dir/shipped.log"
    echo "arcp-sdk: the suite as shipped did not pass $sdk_tests/$sdk_tests (rc $rc)"
    fail=$((fail + 1))
fi

# 2. With leasekit switched in.
rm -f "$dir/failed.txt"
PYTHONPATH="$root/conformance/arcp-sdk" LEASEKIT_ARCP_FAILURES="$dir/failed.txt" \
    run_suite "$dir/leasekit.log" -p leasekit_arcp_plugin
tail -n 1 "$dir/leasekit.log"
if [ -f "$dir/failed.txt" ] && grep -qE "(passed|failed).* in [0-9.]+s" "$dir/leasekit.log"; then
    pass=$((pass + 1))
else
    tail -n 30 "$dir/leasekit.log"
    echo "arcp-sdk: the run with leasekit did not complete"
    fail=$((fail + 1))
fi

# 3. Its failures against the expected list.
if [ -f "$dir/failed.txt" ] && "$venv/bin/python" conformance/arcp-sdk/compare_failures.py \
    conformance/arcp-sdk-expected-failures.json "$dir/failed.txt"; then
    pass=$((pass + 1))
else
    fail=$((fail + 1))
fi
# 4. leasekit's own tests of the switch (tests/test_switch.py: what it does more strictly than
#    the SDK, each beside the SDK's own answer; a denial reaching the client).
if (cd conformance/arcp-sdk && "$venv/bin/python" -m pytest -p no:cacheprovider -q) >"$dir/switch.log" 2>&1; then
    pass=$((pass + 1))
else
    tail -n 40 "$dir/switch.log"
    fail=$((fail + 1))
fi
tail -n 1 "$dir/switch.log"
echo "arcp-sdk: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
