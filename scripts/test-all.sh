#!/usr/bin/env bash
# Runs the tests of every language present, in order, and ends with one line
# "N passed, N failed" that sums them. Each step is scripts/test-<step>.sh; it must
# print a last summary line "<step>: N passed, N failed" and exit non-zero on failure.
set -u
cd "$(dirname "$0")/.."
logdir=target/test-logs
mkdir -p "$logdir"
total_pass=0 total_fail=0 status=0 times="" failed_steps=""
# The release builds the tests use (make dist, and through it make run, Python, Node, JVM) skip
# link-time optimization: it costs minutes per library on a 2-core machine and changes no
# behaviour. `make dist` run alone keeps it for the artifacts it ships.
export CARGO_PROFILE_RELEASE_LTO=${CARGO_PROFILE_RELEASE_LTO:-off}
# The debug builds (the Rust tests, the C step's library): no incremental caches (a fresh
# checkout never reuses them) and line tables only for debug info (backtraces and valgrind
# keep file:line; linking ~60 test binaries with full debug info costs minutes and gigabytes).
export CARGO_INCREMENTAL=${CARGO_INCREMENTAL:-0}
export CARGO_PROFILE_DEV_DEBUG=${CARGO_PROFILE_DEV_DEBUG:-line-tables-only}
steps=${LEASEKIT_TEST_STEPS:-"dist run rust c python node jvm mcp"}
for step in $steps; do
  script="scripts/test-$step.sh"
  [ -f "$script" ] || continue
  echo "==> $step"
  started=$(date +%s)
  bash "$script" 2>&1 | tee "$logdir/$step.log"
  rc=${PIPESTATUS[0]}
  echo "==> $step took $(($(date +%s) - started)) s"
  line=$(grep -E "^$step: [0-9]+ passed, [0-9]+ failed" "$logdir/$step.log" | tail -n 1)
  if [ -n "$line" ]; then
    p=$(echo "$line" | sed -E 's/^[^:]+: ([0-9]+) passed, ([0-9]+) failed.*/\1/')
    f=$(echo "$line" | sed -E 's/^[^:]+: ([0-9]+) passed, ([0-9]+) failed.*/\2/')
  else
    p=0 f=1
  fi
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
  [ "$rc" -ne 0 ] && { status=1; echo "==> $step FAILED (exit $rc)"; }
  total_pass=$((total_pass + p)); total_fail=$((total_fail + f))
  times+="  $step: $(($(date +%s) - started)) s, $p passed, $f failed"$'\n'
  [ "$f" -ne 0 ] && failed_steps+=" $step"
  # The Rust step's `cargo test` built the CLI (target/debug/leasekit) and ran the leasekit-ffi
  # tests: the later steps use that binary instead of building another feature set of the
  # workspace (`cargo build -p leasekit-cli` resolves features differently), and the C step does
  # not run the ffi tests again.
  # The dist step built the release libraries once (one zig tree, glibc 2.17) and the wheel:
  # `make run`, the Python, JVM, Node and MCP steps use those instead of building their own
  # (scripts/run.sh, test-python.sh, test-mcp.sh, bindings-jvm/scripts/common.sh, napi-cargo.sh).
  if [ "$step" = dist ] && [ "$rc" -eq 0 ] && [ -z "${LEASEKIT_RELEASE_DIR:-}" ]; then
    export LEASEKIT_RELEASE_DIR="$PWD/target/x86_64-unknown-linux-gnu/release"
    export LEASEKIT_ZIGBUILD="$PWD/target/dist-venv/bin"
    LEASEKIT_WHEEL=$(ls "$PWD"/dist/python/leasekit-*-abi3-*.whl | head -n 1)
    export LEASEKIT_WHEEL
  fi
  if [ "$step" = rust ] && [ "$rc" -eq 0 ] && [ -x target/debug/leasekit ] && [ -z "${LEASEKIT_BIN:-}" ]; then
    export LEASEKIT_BIN="$PWD/target/debug/leasekit" LEASEKIT_FFI_TESTED=1
  fi
done
# CI shows only the end of the output: repeat each step's time and, for a failed step, the lines
# of its log that name what failed (cargo, pytest, node --test, Surefire, the C runners).
echo
echo "==> summary"
printf '%s' "$times"
for step in $failed_steps; do
  echo "==> what failed in $step (from $logdir/$step.log)"
  grep -E -- '^test .* FAILED$|^---- .* stdout ----$|panicked at|^FAILED |^FAIL |^ERROR |^not ok |^\[ERROR\] (Tests run|  [A-Za-z])|failures:$|^    [a-z_:]+$|FAILED \(exit|[0-9]+ failed|did not (pass|complete)' \
    "$logdir/$step.log" | grep -vE ' 0 failed' | head -n 60
done
echo
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ] || status=1
exit $status
