#!/usr/bin/env bash
# C: runs the shared conformance vectors through the leasekit C ABI (ffi/tests/conformance.c).
# Honours LEASEKIT_VECTORS (a directory of *.json; default conformance/vectors).
# LEASEKIT_VALGRIND=1 runs the runner under valgrind. Last line: "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
profile=${LEASEKIT_PROFILE:-debug}
if ! bash ffi/build-c.sh; then
  echo "0 passed, 1 failed"
  exit 1
fi
runner="target/$profile/c/conformance"
if [ "${LEASEKIT_VALGRIND:-0}" = 1 ]; then
  exec valgrind -q --leak-check=full --num-callers=60 --error-exitcode=99 --suppressions=ffi/tests/valgrind.supp "$runner"
fi
exec "$runner"
