//! Deterministic simulation testing of the governor (SEMANTICS 13.3-13.16): seeded runs of
//! valid, hostile and oversized commands from several uids, clock steps (across lease expiry
//! and UTC midnight, and backwards), store faults (fail before or after commit, stall, panic,
//! crash) and crash/reopen cycles, on memory and SQLite stores, checking the invariants after
//! every step. See docs/reliability.md, "Deterministic simulation".
//!
//! `LEASEKIT_SIM_SEEDS=a..b` (default `0..DEFAULT_SEEDS`), `LEASEKIT_SIM_STEPS` (default
//! 160), `LEASEKIT_SIM_STORES=memory,sqlite` (the default; `postgres` runs a fleet of two
//! governors on a throwaway PostgreSQL server, with `--features leasekit/postgres`). A failing seed prints the seed
//! and the shortest command list found that reproduces it.

#[cfg(feature = "postgres")]
mod pg;
mod scratch;
mod sim;

use sim::cmds::commands;
use sim::world::StoreKind;

/// Seeds `make test` runs (about a minute in a debug build on a busy 2-core machine).
const DEFAULT_SEEDS: u64 = 12;
const DEFAULT_STEPS: usize = 160;

fn env_range() -> std::ops::Range<u64> {
    let Ok(v) = std::env::var("LEASEKIT_SIM_SEEDS") else {
        return 0..DEFAULT_SEEDS;
    };
    let (a, b) = v
        .split_once("..")
        .unwrap_or_else(|| panic!("LEASEKIT_SIM_SEEDS must be a..b, not {v:?}"));
    a.trim().parse().expect("seed")..b.trim().parse().expect("seed")
}

fn env_steps() -> usize {
    std::env::var("LEASEKIT_SIM_STEPS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(DEFAULT_STEPS)
}

fn env_stores() -> Vec<StoreKind> {
    let v = std::env::var("LEASEKIT_SIM_STORES").unwrap_or_else(|_| "memory,sqlite".into());
    v.split(',')
        .map(|s| match s.trim() {
            "memory" => StoreKind::Memory,
            "sqlite" => StoreKind::Sqlite,
            "postgres" => StoreKind::Postgres,
            other => panic!("unknown store {other:?} in LEASEKIT_SIM_STORES"),
        })
        .collect()
}

/// Runs every seed of the range on `kind` (when `LEASEKIT_SIM_STORES` names it) and prints
/// how many seeds and steps ran clean.
fn run_seeds(kind: StoreKind) {
    if !env_stores().contains(&kind) {
        return;
    }
    // The fleet's throwaway server lives as long as this handle (every database is on it).
    #[cfg(feature = "postgres")]
    let _server = (kind == StoreKind::Postgres).then(pg::TempPostgres::shared);
    let seeds = env_range();
    let steps = env_steps();
    let started = std::time::Instant::now();
    let (mut clean, mut clean_steps, mut failed) = (0u64, 0u64, Vec::new());
    for seed in seeds.clone() {
        if seed > seeds.start && (seed - seeds.start).is_multiple_of(500) {
            println!(
                "simulation on {kind:?}: {clean} seeds clean ({clean_steps} steps), {} failed, \
                 up to seed {seed}, {:.0}s",
                failed.len(),
                started.elapsed().as_secs_f64()
            );
        }
        let cmds = commands(seed, steps);
        match sim::replay(kind, seed, &cmds) {
            Ok(()) => {
                clean += 1;
                clean_steps += cmds.len() as u64;
            }
            Err(f) => {
                let (short, sf) = sim::shrink(kind, seed, &cmds, &f, 3000);
                let mut report = format!(
                    "seed {seed} on {kind:?} failed at step {}: {}\n  shortest reproduction \
                     ({} commands), fails at step {}: {}\n",
                    f.step,
                    f.message,
                    short.len(),
                    sf.step,
                    sf.message
                );
                for (i, c) in short.iter().enumerate() {
                    report.push_str(&format!("    {:>3}. {c:?}\n", i + 1));
                }
                eprintln!("{report}");
                failed.push(report);
            }
        }
    }
    println!(
        "simulation on {kind:?}: seeds {}..{} x {steps} steps: {clean} seeds clean \
         ({clean_steps} steps), {} failed, in {:.1}s",
        seeds.start,
        seeds.end,
        failed.len(),
        started.elapsed().as_secs_f64()
    );
    assert!(
        failed.is_empty(),
        "{} seed(s) failed:\n{}",
        failed.len(),
        failed.join("\n")
    );
}

#[test]
fn seeded_runs_on_a_memory_store_keep_every_invariant() {
    run_seeds(StoreKind::Memory);
}

#[test]
fn seeded_runs_on_a_sqlite_store_keep_every_invariant() {
    run_seeds(StoreKind::Sqlite);
}

/// Two governors on one PostgreSQL database (`LEASEKIT_SIM_STORES=postgres`, `make
/// sim-postgres`): slower, so not run by default.
#[cfg(feature = "postgres")]
#[test]
fn seeded_runs_on_a_postgres_fleet_keep_every_invariant() {
    run_seeds(StoreKind::Postgres);
}
