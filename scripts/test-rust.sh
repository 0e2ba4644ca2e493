#!/usr/bin/env bash
# Rust: fmt check, clippy over the whole workspace (bindings and fuzz crate included), and every
# cargo test of the default members (core, ffi, cli, serve) and the fuzz crate's replay tests;
# the bindings are tested by their own toolchains.
# First, the conformance vectors must be what their generator writes (counted as one test), and
# every manifest must carry the workspace version (scripts/check-versions.py, one more).
# The governor's PostgreSQL tests (feature leasekit/postgres) start a throwaway server of their
# own; scripts/ensure-postgres.sh installs the server binaries when they are missing.
set -u
cd "$(dirname "$0")/.."
status=0
vectors_ok=0
if bash scripts/vectors-check.sh; then vectors_ok=1; else status=1; fi
# Every binding follows the one floor plan (README.md "Layout"): one more counted test.
plan_ok=0
if python3 scripts/check-floor-plan.py; then plan_ok=1; else status=1; fi
# Every manifest carries the workspace version (and the check catches a change in each): one more.
versions_ok=0
if python3 scripts/check-versions.py && python3 scripts/check-versions.py --self-test; then versions_ok=1; else status=1; fi
cargo fmt --all -- --check || { echo "cargo fmt: differences found"; status=1; }
bash scripts/ensure-postgres.sh || status=1
# promtool checks a real scrape in the metrics test; when it cannot be installed the test says
# it skipped that check (and only then).
if bash scripts/ensure-promtool.sh; then export LEASEKIT_REQUIRE_PROMTOOL=1; fi
cargo clippy --workspace --all-targets --features leasekit/postgres -q -- -D warnings || status=1
out=$(mktemp)
# The default members and the fuzz crate (its replay of the seed corpora and minimized crashes,
# plain tests on stable) in one build: one feature resolution, one dependency tree.
cargo test --features leasekit/postgres -p leasekit -p leasekit-ffi -p leasekit-cli -p leasekit-serve \
  -p leasekit-fuzz 2>&1 | tee "$out"
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
# The docs name only CLI flags, Makefile targets and stores that exist (read from the CLI that
# cargo test just built), and the check catches each kind of drift: one more counted test.
docs_ok=0
if python3 scripts/check-docs.py && python3 scripts/check-docs.py --self-test; then docs_ok=1; else status=1; fi
# docs/errors.md and docs/policy.md are what their generators write from the code: one more.
errors_doc_ok=0
if python3 scripts/gen-errors-doc.py --check && python3 scripts/gen-policy-doc.py --check; then errors_doc_ok=1; else status=1; fi
pass=$(awk '/^test result:/ { for (i = 1; i <= NF; i++) if ($(i+1) ~ /^passed/) s += $i } END { print s + 0 }' "$out")
fail=$(awk '/^test result:/ { for (i = 1; i <= NF; i++) if ($(i+1) ~ /^failed/) s += $i } END { print s + 0 }' "$out")
pass=${pass:-0}; fail=${fail:-0}
if [ "$vectors_ok" -eq 1 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
if [ "$plan_ok" -eq 1 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
if [ "$versions_ok" -eq 1 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
if [ "$docs_ok" -eq 1 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
if [ "$errors_doc_ok" -eq 1 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
[ "$status" -ne 0 ] && [ "$fail" -eq 0 ] && fail=1
echo "rust: $pass passed, $fail failed"
exit $status
