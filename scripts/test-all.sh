#!/usr/bin/env bash
# Runs the tests of every language present, in order, and ends with one line
# "N passed, N failed" that sums them. Each step is scripts/test-<step>.sh; it must
# print a last summary line "<step>: N passed, N failed" and exit non-zero on failure.
set -u
cd "$(dirname "$0")/.."
logdir=target/test-logs
mkdir -p "$logdir"
total_pass=0 total_fail=0 status=0
steps=${LEASEKIT_TEST_STEPS:-"run rust c python node jvm mcp"}
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
done
echo
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ] || status=1
exit $status
