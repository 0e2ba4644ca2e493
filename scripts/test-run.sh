#!/usr/bin/env bash
# `make run` as a newcomer runs it: from this checkout, it must exit 0 and print every step the
# README promises. One counted test for the exit status and one per promised heading; the last
# line is "run: N passed, N failed" (scripts/test-all.sh sums it).
set -u
cd "$(dirname "$0")/.."
out=$(mktemp)
trap 'rm -f "$out"' EXIT
pass=0 fail=0
make --no-print-directory run >"$out" 2>&1
rc=$?
cat "$out"
echo
if [ "$rc" -eq 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: make run exited $rc"; fi
# The steps of the tour, one heading each (scripts/run.sh prints them as "== <heading>").
headings=(
  "Lint the example Agentfiles"
  "Lint the Agentfile with deliberate mistakes"
  "Review the vault-backed agent before running it"
  "May the code reviewer read these files?"
  "...and fetch these URLs?"
  "Test the code reviewer's own lease (derived from its Agentfile)"
  "Evaluate the code reviewer's Cedar policy"
  "Pin the triager: its lockfile"
  "Can the reviewer delegate this child lease?"
  "...and this one?"
  "Narrow a triager's request to the org ceiling"
  "What does this pattern match?"
  "Start the governor daemon (leasekit serve) on a throwaway state directory"
  "Acquire a lease before a model call"
  "...and release it with the actual cost"
  "The daemon's status"
)
for h in "${headings[@]}"; do
  if grep -qF -- "== $h" "$out"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: make run did not show \"$h\""; fi
done
# The daemon part must really have worked: a granted acquire and a release receipt.
for want in '"granted": true' '"classification": "recorded"' 'done: see cli/README.md'; do
  if grep -qF -- "$want" "$out"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: make run output lacks $want"; fi
done
echo "run: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
