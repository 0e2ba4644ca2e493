#!/usr/bin/env bash
# C under AddressSanitizer, LeakSanitizer and UndefinedBehaviorSanitizer: the C API tests, the
# governor client tests (against a real `leasekit serve`, ffi/tests/with-daemon.sh) and
# the conformance runner built with gcc -fsanitize=address,undefined against the ordinary
# leasekit-ffi library (Rust allocates through the system malloc, so ASan sees every heap
# block on both sides of the ABI and LSan reports leaks anywhere in the process). Complements
# the valgrind runs of scripts/test-c.sh. Last line: "c-asan: N passed, N failed".
#   make test-c-asan
set -uo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="$(pwd)/target"
profile=${LEASEKIT_PROFILE:-debug}
out="target/$profile/c-asan"
pass=0 fail=0 status=0

bash ffi/build-c.sh >/dev/null || { echo "c-asan: 0 passed, 1 failed"; exit 1; }
san="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all"
make -s -C ffi PROFILE="$profile" OUT="$(pwd)/$out" EXTRA_CFLAGS="$san" \
  "$(pwd)/$out/capi_test" "$(pwd)/$out/conformance" "$(pwd)/$out/governor_client_test" ||
  { echo "c-asan: 0 passed, 1 failed"; exit 1; }

# cedar-policy's process-lifetime statics are reachable (not leaks for LSan); nothing is
# suppressed. A report of any kind makes the program exit non-zero.
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=98:strict_string_checks=1:detect_stack_use_after_return=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
log=$(mktemp)
trap 'rm -f "$log" "$out/leak_canary" "$out/leak_canary.c"' EXIT

# The sanitizers must be able to fail here: a program that leaks one leasekit string has to
# be reported by LeakSanitizer (ptrace-less sandboxes can disable it silently).
cat > "$out/leak_canary.c" <<'C'
#include <leasekit.h>
int main(void) {
    char *s = 0;
    return lk_canonicalize_target("fs.read", "/a/../b", &s) == LK_OK ? 0 : 2; /* s leaks */
}
C
cc -std=c11 $san -Iffi/include "$out/leak_canary.c" -L"target/$profile" \
  -Wl,-rpath,"$(pwd)/target/$profile" -lleasekit_ffi -o "$out/leak_canary"
if "$out/leak_canary" >"$log" 2>&1 || ! grep -q 'ERROR: LeakSanitizer: detected memory leaks' "$log"; then
  cat "$log"; echo "LeakSanitizer did not report a known leak: the sanitizer run would prove nothing"
  echo "c-asan: 0 passed, 1 failed"; exit 1
fi
pass=$((pass + 1))

run() { # name, program (a command line, split on spaces), summary prefix
  echo "--- $1 (ASan+LSan+UBSan)"
  $2 2>&1 | tee "$log"
  local rc=${PIPESTATUS[0]}
  local line
  line=$(grep -E "^${3}[0-9]+ passed, [0-9]+ failed" "$log" | tail -n 1 | grep -oE '[0-9]+ passed, [0-9]+ failed')
  if [ -n "$line" ]; then
    pass=$((pass + $(awk '{ print $1 }' <<<"$line")))
    fail=$((fail + $(awk '{ print $3 }' <<<"$line")))
  else
    fail=$((fail + 1))
  fi
  if [ "$rc" -ne 0 ]; then
    status=1
    if grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:' "$log"; then
      echo "$1: sanitizer report"
      fail=$((fail + 1))
    elif grep -qE "^${3}[0-9]+ passed, 0 failed" "$log"; then
      fail=$((fail + 1))
    fi
  fi
}
run "C API tests" "$out/capi_test" "capi: "
run "conformance vectors" "$out/conformance" ""
# Against a real `leasekit serve` (scripts/test-c.sh built the CLI; build it if run alone).
if [ -x "target/$profile/leasekit" ] || cargo build -q -p leasekit-cli $([ "$profile" = release ] && echo --release); then
  run "governor client" "bash ffi/tests/with-daemon.sh $out/governor_client_test" "governor-client: "
else
  echo "governor client: leasekit CLI build failed"; fail=$((fail + 1))
fi
[ "$fail" -eq 0 ] || status=1
echo "c-asan: $pass passed, $fail failed"
exit $status
