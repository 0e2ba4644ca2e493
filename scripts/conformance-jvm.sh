#!/usr/bin/env bash
# JVM conformance only: the shared vectors through the Java API (ConformanceTest, one JUnit
# dynamic test per vector). LEASEKIT_VECTORS=<dir> replaces conformance/vectors.
# Last line: "N passed, N failed".
set -u
cd "$(dirname "$0")/.."
source bindings-jvm/scripts/common.sh

status=0
jvm_build_native || { echo "0 passed, 1 failed"; exit 1; }
rm -rf bindings-jvm/target/surefire-reports
(cd bindings-jvm && mvn -B --no-transfer-progress -Dstyle.color=never test -Dtest=ConformanceTest \
  -Dsurefire.failIfNoSpecifiedTests=false -Dleasekit.library.path="$JVM_LIB") || status=1
echo  # Maven leaves ANSI resets without a newline; keep the summary on its own line
read -r pass fail < <(jvm_count_reports bindings-jvm/target/surefire-reports)
[ "$status" -ne 0 ] && [ "$fail" -eq 0 ] && fail=1
echo "$pass passed, $fail failed"
exit $status
