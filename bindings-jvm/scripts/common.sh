# Shared by scripts/test-jvm.sh and scripts/conformance-jvm.sh (sourced from the repo root).

root=$(pwd)
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}"
# $LEASEKIT_RELEASE_DIR: a release tree holding the JNI library already (`make test` passes the
# zig tree `make dist` built); otherwise target/release, built here.
JVM_LIB="${LEASEKIT_RELEASE_DIR:-$CARGO_TARGET_DIR/release}/libleasekit_jvm.so"
# The `leasekit` CLI (debug build), whose `leasekit serve` GovernorClientTest starts.
# $LEASEKIT_BIN when the caller built it (scripts/test-all.sh passes the Rust step's).
JVM_CLI="${LEASEKIT_BIN:-$CARGO_TARGET_DIR/debug/leasekit}"

# Maven runs in bindings-jvm/: make a relative LEASEKIT_VECTORS absolute first.
if [ -n "${LEASEKIT_VECTORS:-}" ]; then
  case "$LEASEKIT_VECTORS" in
    /*) ;;
    *) export LEASEKIT_VECTORS="$root/$LEASEKIT_VECTORS" ;;
  esac
fi

# Builds the JNI library (release profile, shared target dir).
jvm_build_native() {
  if [ -n "${LEASEKIT_RELEASE_DIR:-}" ]; then [ -f "$JVM_LIB" ]; return; fi
  cargo build --release -p leasekit-jvm && [ -f "$JVM_LIB" ]
}

# Builds the `leasekit` CLI binary for the daemon tests (debug profile, shared target dir).
jvm_build_cli() {
  if [ -n "${LEASEKIT_BIN:-}" ]; then [ -x "$JVM_CLI" ]; return; fi
  cargo build -p leasekit-cli --bin leasekit && [ -x "$JVM_CLI" ]
}

# Copies the library to where the pom packages it: native/<os>-<arch>/ in the jar.
jvm_stage_native_resource() {
  local arch
  case "$(uname -m)" in
    x86_64 | amd64) arch=x86_64 ;;
    aarch64 | arm64) arch=aarch_64 ;;
    *) arch=$(uname -m) ;;
  esac
  local dir="bindings-jvm/target/native-resources/native/linux-$arch"
  mkdir -p "$dir" && cp "$JVM_LIB" "$dir/"
}

# Prints "passed failed" summed over Surefire's XML reports in $1.
jvm_count_reports() {
  python3 - "$1" <<'PY'
import glob, sys, xml.etree.ElementTree as ET
passed = failed = 0
for path in glob.glob(sys.argv[1] + "/TEST-*.xml"):
    s = ET.parse(path).getroot()
    tests, fails, errors, skipped = (int(s.get(k, 0)) for k in ("tests", "failures", "errors", "skipped"))
    passed += tests - fails - errors - skipped
    failed += fails + errors
print(passed, failed)
PY
}
