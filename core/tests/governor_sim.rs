//! Deterministic simulation testing of the governor (SEMANTICS 13.3-13.16): seeded runs of
//! valid, hostile and oversized commands from several uids, clock steps (across lease expiry
//! and UTC midnight, and backwards), store faults (fail before or after commit, stall, panic,
//! crash) and crash/reopen cycles, on memory and SQLite stores, checking the invariants after
//! every step. See docs/reliability.md, "Deterministic simulation".
//!
//! `LEASEKIT_SIM_SEEDS=a..b` (default `0..DEFAULT_SEEDS`), `LEASEKIT_SIM_STEPS` (default
//! 160), `LEASEKIT_SIM_STORES=memory,sqlite` (default both). A failing seed prints the seed
//! and the shortest command list found that reproduces it.

mod sim;

use sim::cmds::commands;
use sim::world::StoreKind;

/// Seeds `make test` runs (sized to stay well under a minute in a debug build).
const DEFAULT_SEEDS: u64 = 60;
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
            other => panic!("unknown store {other:?} in LEASEKIT_SIM_STORES"),
        })
        .collect()
}

#[test]
fn seeded_runs_keep_every_invariant() {
    let seeds = env_range();
    let steps = env_steps();
    let stores = env_stores();
    let started = std::time::Instant::now();
    let (mut runs, mut clean_steps, mut failed) = (0u64, 0u64, Vec::new());
    for seed in seeds.clone() {
        let cmds = commands(seed, steps);
        for kind in &stores {
            runs += 1;
            match sim::replay(*kind, seed, &cmds) {
                Ok(()) => clean_steps += cmds.len() as u64,
                Err(f) => {
                    let (short, sf) = sim::shrink(*kind, seed, &cmds, &f, 3000);
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
    }
    println!(
        "simulation: seeds {}..{} on {stores:?}: {} runs, {} clean, {clean_steps} steps clean, \
         {} failed, in {:.1}s",
        seeds.start,
        seeds.end,
        runs,
        runs - failed.len() as u64,
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
