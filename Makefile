# leasekit: one Rust core, thin bindings, one conformance suite.
#   make run          build the CLI and run the main job on examples/
#   make test         install what is needed and run every test of every language (make dist first)
#   make test-mcp     the MCP guard tests alone (real MCP server and SDK clients)
#   make conformance  run the shared vectors in every language present
#   make vectors-check  fail when conformance/vectors differs from its generator
#   make bench        benchmarks (writes docs/performance.md)
#   make soak         long runs: governor crash loop, daemon 64x500 load and its figures
#   make sim          deterministic simulation of the governor, SEEDS=a..b (docs/reliability.md)
#   make test-c-asan  the C API tests and C conformance runner under ASan, LSan and UBSan
#   make fuzz         every cargo-fuzz target for FUZZ_SECONDS (default 60) each (docs/reliability.md)
#   make dist         every release artifact into dist/ (wheel, npm, Maven, C, CLI; SHA256SUMS)
#   make dist-test    install each artifact of dist/ offline, with no Rust toolchain, and run it
# LEASEKIT_VECTORS=<dir> points every conformance runner at another vector directory.

SHELL := /bin/bash
LANGS := rust c python node jvm

.PHONY: run test test-mcp bench-mcp dist dist-test sim sim-postgres conformance conformance-rust-postgres vectors-check bench bench-daemon bench-governor bench-fleet soak fuzz test-c-asan fmt lint $(addprefix conformance-,$(LANGS))

run:
	bash scripts/run.sh

test:
	bash scripts/test-all.sh

# The MCP guard against the real filesystem server and the real Python and TypeScript SDK clients.
test-mcp:
	bash scripts/test-mcp.sh

# Release artifacts (docs/versioning.md). `make test` runs both first (scripts/test-dist.sh) and
# its later steps test those builds.
dist:
	bash scripts/dist.sh

dist-test:
	bash scripts/dist-test.sh

conformance: $(addprefix conformance-,$(LANGS))

# The vectors are generated (conformance/tools/gen_vectors.py, gen_governor_vectors.py): a hand
# edit or a stale file fails.
vectors-check:
	bash scripts/vectors-check.sh

conformance-rust: vectors-check
	cargo test -p leasekit --test conformance -- --nocapture

conformance-c:
	bash scripts/conformance-c.sh

conformance-python:
	bash scripts/conformance-python.sh

conformance-node:
	bash scripts/conformance-node.sh

conformance-jvm:
	bash scripts/conformance-jvm.sh

# The Rust runner with every governor vector on a throwaway PostgreSQL store.
conformance-rust-postgres: vectors-check
	bash scripts/ensure-postgres.sh
	LEASEKIT_GOV_STORE=postgres cargo test -p leasekit --features postgres --test conformance conformance_vectors -- --nocapture

bench:
	bash scripts/bench.sh

# Latency the MCP guard adds per tools/call (p50, p99) against the real filesystem server.
bench-mcp:
	bash scripts/bench-mcp.sh

# The daemon series of `make bench` alone: `leasekit serve` on memory vs SQLite FULL vs NORMAL at
# 1, 16, 64 clients, Rust and Python clients, ratios and p50/p99 per acquire (docs/performance.md).
# BENCH_QUICK=1: one short round (smoke); BENCH_BEFORE=PATH: another leasekit binary side by side.
bench-daemon:
	bash scripts/bench-daemon.sh

# Governor benchmarks (divan): acquire+release pairs on memory and SQLite (FULL, NORMAL; 1 and
# 16 threads), frame encode/decode. Figures go to docs/performance.md by hand.
bench-governor:
	CARGO_BUILD_JOBS=2 cargo bench -p leasekit --bench governor

# Fleet throughput on a throwaway PostgreSQL: pairs/s with 1, 2, 4 governors and 64 clients on
# one hot budget, beside pgbench on the single-row script. Figures go to docs/performance.md.
bench-fleet:
	bash scripts/ensure-postgres.sh
	CARGO_BUILD_JOBS=2 cargo bench -p leasekit --features postgres --bench fleet

# Long runs kept out of `make test`: the governor crash test with 500 SIGKILLs; the daemon
# (`leasekit serve`) under 64 clients x 500 acquire/release pairs plus its throughput, latency
# and memory figures (target/soak/daemon-*.json; docs/performance.md "Daemon"); fleets of 2 and 4
# governor processes on one PostgreSQL with 20 000 acquire/release pairs each.
soak:
	LEASEKIT_CRASH_REPS=500 cargo test -p leasekit --release --test governor_stress crash_kill_restart_loses_nothing -- --nocapture
	CARGO_BUILD_JOBS=2 cargo test --release -p leasekit-cli --test daemon_load -- --ignored --nocapture --test-threads 1
	bash scripts/ensure-postgres.sh
	LEASEKIT_FLEET_PAIRS=20000 cargo test -p leasekit --release --features postgres --test governor_fleet fleet_of -- --nocapture --test-threads=1

fuzz:
	bash scripts/fuzz.sh

test-c-asan:
	bash scripts/test-c-asan.sh

fmt:
	cargo fmt --all

lint:
	cargo fmt --all -- --check
	cargo clippy --workspace --all-targets -- -D warnings

# Deterministic simulation of the governor (docs/reliability.md): SEEDS seeds (default
# 0..1000) of STEPS commands each on memory and SQLite stores, release build; prints how many
# seeds and steps ran clean, and for a failing seed its shortest reproduction.
SEEDS ?= 0..1000
STEPS ?= 160
sim:
	LEASEKIT_SIM_SEEDS=$(SEEDS) LEASEKIT_SIM_STEPS=$(STEPS) CARGO_BUILD_JOBS=2 cargo test -p leasekit --release --test governor_sim -- --nocapture --test-threads 2

# The same on a fleet of two governors sharing one throwaway PostgreSQL database (slower).
sim-postgres:
	bash scripts/ensure-postgres.sh
	LEASEKIT_SIM_STORES=postgres LEASEKIT_SIM_SEEDS=$(SEEDS) LEASEKIT_SIM_STEPS=$(STEPS) CARGO_BUILD_JOBS=2 cargo test -p leasekit --release --features postgres --test governor_sim seeded_runs_on_a_postgres -- --nocapture
