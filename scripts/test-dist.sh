#!/usr/bin/env bash
# The first step of `make test`: `make dist` (every release artifact into dist/), then `make
# dist-test` (each artifact installed offline, with no Rust toolchain reachable, and its README
# example run). scripts/test-all.sh then points the later steps at these builds instead of
# building the release libraries again: `make run` uses the CLI of the zig release tree, the
# Python steps install dist/'s wheel, the JVM step packages the tree's JNI library, and the
# Node steps' `napi build` compiles into the same tree with cargo-zigbuild (scripts/napi-cargo.sh).
# As every release build of `make test`, these skip link-time optimization
# (CARGO_PROFILE_RELEASE_LTO=off from scripts/test-all.sh); `make dist` alone keeps it.
# Last line: "dist: N passed, N failed" (dist-test's checks, plus one for `make dist` itself).
set -u
cd "$(dirname "$0")/.."
if ! bash scripts/dist.sh; then
  echo "make dist FAILED"
  echo "dist: 0 passed, 1 failed"
  exit 1
fi
out=$(mktemp)
trap 'rm -f "$out"' EXIT
bash scripts/dist-test.sh 2>&1 | tee "$out"
rc=${PIPESTATUS[0]}
line=$(grep -E '^dist-test: [0-9]+ passed, [0-9]+ failed' "$out" | tail -n 1)
pass=$(echo "$line" | sed -nE 's/^dist-test: ([0-9]+) passed.*/\1/p')
fail=$(echo "$line" | sed -nE 's/.* ([0-9]+) failed.*/\1/p')
pass=${pass:-0} fail=${fail:-1}
[ "$rc" -ne 0 ] && [ "$fail" -eq 0 ] && fail=1
echo "dist: $((pass + 1)) passed, $fail failed"
[ "$rc" -eq 0 ] && [ "$fail" -eq 0 ]
