#!/usr/bin/env bash
# The daemon series of `make bench` (also `make bench-daemon`): acquire+release pairs/s through a
# real `leasekit serve` (release build), memory vs SQLite FULL vs NORMAL at 1, 16 and 64 clients,
# driven by a Rust client (bench/rust-daemon) and by the Python client (bench/python/daemon.py),
# interleaved, ratios printed, p50/p99 per acquire, load average with each run. Writes
# target/bench/daemon-{rust,python}.json and the "Daemon series" section of docs/performance.md.
# Never fails the build over a timing.
#   BENCH_QUICK=1           one short round (a smoke run: seconds, not minutes)
#   BENCH_ROUNDS=N          rounds (default 3)
#   BENCH_BEFORE=PATH       also run this `leasekit` binary (labelled "before") in the same rounds
#   BENCH_DAEMON_PAIRS=N    pairs per run in all clients (default 4 000; longer runs for profiling)
#   BENCH_DAEMON_STORES=L   a subset of memory,full,normal (ratios need memory)
#   BENCH_DAEMON_PYTHON=0   skip the Python client (its binding is rebuilt only when core/,
#                           bindings-python/ or the Cargo files changed since its last install)
set -u
cd "$(dirname "$0")/.."
root=$(pwd)
export CARGO_TARGET_DIR="$root/target"
export PIP_DISABLE_PIP_VERSION_CHECK=1 PYTHONDONTWRITEBYTECODE=1
out="$root/target/bench"
mkdir -p "$out"
rm -f "$out"/daemon-rust.json "$out"/daemon-python.json
quick=()
[ "${BENCH_QUICK:-0}" = 1 ] && quick=(--quick)
rounds=${BENCH_ROUNDS:-3}
limit=${BENCH_RUN_TIMEOUT:-900}

cargo build --release -p leasekit-cli --bin leasekit --example bench-daemon || {
  echo "bench-daemon: cargo build failed"; exit 0; }
bins=(--bin "after=$root/target/release/leasekit")
[ -n "${BENCH_BEFORE:-}" ] && bins=(--bin "before=$BENCH_BEFORE" "${bins[@]}")
echo "=== bench: daemon series, Rust client (load $(cut -d' ' -f1-3 /proc/loadavg))"
timeout "$limit" target/release/examples/bench-daemon "${quick[@]}" --rounds "$rounds" "${bins[@]}" \
  "$out/daemon-rust.json" || echo "bench-daemon: the Rust driver failed or exceeded ${limit} s"

if [ "${BENCH_DAEMON_PYTHON:-1}" != 0 ]; then
  venv="$root/target/bench-venv"   # never the test venv (target/py-venv)
  # The binding is rebuilt only when a source it is built from changed since its last install
  # (the stamp is taken before the build, so an edit made during it still counts as newer).
  stamp="$venv/.leasekit-installed"
  ready=""
  if [ -f "$stamp" ] && [ -x "$venv/bin/python" ] &&
     [ -z "$(find core bindings-python Cargo.toml Cargo.lock -newer "$stamp" -not -path '*/__pycache__/*' -print -quit)" ]; then
    echo "bench-daemon: the Python binding in $venv is current; not rebuilt"
    ready=1
  elif { [ -x "$venv/bin/python" ] || python3 -m venv "$venv"; } && touch "$stamp.new" &&
       "$venv/bin/pip" install -q --force-reinstall --no-deps ./bindings-python &&
       mv "$stamp.new" "$stamp"; then
    ready=1
  fi
  if [ -n "$ready" ]; then
    echo "=== bench: daemon series, Python client (load $(cut -d' ' -f1-3 /proc/loadavg))"
    timeout "$limit" "$venv/bin/python" bench/python/daemon.py "${quick[@]}" --rounds "$rounds" \
      "$root/target/release/leasekit" "$out/daemon-python.json" ||
      echo "bench-daemon: the Python driver failed or exceeded ${limit} s"
  else
    echo "bench-daemon: building the Python binding failed; Python client skipped"
  fi
fi
python3 bench/daemon_report.py "$out" docs/performance.md || exit 1
exit 0
