#!/usr/bin/env bash
# make fuzz: every cargo-fuzz target in fuzz/ for FUZZ_SECONDS (default 60) each, seeded from
# the conformance vectors and examples, printing one line per target: executions, coverage
# (libFuzzer's edge coverage `cov` and features `ft`), corpus size and crashes.
#   FUZZ_SECONDS=600 make fuzz                     longer runs
#   FUZZ_TARGETS="canonicalize narrow" make fuzz   a subset of the targets
# Runs use libFuzzer's fork mode with crashes, timeouts and OOMs ignored, so each target runs
# its whole time; every crash input is kept in fuzz/artifacts/<target>/ (minimize with
# `cargo +nightly fuzz tmin --features libfuzzer <target> <file>`, then add it to fuzz/regressions/<target>/, which
# `make test` replays). Needs a nightly toolchain (or stable with RUSTC_BOOTSTRAP=1) and
# cargo-fuzz (`cargo install cargo-fuzz`, installed here when missing).
set -u
cd "$(dirname "$0")/.."
secs=${FUZZ_SECONDS:-60}
export CARGO_BUILD_JOBS=${CARGO_BUILD_JOBS:-2}

if cargo +nightly --version >/dev/null 2>&1; then
  fuzz=(cargo +nightly fuzz)
else
  export RUSTC_BOOTSTRAP=1
  fuzz=(cargo fuzz)
fi
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked || exit 1

# The seed corpora (a stable build of the fuzz crate's example in the root target dir).
cargo run -q -p leasekit-fuzz --example seed_corpora -- fuzz/corpus >/dev/null || exit 1
# The instrumented build in a target dir of its own (its flags differ from every other build);
# the libFuzzer runtime and the target binaries are behind the crate's `libfuzzer` feature.
export CARGO_TARGET_DIR="$PWD/fuzz/target" CARGO_PROFILE_RELEASE_DEBUG=1
"${fuzz[@]}" build --features libfuzzer || exit 1

bin=fuzz/target/x86_64-unknown-linux-gnu/release
# The bundled SQLite (rusqlite, under the governor) is linked into each target once but its
# static tables are reported as an ODR violation by ASan's global checker; that check is off,
# every other ASan check stays on.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_odr_violation=0"
targets=${FUZZ_TARGETS:-$("${fuzz[@]}" list)}
status=0
for t in $targets; do
  mkdir -p "fuzz/corpus/$t" "fuzz/artifacts/$t"
  log="fuzz/artifacts/$t/last-run.log"
  stamp=$(mktemp)
  start=$(date +%s)
  "$bin/$t" "fuzz/corpus/$t" -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
    -max_total_time="$secs" -timeout=10 -max_len=20000 -rss_limit_mb=4096 \
    -artifact_prefix="fuzz/artifacts/$t/" >"$log" 2>&1
  rc=$?
  wall=$(( $(date +%s) - start ))
  # Fork mode's status lines: "#<execs>: cov: C ft: F corp: N exec/s: E oom/timeout/crash: a/b/c time: Ts ..."
  last=$(grep -E '^#[0-9]+: cov:' "$log" | tail -n 1)
  execs=$(sed -E 's/^#([0-9]+):.*/\1/' <<<"$last")
  cov=$(sed -E 's/.* cov: ([0-9]+).*/\1/' <<<"$last")
  ft=$(sed -E 's/.* ft: ([0-9]+).*/\1/' <<<"$last")
  corp=$(sed -E 's/.* corp: ([0-9]+).*/\1/' <<<"$last")
  ooc=$(sed -E 's#.* oom/timeout/crash: ([0-9]+/[0-9]+/[0-9]+).*#\1#' <<<"$last")
  crashes=$(find "fuzz/artifacts/$t" -name 'crash-*' -newer "$stamp" 2>/dev/null | wc -l)
  rm -f "$stamp"
  [ -n "$last" ] || { echo "$t: no status line (exit $rc), see $log"; status=1; continue; }
  printf '%-22s execs=%-10s cov=%-6s ft=%-7s corpus=%-6s oom/timeout/crash=%-8s crash files=%s wall=%ss\n' \
    "$t" "$execs" "$cov" "$ft" "$corp" "$ooc" "$crashes" "$wall"
  # Inputs that crash while the corpus is first loaded count in "crash files" only.
  [ "${ooc##*/}" = 0 ] && [ "$crashes" -eq 0 ] || status=1
done
exit $status
