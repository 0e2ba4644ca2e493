#!/usr/bin/env bash
# `make bench`: leasekit against the peers, side by side, in one run. NOT part of
# `make test`; it never fails the build over a timing.
#
# Writes the shared inputs (bench/inputs.py), then runs each language harness that can be
# built here: Rust core (bench/rust), C through the FFI (bench/c), Python against the ARCP
# Python SDK / fnmatch / re (bench/python), Node against a RegExp glob (bench/node), JVM
# against a java.util.regex glob (bench/jvm). A harness that cannot be built or run is
# recorded as skipped with the reason; the others still run. Finally bench/report.py merges
# target/bench/<lang>.json into docs/performance.md ("Side by side with the peers").
#   BENCH_LANGS="rust python"  run only these harnesses (default: all five)
set -u
cd "$(dirname "$0")/.."
root=$(pwd)
export CARGO_TARGET_DIR="$root/target"
export PIP_DISABLE_PIP_VERSION_CHECK=1 PYTHONDONTWRITEBYTECODE=1
out="$root/target/bench"
langs=${BENCH_LANGS:-rust c python node jvm}
start=$(date +%s)
mkdir -p "$out"
rm -f "$out"/{rust,c,python,node,jvm}.json "$out/skipped.tsv"
python3 bench/inputs.py "$out" || exit 1
printf '{"load_start": "%s"}\n' "$(cut -d' ' -f1 /proc/loadavg)" > "$out/machine.json"

limit=${BENCH_RUN_TIMEOUT:-300}   # seconds per harness run (builds not included)
measure=0   # seconds spent in the harness runs themselves (not building)
# Runs a harness under the time limit, adding its duration to $measure.
run_timed() {
  local t0=$(date +%s) rc
  timeout "$limit" "$@"
  rc=$?
  measure=$(( measure + $(date +%s) - t0 ))
  return $rc
}

skip() { printf '%s\t%s\n' "$1" "$2" >> "$out/skipped.tsv"; echo "bench: $1 skipped: $2"; }

bench_rust() {
  cp Cargo.lock bench/rust/Cargo.lock   # same dependency versions as the workspace
  cargo build --release --manifest-path bench/rust/Cargo.toml || { skip rust "cargo build failed"; return; }
  run_timed target/release/leasekit-bench "$out/inputs.json" "$out/rust.json" ||
    skip rust "harness failed or exceeded ${limit} s"
}

bench_c() {
  LEASEKIT_PROFILE=release bash ffi/build-c.sh >/dev/null || { skip c "ffi/build-c.sh (release) failed"; return; }
  cc -std=c11 -O2 -Wall -o "$out/bench-c" bench/c/bench.c -Iffi/include -L"$root/target/release" \
    -Wl,-rpath,"$root/target/release" -lleasekit_ffi -lcjson || { skip c "compiling bench/c/bench.c failed"; return; }
  run_timed "$out/bench-c" "$out/inputs.json" "$out/c.json" || skip c "harness failed or exceeded ${limit} s"
}

bench_python() {
  local venv="$root/target/bench-venv"   # never the test venv (target/py-venv)
  [ -x "$venv/bin/python" ] || python3 -m venv "$venv" || { skip python "venv failed"; return; }
  "$venv/bin/pip" install -q agentruntimecontrolprotocol==1.1.3 || { skip python "pip install of the ARCP SDK failed"; return; }
  "$venv/bin/pip" install -q --force-reinstall --no-deps ./bindings-python || { skip python "building the binding failed"; return; }
  run_timed "$venv/bin/python" bench/python/bench.py "$out/inputs.json" "$out/python.json" ||
    skip python "harness failed or exceeded ${limit} s"
}

bench_node() {
  # Build as scripts/test-node.sh does; keep the checked-in generated files as they were.
  local snap
  snap=$(mktemp -d)
  cp bindings-node/index.d.ts bindings-node/native.js "$snap/" 2>/dev/null
  (cd bindings-node && npm ci --no-audit --no-fund --loglevel=error && npm run --silent build)
  local rc=$?
  cp "$snap/index.d.ts" "$snap/native.js" bindings-node/ 2>/dev/null
  rm -rf "$snap"
  [ $rc -eq 0 ] || { skip node "npm ci / napi build failed"; return; }
  run_timed node bench/node/bench.mjs "$out/inputs.json" "$out/node.json" ||
    skip node "harness failed or exceeded ${limit} s"
}

bench_jvm() {
  (
    source bindings-jvm/scripts/common.sh
    jvm_build_native && jvm_stage_native_resource || exit 1
    cd bindings-jvm && mvn -B -q --no-transfer-progress -DskipTests package dependency:build-classpath \
      -Dmdep.outputFile=target/classpath.txt -Dmdep.includeScope=runtime
  ) || { skip jvm "building the JVM binding (cargo + mvn package) failed"; return; }
  local cp="bindings-jvm/target/leasekit-0.1.0.jar:$(cat bindings-jvm/target/classpath.txt)"
  run_timed java -cp "$cp" bench/jvm/Bench.java "$out/inputs.tsv" "$out/jvm.json" ||
    skip jvm "harness failed or exceeded ${limit} s"
}

for lang in $langs; do
  echo "=== bench: $lang"
  "bench_$lang"
done

secs=$(( $(date +%s) - start ))
python3 - "$out/machine.json" "$measure" <<'PY'
import json, sys
path, measure = sys.argv[1], int(sys.argv[2])
with open(path) as f:
    meta = json.load(f)
meta["measure_seconds"] = measure
with open(path, "w") as f:
    json.dump(meta, f)
PY
python3 bench/report.py "$out" docs/performance.md --command "make bench" --seconds "$secs" || exit 1
# The daemon series (leasekit serve: memory vs SQLite FULL vs NORMAL); BENCH_DAEMON=0 skips it.
[ "${BENCH_DAEMON:-1}" = 0 ] || bash scripts/bench-daemon.sh
# The latency the MCP guard adds per tools/call (docs/mcp.md); BENCH_MCP=0 skips it.
[ "${BENCH_MCP:-1}" = 0 ] || bash scripts/bench-mcp.sh
echo "bench: wrote docs/performance.md in ${secs} s ($(ls "$out"/*.json | grep -vc -e inputs -e machine) harness results)"
[ -f "$out/skipped.tsv" ] && cat "$out/skipped.tsv"
exit 0
