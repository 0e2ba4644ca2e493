//! Fleet throughput: acquire/release pairs per second with 1, 2 and 4 governors on
//! one PostgreSQL database (a throwaway server with durable commits: fsync and
//! synchronous_commit on), 64 clients spread over them, one hot budget; beside PostgreSQL's own
//! pgbench on the equivalent single-row conditional UPDATE (one transaction per acquire and one
//! per release). Run: `make bench-fleet` (`cargo bench -p leasekit --features postgres --bench
//! fleet`). Figures go to docs/performance.md by hand. Sizes: `LEASEKIT_BENCH_PAIRS` pairs per
//! client (default 150), `LEASEKIT_BENCH_ROUNDS` runs per cell (default 3, the median is kept),
//! `LEASEKIT_BENCH_GOVERNORS` which fleet sizes (default `1,2,4`), `LEASEKIT_BENCH_PGBENCH=0`
//! skips the pgbench rows. `LEASEKIT_PG_TRACE=1` adds, per governor, where a batch's time
//! goes (stderr). Each cell is measured twice, rounds alternated: settling after the locks are
//! released (the store's default) and settling in the `COMMIT` under the lock (the earlier
//! design, `PostgresStore::settle_at_commit(true)`), with the ratio.

#[path = "../tests/pg/mod.rs"]
mod pg;

use std::process::Command;
use std::sync::{Arc, Barrier};
use std::time::Instant;

use leasekit::SystemClock;
use leasekit::governor::store::PostgresStore;
use leasekit::governor::wire::{AcquireRequest, ReleaseRequest};
use leasekit::governor::{Governor, GovernorOptions, IdSource, Policy};
use serde_json::json;

const CLIENTS: usize = 64;

fn env(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn policy() -> Policy {
    Policy::from_value(json!({
        "policyVersion": "bench", "maxInFlight": 1000, "dailyBudgetCents": 1_000_000_000u64,
        "leaseTtlMs": 60000, "maxRequestsPerMinute": 1_000_000_000u64,
        "maxTokensPerMinute": 1_000_000_000_000u64, "maxComputeUnits": 1_000_000
    }))
    .unwrap()
}

/// Pairs per second with `govs` governors (each its own connection) and 64 client threads.
fn fleet_run(url: &str, govs: usize, pairs_per_client: usize, at_commit: bool) -> f64 {
    let governors: Vec<Governor> = (0..govs)
        .map(|_| {
            let store = PostgresStore::open(url)
                .unwrap()
                .settle_at_commit(at_commit);
            Governor::new(
                policy(),
                GovernorOptions::default(),
                Arc::new(store),
                Arc::new(SystemClock),
                IdSource::Random,
            )
            .unwrap()
        })
        .collect();
    let barrier = Arc::new(Barrier::new(CLIENTS + 1));
    let threads: Vec<_> = (0..CLIENTS)
        .map(|c| {
            let g = governors[c % govs].clone();
            let b = barrier.clone();
            std::thread::spawn(move || {
                b.wait();
                for p in 0..pairs_per_client {
                    let est = 1 + ((c * 31 + p * 17) % 20) as u64;
                    let r = g
                        .acquire(AcquireRequest {
                            actor_id: format!("a{c}"),
                            workspace_id: "w".into(),
                            estimated_cost_cents: est,
                            ..AcquireRequest::default()
                        })
                        .unwrap();
                    assert!(r.granted, "{}", r.denied_reason);
                    g.release(ReleaseRequest {
                        lease_id: r.lease_id,
                        actual_cost_cents: est / 2,
                        ..ReleaseRequest::default()
                    })
                    .unwrap();
                }
            })
        })
        .collect();
    barrier.wait();
    let t = Instant::now();
    for th in threads {
        th.join().unwrap();
    }
    (CLIENTS * pairs_per_client) as f64 / t.elapsed().as_secs_f64()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

/// pgbench transactions per second on `script`.
fn pgbench(pg: &pg::TempPostgres, db: &str, script: &str, clients: usize) -> f64 {
    let dir = pg.socket_dir();
    let file = dir.join("bench.sql");
    std::fs::write(&file, script).unwrap();
    let _ = Command::new("chmod").arg("0644").arg(&file).status();
    let out = Command::new("pgbench")
        .args(["-n", "-T", "8", "-j", "2", "-c", &clients.to_string(), "-f"])
        .arg(&file)
        .args(["-h", dir.to_str().unwrap(), "-U", "postgres", db])
        .output()
        .expect("pgbench (postgresql-client) on PATH");
    let text = String::from_utf8_lossy(&out.stdout);
    text.lines()
        .find(|l| l.starts_with("tps = "))
        .and_then(|l| l[6..].split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| {
            panic!(
                "pgbench said: {text}{}",
                String::from_utf8_lossy(&out.stderr)
            )
        })
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let pairs = env("LEASEKIT_BENCH_PAIRS", 150);
    let rounds = env("LEASEKIT_BENCH_ROUNDS", 3).max(1);
    let pg = pg::TempPostgres::start();
    println!(
        "fleet: {CLIENTS} clients, {pairs} pairs each, one hot budget, durable commits, median of {rounds}"
    );
    println!("| governors | pairs/s, settle after unlock | pairs/s, settle in COMMIT | ratio |");
    println!("|---:|---:|---:|---:|");
    let fleets: Vec<usize> = std::env::var("LEASEKIT_BENCH_GOVERNORS")
        .unwrap_or_else(|_| "1,2,4".into())
        .split(',')
        .filter_map(|v| v.trim().parse().ok())
        .filter(|n| *n >= 1)
        .collect();
    for govs in fleets {
        let (mut after, mut inside) = (Vec::new(), Vec::new());
        for r in 0..rounds {
            for at_commit in [false, true] {
                let db = pg.fresh_db(&format!("bench{govs}_{r}_{}", at_commit as u8));
                let v = fleet_run(&db, govs, pairs, at_commit);
                if at_commit {
                    inside.push(v)
                } else {
                    after.push(v)
                }
            }
        }
        let (a, b) = (median(after), median(inside));
        println!("| {govs} | {a:.0} | {b:.0} | {:.2}x |", a / b);
    }
    if std::env::var("LEASEKIT_BENCH_PGBENCH").is_ok_and(|v| v == "0") {
        return;
    }
    // pgbench on one budget row: acquire and release as one conditional UPDATE each.
    let db_url = pg.fresh_db("pgbench");
    let db = db_url.rsplit('/').next().unwrap().to_string();
    pg.client(&db)
        .batch_execute(
            "CREATE TABLE budget (id int PRIMARY KEY, lim numeric(38,0) NOT NULL,
                                  used numeric(38,0) NOT NULL CHECK (used <= lim));
             INSERT INTO budget VALUES (1, 1e30, 0);",
        )
        .unwrap();
    let single = "\\set x random(1, 20)\n\
                  UPDATE budget SET used = used + :x WHERE id = 1 AND used + :x <= lim RETURNING used;\n";
    let batch50 = {
        let mut s = String::from(
            "BEGIN;\nUPDATE budget SET used = used + 500 WHERE id = 1 AND used + 500 <= lim RETURNING used;\n",
        );
        s.push_str("CREATE TEMP TABLE IF NOT EXISTS l (id int, c int);\n");
        s.push_str("INSERT INTO l SELECT g, 10 FROM generate_series(1, 50) g;\nCOMMIT;\n");
        s
    };
    println!();
    println!("pgbench, one budget row, durable commits (-T 8 -j 2):");
    println!(
        "| clients | single-row UPDATE tps | = pairs/s (2 txns per pair) | 50 acquires per txn: acquires/s |"
    );
    println!("|---:|---:|---:|---:|");
    for c in [1usize, 8, 64] {
        let tps = pgbench(&pg, &db, single, c);
        let b = pgbench(&pg, &db, &batch50, c) * 50.0;
        println!("| {c} | {tps:.0} | {:.0} | {b:.0} |", tps / 2.0);
    }
}
