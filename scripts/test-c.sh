#!/usr/bin/env bash
# C: the leasekit-ffi crate's tests (generated header up to date, status enum equals
# conformance/error-codes.json), the C API tests and the conformance runner under
# valgrind, and the examples/c program. Last line: "c: N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="$(pwd)/target"
profile=${LEASEKIT_PROFILE:-debug}
out="target/$profile/c"
pass=0 fail=0 status=0
vg=(valgrind -q --leak-check=full --errors-for-leak-kinds=definite,indirect,possible --error-exitcode=99
    --num-callers=60 --suppressions=ffi/tests/valgrind.supp)

# Adds the "N passed, N failed" counts of the last such line of file $1 (prefix $2).
count() {
  local line
  line=$(grep -E "^${2}[0-9]+ passed, [0-9]+ failed" "$1" | tail -n 1 | grep -oE '[0-9]+ passed, [0-9]+ failed')
  if [ -n "$line" ]; then
    pass=$((pass + $(echo "$line" | awk '{ print $1 }')))
    fail=$((fail + $(echo "$line" | awk '{ print $3 }')))
  else
    fail=$((fail + 1))
  fi
}

log=$(mktemp)
trap 'rm -f "$log"' EXIT

# The Rust step runs (and counts) these too, as part of the workspace's cargo test:
# scripts/test-all.sh sets LEASEKIT_FFI_TESTED=1 after it, and they are not run twice.
if [ -z "${LEASEKIT_FFI_TESTED:-}" ]; then
  echo "--- cargo test -p leasekit-ffi (header check, status codes)"
  cargo test -p leasekit-ffi 2>&1 | tee "$log"
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
  pass=$((pass + $(awk '/^test result:/ { for (i = 1; i <= NF; i++) if ($(i+1) ~ /^passed/) s += $i } END { print s + 0 }' "$log")))
  fail=$((fail + $(awk '/^test result:/ { for (i = 1; i <= NF; i++) if ($(i+1) ~ /^failed/) s += $i } END { print s + 0 }' "$log")))
fi

echo "--- error tables (scripts/gen-error-tables.py --check; the header's LkStatus is verified)"
if python3 scripts/gen-error-tables.py --check; then pass=$((pass + 1)); else fail=$((fail + 1)); status=1; fi

echo "--- typed governor functions (scripts/gen-governor-methods.py --check)"
if python3 scripts/gen-governor-methods.py --check; then pass=$((pass + 1)); else fail=$((fail + 1)); status=1; fi

echo "--- build library and C programs"
if ! bash ffi/build-c.sh; then
  echo "c: $pass passed, $((fail + 1)) failed"
  exit 1
fi

echo "--- C API tests (valgrind)"
"${vg[@]}" "$out/capi_test" 2>&1 | tee "$log"
[ "${PIPESTATUS[0]}" -eq 0 ] || { status=1; grep -q '^capi: .* 0 failed' "$log" && fail=$((fail + 1)); }
count "$log" "capi: "

echo "--- governor C API tests (valgrind)"
"${vg[@]}" "$out/governor_test" 2>&1 | tee "$log"
[ "${PIPESTATUS[0]}" -eq 0 ] || { status=1; grep -q '^governor: .* 0 failed' "$log" && fail=$((fail + 1)); }
count "$log" "governor: "

echo "--- governor client C API tests against a real leasekit serve (valgrind)"
# ($LEASEKIT_BIN when the caller built it: scripts/test-all.sh passes the Rust step's.)
if [ -n "${LEASEKIT_BIN:-}" ]; then [ -x "$LEASEKIT_BIN" ]
elif [ "$profile" = release ]; then cargo build -q -p leasekit-cli --release; else cargo build -q -p leasekit-cli; fi ||
  { status=1; fail=$((fail + 1)); }
bash ffi/tests/with-daemon.sh "${vg[@]}" "$out/governor_client_test" 2>&1 | tee "$log"
[ "${PIPESTATUS[0]}" -eq 0 ] || { status=1; grep -q '^governor-client: .* 0 failed' "$log" && fail=$((fail + 1)); }
count "$log" "governor-client: "

echo "--- conformance vectors (valgrind; vectors over 2000 steps run under ASan below)"
LEASEKIT_MAX_STEPS=2000 "${vg[@]}" "$out/conformance" 2>&1 | tee "$log"
[ "${PIPESTATUS[0]}" -eq 0 ] || { status=1; grep -qE '^[0-9]+ passed, 0 failed' "$log" && fail=$((fail + 1)); }
count "$log" ""

echo "--- examples/c"
export PKG_CONFIG_PATH="$(pwd)/target/$profile/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
if make -s -C examples/c OUT="$(pwd)/$out" "$(pwd)/$out/authorize" &&
   "${vg[@]}" "$out/authorize" > "$log" 2>&1; then
  cat "$log"
  if grep -q '^allow fs.read /data/reports/../2026/q1.csv -> /data/2026/q1.csv$' "$log" &&
     grep -q '^deny  net.fetch https://evil.example.com/steal: PERMISSION_DENIED ' "$log"; then
    pass=$((pass + 1))
  else
    echo "examples/c: unexpected output"; fail=$((fail + 1)); status=1
  fi
else
  cat "$log"; echo "examples/c: build or run failed"; fail=$((fail + 1)); status=1
fi

echo "--- ASan, LSan, UBSan (scripts/test-c-asan.sh)"
bash scripts/test-c-asan.sh 2>&1 | tee "$log"
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
count "$log" "c-asan: "

[ "$fail" -eq 0 ] || status=1
echo "c: $pass passed, $fail failed"
exit $status
