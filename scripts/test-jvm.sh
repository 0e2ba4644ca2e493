#!/usr/bin/env bash
# JVM: build the JNI library (cargo, release), package it into the jar's resources, run
# `mvn verify` (JUnit 5: the Java API tests plus the conformance runner over every vector,
# honouring LEASEKIT_VECTORS; GovernorClientTest starts a real `leasekit serve`, so the CLI
# binary is built too and its path passed as -Dleasekit.cli.path), then run examples/java/QuickStart.java against the packaged jar
# (which loads the library from the jar's resources). Maven downloads its plugins and
# dependencies from Maven Central on a fresh machine.
# Last line: "jvm: N passed, N failed" (Surefire's tests + the example).
set -u
cd "$(dirname "$0")/.."
source bindings-jvm/scripts/common.sh

status=0
jvm_build_native || { echo "jvm: 0 passed, 1 failed"; exit 1; }
jvm_build_cli || { echo "jvm: 0 passed, 1 failed"; exit 1; }
jvm_stage_native_resource

rm -rf bindings-jvm/target/surefire-reports
(cd bindings-jvm && mvn -B --no-transfer-progress -Dstyle.color=never verify dependency:build-classpath \
  -Dmdep.outputFile=target/classpath.txt -DincludeScope=runtime \
  -Dleasekit.library.path="$JVM_LIB" -Dleasekit.cli.path="$JVM_CLI") || status=1
echo  # Maven leaves ANSI resets without a newline; keep the summary on its own line

read -r pass fail < <(jvm_count_reports bindings-jvm/target/surefire-reports)

# The example, from the packaged jar only (no library path: the jar's resource is used).
jar=bindings-jvm/target/leasekit-$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -n 1).jar
if [ -f "$jar" ] && [ -f bindings-jvm/target/classpath.txt ]; then
  if java -cp "$jar:$(cat bindings-jvm/target/classpath.txt)" examples/java/QuickStart.java; then
    pass=$((pass + 1))
  else
    echo "examples/java/QuickStart.java FAILED"
    fail=$((fail + 1)); status=1
  fi
else
  echo "jar or classpath missing: example not run"
  fail=$((fail + 1)); status=1
fi

# The error-code tables are generated (scripts/gen-error-tables.py): their check is one more test.
if python3 "$root/scripts/gen-error-tables.py" --check; then pass=$((pass + 1)); else fail=$((fail + 1)); status=1; fi
# So are the typed governor methods (scripts/gen-governor-methods.py): one more test.
if python3 "$root/scripts/gen-governor-methods.py" --check; then pass=$((pass + 1)); else fail=$((fail + 1)); status=1; fi
[ "$status" -ne 0 ] && [ "$fail" -eq 0 ] && fail=1
echo "jvm: $pass passed, $fail failed"
exit $status
