//! Governor concurrency and crash tests: 64 threads acquiring and releasing on one
//! governor (memory and SQLite) add up exactly; a child process SIGKILLed at random points
//! while serving commands on a SQLite store loses no answered grant and counts nothing twice.
//! `LEASEKIT_CRASH_REPS` sets the crash repetitions (default 50; `make soak` runs 500).

mod scratch;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use leasekit::SystemClock;
use leasekit::governor::engine::IdSource;
use leasekit::governor::engine::state::LeaseStatus;
use leasekit::governor::store::{MemoryStore, SqliteStore, Store, Synchronous};
use leasekit::governor::wire::*;
use leasekit::governor::{Governor, GovernorOptions, Policy};
use serde_json::json;

fn temp_db(tag: &str) -> std::path::PathBuf {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    let dir = scratch::dir();
    dir.join(format!("{tag}{}.db", N.fetch_add(1, Ordering::Relaxed)))
}

fn remove_db(p: &std::path::Path) {
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", p.display()));
    }
}

fn policy() -> Policy {
    Policy::from_value(json!({
        "maxInFlight": 16, "maxComputeUnits": 1000, "dailyBudgetCents": 1000000,
        "maxRequestsPerMinute": 1000000, "maxTokensPerMinute": 100000000,
        "leaseTtlMs": 600000, "spendSpikeCents": 1000000, "retryThresholdPerLease": 1000000
    }))
    .unwrap()
}

fn hammer(store: Arc<dyn Store>, threads: usize, pairs: usize) {
    let g = Governor::new(
        policy(),
        GovernorOptions::default(),
        store,
        Arc::new(SystemClock),
        IdSource::Random,
    )
    .unwrap();
    let results: Vec<(u64, u64, u64)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let g = g.clone();
                s.spawn(move || {
                    let (mut granted, mut denied, mut spent) = (0u64, 0u64, 0u64);
                    for i in 0..pairs {
                        let r = g
                            .acquire(AcquireRequest {
                                actor_id: format!("actor{t}"),
                                workspace_id: "w".into(),
                                estimated_cost_cents: 3,
                                ..AcquireRequest::default()
                            })
                            .unwrap();
                        if !r.granted {
                            assert_eq!(r.denied_reason, "concurrency_limit_reached");
                            denied += 1;
                            continue;
                        }
                        granted += 1;
                        let actual = (i % 3) as u64;
                        let rel = g
                            .release(ReleaseRequest {
                                lease_id: r.lease_id,
                                actual_cost_cents: actual,
                                ..ReleaseRequest::default()
                            })
                            .unwrap();
                        assert_eq!(rel.classification, ReleaseClassification::Recorded);
                        spent += actual;
                    }
                    (granted, denied, spent)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let granted: u64 = results.iter().map(|r| r.0).sum();
    let denied: u64 = results.iter().map(|r| r.1).sum();
    let spent: u64 = results.iter().map(|r| r.2).sum();
    assert_eq!(granted + denied, (threads * pairs) as u64);
    let m = g.metrics().unwrap();
    assert_eq!(m.active_leases, 0);
    assert_eq!(
        m.spend_today_cents, spent,
        "spend must equal the sum of actuals"
    );
    assert_eq!(
        m.grants_by_reason.get("granted").copied().unwrap_or(0),
        granted
    );
    assert_eq!(
        m.denies_by_reason
            .get("concurrency_limit_reached")
            .copied()
            .unwrap_or(0),
        denied
    );
    g.with_engine(|e| {
        assert_eq!(e.state().meta.pools.in_flight, 0);
        assert_eq!(e.state().meta.pools.compute_used, 0);
        assert!(e.state().meta.actor_in_flight.is_empty());
    });
    let v = g.verify_audit().unwrap();
    assert!(v.ok, "{}", v.message);
    assert_eq!(v.records, 2 * granted + denied);
}

#[test]
fn sixty_four_threads_memory_counts_add_up() {
    hammer(Arc::new(MemoryStore::new()), 64, 200);
}

#[test]
fn sixty_four_threads_sqlite_counts_add_up() {
    let path = temp_db("threads");
    hammer(Arc::new(SqliteStore::open(&path).unwrap()), 64, 8);
    // And the file agrees after a reopen.
    let g = Governor::new(
        policy(),
        GovernorOptions::default(),
        Arc::new(SqliteStore::open(&path).unwrap()),
        Arc::new(SystemClock),
        IdSource::Random,
    )
    .unwrap();
    let m = g.metrics().unwrap();
    assert_eq!(m.active_leases, 0);
    assert!(g.verify_audit().unwrap().ok);
    drop(g);
    remove_db(&path);
}

/// The child of the crash test: serves acquire/release pairs on the SQLite file named by
/// `LEASEKIT_CRASH_CHILD` and prints every answered grant and release until it is killed.
#[test]
#[ignore = "run by crash_kill_restart_loses_nothing as a child process"]
fn crash_child() {
    let Ok(path) = std::env::var("LEASEKIT_CRASH_CHILD") else {
        return;
    };
    let g = Governor::new(
        policy(),
        GovernorOptions::default(),
        Arc::new(SqliteStore::open_with(&path, Synchronous::Full).unwrap()),
        Arc::new(SystemClock),
        IdSource::Random,
    )
    .unwrap();
    let out = std::io::stdout();
    let threads = 4;
    std::thread::scope(|s| {
        for t in 0..threads {
            let g = g.clone();
            let out = &out;
            s.spawn(move || {
                for i in 0..100_000u64 {
                    let r = g
                        .acquire(AcquireRequest {
                            actor_id: format!("c{t}"),
                            estimated_cost_cents: 5,
                            ..AcquireRequest::default()
                        })
                        .unwrap();
                    if !r.granted {
                        continue;
                    }
                    {
                        use std::io::Write;
                        let mut o = out.lock();
                        writeln!(o, "GRANT {}", r.lease_id).unwrap();
                        o.flush().unwrap();
                    }
                    if i % 4 == 3 {
                        continue; // leave some leases live
                    }
                    let actual = i % 5;
                    g.release(ReleaseRequest {
                        lease_id: r.lease_id.clone(),
                        actual_cost_cents: actual,
                        idempotency_key: format!("rel-{}", r.lease_id),
                        ..ReleaseRequest::default()
                    })
                    .unwrap();
                    use std::io::Write;
                    let mut o = out.lock();
                    writeln!(o, "RELEASE {} {actual}", r.lease_id).unwrap();
                    o.flush().unwrap();
                }
            });
        }
    });
}

#[test]
fn crash_kill_restart_loses_nothing() {
    let reps: u64 = std::env::var("LEASEKIT_CRASH_REPS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(50);
    let exe = std::env::current_exe().unwrap();
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut total_grants = 0usize;
    for rep in 0..reps {
        let path = temp_db("crash");
        let mut child = Command::new(&exe)
            .args([
                "crash_child",
                "--exact",
                "--ignored",
                "--nocapture",
                "--test-threads=1",
            ])
            .env("LEASEKIT_CRASH_CHILD", &path)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let kill_after = Duration::from_millis(20 + seed % 180);
        let stdout = child.stdout.take().unwrap();
        let reader = std::thread::spawn(move || {
            let mut lines = Vec::new();
            for line in BufReader::new(stdout).lines() {
                match line {
                    Ok(l) => lines.push(l),
                    Err(_) => break,
                }
            }
            lines
        });
        let started = Instant::now();
        while started.elapsed() < kill_after {
            std::thread::sleep(Duration::from_millis(5));
        }
        // SIGKILL: no destructor, no flush, no orderly close.
        child.kill().unwrap();
        child.wait().unwrap();
        let lines = reader.join().unwrap();
        let mut granted: BTreeMap<String, Option<u64>> = BTreeMap::new();
        for l in &lines {
            let parts: Vec<&str> = l.split_whitespace().collect();
            match parts.as_slice() {
                ["GRANT", id] => {
                    granted.insert(id.to_string(), None);
                }
                ["RELEASE", id, actual] => {
                    granted.insert(id.to_string(), Some(actual.parse().unwrap()));
                }
                _ => {}
            }
        }
        let g = Governor::new(
            policy(),
            GovernorOptions::default(),
            Arc::new(SqliteStore::open(&path).unwrap()),
            Arc::new(SystemClock),
            IdSource::Random,
        )
        .unwrap();
        g.with_engine(|e| {
            let st = e.state();
            for (id, released) in &granted {
                let l = st
                    .leases
                    .get(id)
                    .unwrap_or_else(|| panic!("rep {rep}: answered grant {id} lost"));
                if released.is_some() {
                    assert_eq!(
                        l.status,
                        LeaseStatus::Released,
                        "rep {rep}: answered release of {id} lost"
                    );
                    assert_eq!(
                        l.release.as_ref().unwrap().1.classification,
                        ReleaseClassification::Recorded
                    );
                }
            }
            // Nothing counted twice: the pools equal what the lease rows say.
            let live: Vec<_> = st
                .leases
                .values()
                .filter(|l| l.status == LeaseStatus::Live)
                .collect();
            assert_eq!(
                st.meta.pools.in_flight,
                live.len() as u64,
                "rep {rep}: in-flight"
            );
            assert_eq!(
                st.meta.pools.compute_used,
                live.iter().map(|l| l.compute).sum::<u64>(),
                "rep {rep}: compute"
            );
            let expected: u64 = st
                .leases
                .values()
                .filter(|l| l.day == st.meta.pools.budget_day)
                .map(|l| l.settled.unwrap_or(l.reserved))
                .sum();
            assert_eq!(
                st.meta.pools.budget_used, expected,
                "rep {rep}: spend counted twice or lost"
            );
            for (id, released) in &granted {
                if let Some(actual) = released {
                    assert_eq!(
                        st.leases[id].settled,
                        Some(*actual),
                        "rep {rep}: {id} settled wrong"
                    );
                }
            }
        });
        assert!(
            g.verify_audit().unwrap().ok,
            "rep {rep}: audit chain broken"
        );
        total_grants += granted.len();
        drop(g);
        remove_db(&path);
    }
    assert!(
        total_grants > 0,
        "the child answered no grant before it was killed"
    );
    println!("crash test: {reps} kills, {total_grants} answered grants checked");
}
