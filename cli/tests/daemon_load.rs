//! Load and crash tests against a real `leasekit serve` on the durable SQLite store: many
//! client threads, each with its own `GovernorClient` (its own connection), run bounded
//! acquire/release loops. `make test` runs a short version (16 x 100); `make soak` runs the
//! full one (64 x 500) and the figures of docs/performance.md (ignored tests, `--ignored`).
//! Throughput is printed, never asserted (benchmarks, not timed tests).

mod daemon;

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use daemon::Daemon;
use leasekit::governor::wire::{AcquireRequest, ReleaseClassification, ReleaseRequest};
use serde_json::json;

const ESTIMATE: u64 = 3;

fn load_policy_args(dir: &std::path::Path) -> Vec<String> {
    let p = dir.join("policy.json");
    std::fs::write(
        &p,
        json!({
            "policyVersion": "load",
            "maxInFlight": 1_000_000, "maxComputeUnits": 1_000_000,
            "dailyBudgetCents": 1_000_000_000_000i64,
            "maxRequestsPerMinute": 1_000_000_000, "maxTokensPerMinute": 1_000_000_000_000i64,
            "leaseTtlMs": 600_000
        })
        .to_string(),
    )
    .unwrap();
    vec!["--policy".into(), p.display().to_string()]
}

fn start_load_daemon() -> Daemon {
    start_load_daemon_with(&[])
}

fn start_load_daemon_with(extra: &[&str]) -> Daemon {
    let dir = daemon::temp_dir("load");
    let mut args = load_policy_args(&dir);
    // Every client here is one uid: room for 64 clients plus the ones still closing.
    args.extend(["--max-connections-per-uid".to_string(), "256".to_string()]);
    args.extend(extra.iter().map(|s| s.to_string()));
    Daemon::start_in(&dir, args)
}

fn acquire_req(thread: usize, i: usize) -> AcquireRequest {
    AcquireRequest {
        actor_id: format!("agent-{thread}"),
        workspace_id: "load".into(),
        model_id: "m".into(),
        estimated_prompt_tokens: 10,
        max_output_tokens: 10,
        estimated_cost_cents: ESTIMATE,
        session_id: format!("{thread}-{i}"),
        ..AcquireRequest::default()
    }
}

/// The actual cost a lease reports (deterministic, 0..=5, never a spend spike).
fn actual_of(thread: usize, i: usize) -> u64 {
    ((thread * 7 + i * 3) % 6) as u64
}

fn utc_day() -> i64 {
    leasekit::Clock::now(&leasekit::SystemClock)
        .unwrap()
        .unix_millis()
        .div_euclid(86_400_000)
}

struct LoadResult {
    pairs: u64,
    actual_sum: u64,
    elapsed: Duration,
    acquire_latencies_us: Vec<u64>,
}

/// `threads` x `pairs` acquire/release pairs; every answer must be a grant and a `recorded`.
fn run_load(d: &Daemon, threads: usize, pairs: usize) -> LoadResult {
    let t0 = Instant::now();
    let results: Vec<(u64, Vec<u64>)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let client = d.client();
                s.spawn(move || {
                    let mut sum = 0;
                    let mut lat = Vec::with_capacity(pairs);
                    for i in 0..pairs {
                        let a0 = Instant::now();
                        let g = client.acquire(acquire_req(t, i)).expect("acquire answered");
                        lat.push(a0.elapsed().as_micros() as u64);
                        assert!(g.granted, "denied under load: {}", g.denied_reason);
                        let actual = actual_of(t, i);
                        let r = client
                            .release(ReleaseRequest {
                                lease_id: g.lease_id,
                                actual_cost_cents: actual,
                                ..ReleaseRequest::default()
                            })
                            .expect("release answered");
                        assert_eq!(r.classification, ReleaseClassification::Recorded);
                        sum += actual;
                    }
                    (sum, lat)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let elapsed = t0.elapsed();
    let mut lat = Vec::new();
    let mut actual_sum = 0;
    for (s, l) in results {
        actual_sum += s;
        lat.extend(l);
    }
    LoadResult {
        pairs: (threads * pairs) as u64,
        actual_sum,
        elapsed,
        acquire_latencies_us: lat,
    }
}

fn check_after_load(d: &Daemon, r: &LoadResult, day_before: i64) {
    let c = d.client();
    let m = c.metrics().unwrap();
    assert_eq!(m.active_leases, 0, "{m:?}");
    assert!(m.denies_by_reason.is_empty(), "{:?}", m.denies_by_reason);
    assert_eq!(m.failed_audit_writes, 0);
    assert_eq!(m.grants_by_reason.values().sum::<u64>(), r.pairs);
    if utc_day() == day_before {
        assert_eq!(
            m.spend_today_cents, r.actual_sum,
            "spend is the sum of the actuals"
        );
    }
    let v = c.verify_audit().unwrap();
    assert!(v.ok, "{v:?}");
    assert_eq!(v.records, 2 * r.pairs);
}

fn report(label: &str, threads: usize, r: &LoadResult) -> serde_json::Value {
    let mut lat = r.acquire_latencies_us.clone();
    lat.sort_unstable();
    let pct = |p: f64| lat[((lat.len() as f64 * p) as usize).min(lat.len() - 1)];
    let per_s = r.pairs as f64 / r.elapsed.as_secs_f64();
    eprintln!(
        "{label}: {threads} clients, {} pairs in {:.2} s = {per_s:.0} pairs/s; acquire p50 {} us, p99 {} us",
        r.pairs,
        r.elapsed.as_secs_f64(),
        pct(0.50),
        pct(0.99)
    );
    json!({"label": label, "clients": threads, "pairs": r.pairs, "seconds": r.elapsed.as_secs_f64(),
        "pairs_per_s": per_s, "acquire_p50_us": pct(0.50), "acquire_p99_us": pct(0.99)})
}

#[test]
fn load_16x100_leaves_nothing_behind() {
    let d = start_load_daemon();
    let day = utc_day();
    let r = run_load(&d, 16, 100);
    report("load 16x100", 16, &r);
    check_after_load(&d, &r, day);
}

/// What a client saw during a load that the daemon did not survive.
#[derive(Default)]
struct Seen {
    /// lease id -> (actual it sent, release answered?)
    grants: HashMap<String, (u64, bool)>,
    /// Acquires sent whose answer never came (the grant may or may not be committed).
    unanswered_acquires: u64,
}

/// Threads acquire/release until the daemon goes away; what each saw.
fn load_until_gone(d: &Daemon, threads: usize, done: &AtomicU64) -> Seen {
    let seen = Mutex::new(Seen::default());
    std::thread::scope(|s| {
        for t in 0..threads {
            let client = d.client();
            let seen = &seen;
            s.spawn(move || {
                // Until the daemon is gone (bounded all the same).
                for i in 0..100_000 {
                    let g = match client.acquire(acquire_req(t, i)) {
                        Ok(g) => g,
                        Err(_) => {
                            seen.lock().unwrap().unanswered_acquires += 1;
                            return;
                        }
                    };
                    assert!(g.granted, "{}", g.denied_reason);
                    let actual = actual_of(t, i);
                    seen.lock()
                        .unwrap()
                        .grants
                        .insert(g.lease_id.clone(), (actual, false));
                    let rel = client.release(ReleaseRequest {
                        lease_id: g.lease_id.clone(),
                        actual_cost_cents: actual,
                        idempotency_key: format!("rel-{}", g.lease_id),
                        ..ReleaseRequest::default()
                    });
                    match rel {
                        Ok(r) => {
                            assert_eq!(r.classification, ReleaseClassification::Recorded);
                            seen.lock().unwrap().grants.get_mut(&g.lease_id).unwrap().1 = true;
                            done.fetch_add(1, Ordering::Relaxed);
                        }
                        Err(_) => return,
                    }
                }
            });
        }
    });
    seen.into_inner().unwrap()
}

/// After a restart: every answered grant is released or still there (and releases now),
/// nothing is counted twice, the audit chain verifies. Answers the leases left active.
fn check_after_restart(d: &Daemon, seen: &Seen, day_before: i64) -> u64 {
    let c = d.client();
    let mut actual_sum = 0;
    for (id, (actual, released)) in &seen.grants {
        // Re-sending the release with its key: the first answer replayed if it was committed
        // (answered or not), else a first release now. Either way `recorded`, never lost.
        let r = c
            .release(ReleaseRequest {
                lease_id: id.clone(),
                actual_cost_cents: *actual,
                idempotency_key: format!("rel-{id}"),
                ..ReleaseRequest::default()
            })
            .unwrap();
        assert_eq!(
            r.classification,
            ReleaseClassification::Recorded,
            "answered grant {id} (release answered: {released}) was lost"
        );
        actual_sum += actual;
    }
    let m = c.metrics().unwrap();
    // Left: grants committed whose answer never reached a client (at most one per thread).
    assert!(m.active_leases <= seen.unanswered_acquires, "{m:?}");
    if utc_day() == day_before {
        assert_eq!(
            m.spend_today_cents,
            actual_sum + ESTIMATE * m.active_leases,
            "spend = actuals of released leases + reservations of live ones, nothing twice"
        );
    }
    let v = c.verify_audit().unwrap();
    assert!(v.ok, "{v:?}");
    m.active_leases
}

fn crash_or_stop(graceful: bool) {
    let mut d = start_load_daemon();
    let day = utc_day();
    let done = AtomicU64::new(0);
    let threads = 16;
    let seen = std::thread::scope(|s| {
        let h = s.spawn(|| load_until_gone(&d, threads, &done));
        // Mid-load: once some pairs are through.
        let t = Instant::now();
        while done.load(Ordering::Relaxed) < 300 && t.elapsed() < Duration::from_secs(60) {
            std::thread::sleep(Duration::from_millis(5));
        }
        if graceful {
            let pid = d.pid();
            // SAFETY: signalling our own child.
            unsafe { libc::kill(pid, libc::SIGTERM) };
        } else {
            unsafe { libc::kill(d.pid(), libc::SIGKILL) };
        }
        h.join().unwrap()
    });
    if graceful {
        let status = d.stop_wait();
        assert!(
            status.success(),
            "graceful stop failed: {status}\n{}",
            d.log()
        );
        assert!(!d.socket.exists());
    } else {
        d.stop_wait();
    }
    assert!(seen.grants.len() >= 300, "load did not get going");
    d.restart();
    let left = check_after_restart(&d, &seen, day);
    if graceful {
        // A graceful stop answers every command it took: no grant without an answer.
        assert_eq!(left, 0);
    }
    eprintln!(
        "{}: {} answered grants, {} unanswered acquires, {left} leases left",
        if graceful { "SIGTERM" } else { "kill -9" },
        seen.grants.len(),
        seen.unanswered_acquires
    );
}

#[test]
fn sigterm_mid_load_loses_no_answered_grant() {
    crash_or_stop(true);
}

#[test]
fn kill_9_mid_load_loses_nothing_and_counts_nothing_twice() {
    crash_or_stop(false);
}

// ---- make soak (ignored by make test) ----

fn soak_out(v: &serde_json::Value, name: &str) {
    let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/soak");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(name), serde_json::to_string_pretty(v).unwrap()).unwrap();
}

#[test]
#[ignore = "make soak"]
fn soak_64x500() {
    let d = start_load_daemon();
    let day = utc_day();
    let r = run_load(&d, 64, 500);
    let v = report("soak 64x500", 64, &r);
    check_after_load(&d, &r, day);
    soak_out(&v, "daemon-64x500.json");
}

#[test]
#[ignore = "make soak"]
fn soak_throughput_by_clients() {
    let mut rows = Vec::new();
    let stores: [(&str, &[&str]); 3] = [
        ("sqlite, synchronous=FULL (default)", &[]),
        (
            "sqlite, synchronous=NORMAL (--sync normal)",
            &["--sync", "normal"],
        ),
        ("memory (--store memory)", &["--store", "memory"]),
    ];
    for (store, flags) in stores {
        for (threads, pairs) in [(1, 2000), (16, 500), (64, 200)] {
            let d = start_load_daemon_with(flags);
            let day = utc_day();
            // Warm-up (connections, page cache), then the measured run.
            let warm = run_load(&d, threads, 20);
            let r = run_load(&d, threads, pairs);
            let mut row = report(&format!("{store}, {threads} clients"), threads, &r);
            row["store"] = json!(store);
            rows.push(row);
            let total = LoadResult {
                pairs: warm.pairs + r.pairs,
                actual_sum: warm.actual_sum + r.actual_sum,
                elapsed: r.elapsed,
                acquire_latencies_us: Vec::new(),
            };
            check_after_load(&d, &total, day);
        }
    }
    soak_out(&json!(rows), "daemon-throughput.json");
}

#[test]
#[ignore = "make soak"]
fn soak_memory_with_10000_live_leases() {
    let d = start_load_daemon();
    let rss = || {
        let s = std::fs::read_to_string(format!("/proc/{}/status", d.pid())).unwrap();
        s.lines()
            .find(|l| l.starts_with("VmRSS:"))
            .and_then(|l| l.split_whitespace().nth(1))
            .unwrap()
            .parse::<u64>()
            .unwrap()
    };
    let before = rss();
    let live = Arc::new(AtomicU64::new(0));
    std::thread::scope(|s| {
        for t in 0..8 {
            let client = d.client();
            let live = live.clone();
            s.spawn(move || {
                for i in 0..1250 {
                    let g = client.acquire(acquire_req(t, i)).unwrap();
                    assert!(g.granted);
                    live.fetch_add(1, Ordering::Relaxed);
                }
            });
        }
    });
    let m = d.client().metrics().unwrap();
    assert_eq!(m.active_leases, 10_000);
    let after = rss();
    eprintln!("daemon RSS: {before} KiB idle, {after} KiB with 10 000 live leases");
    soak_out(
        &json!({"rss_idle_kib": before, "rss_10000_live_kib": after}),
        "daemon-memory.json",
    );
}
