//! The governor under store failures (SEMANTICS 13.16 "Failures"), with faults injected by
//! `FaultyStore` into real stores (a reloadable memory store and SQLite files): a commit that
//! fails, a commit whose outcome is unknown, a crash between commits, a store that panics, a
//! command that panics half-way, a reload that fails. After each, the governor's state must
//! equal what the store committed, `VerifyAudit` must pass and match the store's lines, and no
//! more leases may be live than `maxInFlight` allows, before and after a reopen.

mod scratch;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use leasekit::governor::engine::{Engine, IdSource};
use leasekit::governor::store::{
    Fault, FaultyStore, MemoryStore, SqliteStore, Store, StoreOp, Synchronous,
};
use leasekit::governor::wire::*;
use leasekit::governor::{Governor, GovernorOptions, Policy};
use leasekit::{Clock, ManualClock, Timestamp, parse_expires_at};
use serde_json::json;

const CAP: u64 = 2;

fn policy() -> Policy {
    Policy::from_value(json!({
        "policyVersion": "failures", "maxInFlight": CAP, "leaseTtlMs": 1000,
        "dailyBudgetCents": 100000, "maxRequestsPerMinute": 100000,
        "maxTokensPerMinute": 100000000, "maxComputeUnits": 1000
    }))
    .unwrap()
}

fn clock() -> Arc<ManualClock> {
    Arc::new(ManualClock::new(
        parse_expires_at("2026-03-01T10:00:00Z").unwrap(),
    ))
}

fn advance(c: &ManualClock, ms: i64) {
    c.set(Timestamp::from_unix_millis(c.get().unix_millis() + ms));
}

static DB: AtomicU64 = AtomicU64::new(0);

fn temp_db() -> std::path::PathBuf {
    let dir = scratch::dir();
    dir.join(format!("{}.db", DB.fetch_add(1, Ordering::Relaxed)))
}

#[derive(Clone, Copy, Debug)]
enum Kind {
    Memory,
    Sqlite,
}

fn inner_store(kind: Kind) -> Arc<dyn Store> {
    match kind {
        Kind::Memory => Arc::new(MemoryStore::reloadable()),
        Kind::Sqlite => Arc::new(SqliteStore::open_with(temp_db(), Synchronous::Normal).unwrap()),
    }
}

fn open(store: Arc<dyn Store>, clock: Arc<ManualClock>) -> Governor {
    Governor::new(
        policy(),
        GovernorOptions::default(),
        store,
        clock,
        IdSource::Deterministic,
    )
    .expect("open governor")
}

fn acq(key: &str) -> AcquireRequest {
    AcquireRequest {
        actor_id: "a".into(),
        workspace_id: "w".into(),
        estimated_cost_cents: 3,
        idempotency_key: key.into(),
        ..AcquireRequest::default()
    }
}

fn rel(lease: &str, key: &str) -> ReleaseRequest {
    ReleaseRequest {
        lease_id: lease.into(),
        actual_cost_cents: 2,
        idempotency_key: key.into(),
        ..ReleaseRequest::default()
    }
}

fn unavailable(e: &leasekit::Error) -> bool {
    e.message().starts_with("store_unavailable") && e.message().ends_with("(retryable)")
}

/// The governor's image equals what the store holds; the chain verifies, its head and count
/// are the store's; pools match the live leases and stay within the cap.
fn check(gov: &Governor, store: &dyn Store, clock: Arc<ManualClock>) {
    // Each is a command (its sweep may write): the store is read after them.
    let v = gov.verify_audit().expect("verify");
    let status = gov.status().expect("status");
    let lines = store
        .read_audit(1, u64::MAX)
        .expect("read the store's chain");
    assert!(v.ok, "chain broken: {v:?}");
    assert_eq!(v.records, lines.len() as u64);
    assert_eq!(status.audit_records, lines.len() as u64, "count vs lines");
    let last: serde_json::Value = serde_json::from_str(lines.last().expect("a line")).unwrap();
    let stored = Engine::open_image(
        store.load().unwrap(),
        policy(),
        GovernorOptions::default(),
        clock as Arc<dyn Clock>,
        IdSource::Deterministic,
        true,
    )
    .unwrap();
    gov.with_engine(|e| {
        let (mine, theirs) = (e.state(), stored.state());
        assert_eq!(mine.meta.audit.head, last["entryHash"].as_str().unwrap());
        assert_eq!(mine.meta, theirs.meta, "meta differs from the store's");
        assert_eq!(mine.leases, theirs.leases, "leases differ from the store's");
        assert_eq!(mine.idem, theirs.idem, "idempotency records differ");
        assert_eq!(mine.approvals, theirs.approvals);
        let mut a: Vec<_> = mine.rate.iter().map(|r| r.key()).collect();
        let mut b: Vec<_> = theirs.rate.iter().map(|r| r.key()).collect();
        a.sort();
        b.sort();
        assert_eq!(a, b, "rate window differs");
        let live = live(e);
        assert_eq!(
            live,
            e.state().meta.pools.in_flight,
            "in-flight vs live leases"
        );
        assert!(live <= CAP, "{live} live leases, cap {CAP}");
    });
}

fn live(e: &Engine) -> u64 {
    e.state()
        .leases
        .values()
        .filter(|l| l.status == leasekit::governor::engine::state::LeaseStatus::Live)
        .count() as u64
}

/// A commit fails after the sweep expired a lease: the answer is `store_unavailable`, and
/// the governor goes on from what the store holds (the chain stays whole, the sweep is
/// committed with the next command, the cap holds after a reopen).
fn failed_commit(kind: Kind) {
    let (clock, store) = (clock(), Arc::new(FaultyStore::new(inner_store(kind))));
    let gov = open(store.clone(), clock.clone());
    let a = gov.acquire(acq("ka")).unwrap();
    assert!(a.granted);
    advance(&clock, 2000);
    store.inject_next(StoreOp::Commit, Fault::Error);
    let e = gov.acquire(acq("kb")).unwrap_err();
    assert!(unavailable(&e), "{e}");
    check(&gov, &*store, clock.clone());
    let b = gov.acquire(acq("kb")).unwrap();
    let c = gov.acquire(acq("kc")).unwrap();
    assert!(b.granted && c.granted);
    let d = gov.acquire(acq("kd")).unwrap();
    assert!(!d.granted);
    assert_eq!(d.denied_reason, "concurrency_limit_reached");
    check(&gov, &*store, clock.clone());
    // Lease A was settled once, by a command after the failure.
    let lines = store.read_audit(1, u64::MAX).unwrap();
    let expired: Vec<_> = lines
        .iter()
        .filter(|l| l.contains("lease_expired"))
        .collect();
    assert_eq!(expired.len(), 1, "{expired:?}");
    assert!(expired[0].contains(&a.lease_id));
    // A crash now (no clean close) and a restart on what the store holds.
    drop(gov);
    let gov = open(store.inner(), clock.clone());
    check(&gov, &*store.inner(), clock.clone());
    gov.with_engine(|e| assert_eq!(live(e), 2));
}

#[test]
fn a_failed_commit_keeps_the_chain_and_the_cap_on_memory() {
    failed_commit(Kind::Memory);
}

#[test]
fn a_failed_commit_keeps_the_chain_and_the_cap_on_sqlite() {
    failed_commit(Kind::Sqlite);
}

/// The store commits, then reports an error: the caller is told `store_unavailable`, and a
/// retry with the same key replays the committed grant (one lease, one reservation).
fn unknown_outcome(kind: Kind) {
    let (clock, store) = (clock(), Arc::new(FaultyStore::new(inner_store(kind))));
    let gov = open(store.clone(), clock.clone());
    store.inject_next(StoreOp::Commit, Fault::ErrorAfterCommit);
    let e = gov.acquire(acq("k1")).unwrap_err();
    assert!(unavailable(&e), "{e}");
    assert!(e.message().contains("idempotencyKey"), "{e}");
    check(&gov, &*store, clock.clone());
    let again = gov.acquire(acq("k1")).unwrap();
    assert!(again.granted);
    gov.with_engine(|e| {
        assert_eq!(e.state().meta.pools.in_flight, 1);
        assert!(e.state().leases.contains_key(&again.lease_id));
    });
    // The release's outcome is unknown too; its retry replays the release.
    store.inject_next(StoreOp::Commit, Fault::ErrorAfterCommit);
    assert!(unavailable(
        &gov.release(rel(&again.lease_id, "r1")).unwrap_err()
    ));
    let r = gov.release(rel(&again.lease_id, "r1")).unwrap();
    assert_eq!(r.classification, ReleaseClassification::Recorded);
    check(&gov, &*store, clock.clone());
    gov.with_engine(|e| assert_eq!(e.state().meta.pools.in_flight, 0));
}

#[test]
fn an_unknown_outcome_is_store_unavailable_and_replays_on_memory() {
    unknown_outcome(Kind::Memory);
}

#[test]
fn an_unknown_outcome_is_store_unavailable_and_replays_on_sqlite() {
    unknown_outcome(Kind::Sqlite);
}

/// The process dies between commits (before and after a commit): a governor reopened on the
/// store finds exactly what was answered, settles what expired meanwhile, keeps the cap.
fn crash_between_commits(kind: Kind, fault: Fault) {
    let (clock, store) = (clock(), Arc::new(FaultyStore::new(inner_store(kind))));
    let gov = open(store.clone(), clock.clone());
    let a = gov.acquire(acq("k1")).unwrap();
    assert!(a.granted);
    store.inject_next(StoreOp::Commit, fault);
    assert!(unavailable(&gov.acquire(acq("k2")).unwrap_err()));
    // Dead: every later command fails, none is answered as granted.
    assert!(gov.acquire(acq("k3")).is_err());
    drop(gov);
    store.restart();
    let gov = open(store.clone(), clock.clone());
    check(&gov, &*store, clock.clone());
    let expect = if fault == Fault::CrashAfter { 2 } else { 1 };
    gov.with_engine(|e| assert_eq!(live(e), expect));
    // k2 replays when it was committed, or is granted afresh; either way the cap holds.
    let k2 = gov.acquire(acq("k2")).unwrap();
    assert!(k2.granted);
    assert!(!gov.acquire(acq("k4")).unwrap().granted);
    advance(&clock, 5000);
    drop(gov);
    let gov = open(store.clone(), clock.clone());
    check(&gov, &*store, clock.clone());
    gov.with_engine(|e| assert_eq!(live(e), 0));
    let lines = gov.audit_lines(1, u64::MAX).unwrap();
    assert!(lines.iter().any(|l| l.contains("lease_expired_by_restart")));
}

#[test]
fn a_crash_between_commits_loses_nothing_answered_on_memory() {
    crash_between_commits(Kind::Memory, Fault::CrashBefore);
    crash_between_commits(Kind::Memory, Fault::CrashAfter);
}

#[test]
fn a_crash_between_commits_loses_nothing_answered_on_sqlite() {
    crash_between_commits(Kind::Sqlite, Fault::CrashBefore);
    crash_between_commits(Kind::Sqlite, Fault::CrashAfter);
}

/// A command that panics half-way (after it changed the engine) changes nothing stored, the
/// governor answers the next command from the store's state.
fn command_panics(kind: Kind) {
    let (clock, store) = (clock(), Arc::new(FaultyStore::new(inner_store(kind))));
    let gov = open(store.clone(), clock.clone());
    assert!(gov.acquire(acq("k1")).unwrap().granted);
    let g = gov.clone();
    let r = std::thread::spawn(move || {
        g.run_command(|e| -> leasekit::Result<()> {
            let granted = e.acquire(acq("k2"));
            assert!(granted.granted);
            panic!("a bug half-way through a command");
        })
    })
    .join();
    // The panic is contained: an error answer, not a crashed caller.
    let e = r.expect("the caller's thread survives").unwrap_err();
    assert!(e.message().contains("panicked"), "{e}");
    check(&gov, &*store, clock.clone());
    gov.with_engine(|e| assert_eq!(live(e), 1));
    assert!(gov.acquire(acq("k2")).unwrap().granted);
    assert!(!gov.acquire(acq("k3")).unwrap().granted);
    check(&gov, &*store, clock.clone());
}

#[test]
fn a_command_that_panics_changes_nothing_on_memory() {
    command_panics(Kind::Memory);
}

#[test]
fn a_command_that_panics_changes_nothing_on_sqlite() {
    command_panics(Kind::Sqlite);
}

/// The store panics inside a commit; then the reload after a failure fails once. Nothing
/// hangs, and the governor recovers once the store answers again.
fn store_panics_and_reload_fails(kind: Kind) {
    let (clock, store) = (clock(), Arc::new(FaultyStore::new(inner_store(kind))));
    let gov = open(store.clone(), clock.clone());
    assert!(gov.acquire(acq("k1")).unwrap().granted);
    store.inject_next(StoreOp::Commit, Fault::Panic);
    let g = gov.clone();
    let r = std::thread::spawn(move || g.acquire(acq("k2"))).join();
    let e = r.expect("the caller's thread survives").unwrap_err();
    assert!(unavailable(&e), "{e}");
    check(&gov, &*store, clock.clone());
    store.inject_next(StoreOp::Commit, Fault::Error);
    store.inject_next(StoreOp::Load, Fault::Error);
    assert!(unavailable(&gov.acquire(acq("k2")).unwrap_err()));
    // The reload failed: the next command reloads first.
    assert!(gov.acquire(acq("k2")).unwrap().granted);
    check(&gov, &*store, clock.clone());
}

#[test]
fn a_store_that_panics_or_cannot_reload_hangs_nothing_on_memory() {
    store_panics_and_reload_fails(Kind::Memory);
}

#[test]
fn a_store_that_panics_or_cannot_reload_hangs_nothing_on_sqlite() {
    store_panics_and_reload_fails(Kind::Sqlite);
}

/// A store that keeps no rows (the plain in-memory store) cannot be reloaded: after a failed
/// commit its governor refuses every command instead of answering from state it lost.
#[test]
fn a_plain_memory_store_refuses_everything_after_a_failure() {
    let clock = clock();
    let store = Arc::new(FaultyStore::new(Arc::new(MemoryStore::new())));
    let gov = open(store.clone(), clock.clone());
    assert!(gov.acquire(acq("k1")).unwrap().granted);
    store.inject_next(StoreOp::Commit, Fault::Error);
    assert!(unavailable(&gov.acquire(acq("k2")).unwrap_err()));
    for key in ["k2", "k3"] {
        let e = gov.acquire(acq(key)).unwrap_err();
        assert!(unavailable(&e) && e.message().contains("open a new"), "{e}");
    }
    let lines = store.read_audit(1, u64::MAX).unwrap();
    assert!(leasekit::governor::audit::verify_audit(lines.iter().map(String::as_str)).ok);
}

/// Group commit on SQLite under concurrent callers and seeded random faults (failed commits,
/// unknown outcomes, stalls): every caller retries with its keys until answered; afterwards
/// the chain and the state are the store's, each key holds one lease, the cap held.
#[test]
fn group_commit_under_random_faults_keeps_state_and_chain_whole() {
    let clock = clock();
    let store = Arc::new(FaultyStore::new(inner_store(Kind::Sqlite)));
    let gov = open(store.clone(), clock.clone());
    store.random(
        42,
        150_000,
        &[
            (StoreOp::Commit, Fault::Error),
            (StoreOp::Commit, Fault::ErrorAfterCommit),
            (StoreOp::Commit, Fault::Stall(Duration::from_millis(2))),
        ],
    );
    let threads: Vec<_> = (0..4)
        .map(|t| {
            let gov = gov.clone();
            std::thread::spawn(move || {
                let mut failures = 0;
                for i in 0..25 {
                    let key = format!("t{t}-{i}");
                    let lease = loop {
                        match gov.acquire(acq(&key)) {
                            Ok(r) if r.granted => break Some(r.lease_id),
                            Ok(_) => break None,
                            Err(e) => {
                                assert!(unavailable(&e), "{e}");
                                failures += 1;
                            }
                        }
                    };
                    let Some(lease) = lease else { continue };
                    let rkey = format!("r{t}-{i}");
                    loop {
                        match gov.release(rel(&lease, &rkey)) {
                            Ok(r) => {
                                assert_ne!(r.classification, ReleaseClassification::LeaseNotFound);
                                break;
                            }
                            Err(e) => {
                                assert!(unavailable(&e), "{e}");
                                failures += 1;
                            }
                        }
                    }
                }
                failures
            })
        })
        .collect();
    let failures: u32 = threads.into_iter().map(|t| t.join().unwrap()).sum();
    store.clear();
    assert!(failures > 0, "the plan injected no fault");
    assert!(!store.injected().is_empty());
    check(&gov, &*store, clock.clone());
    gov.with_engine(|e| assert_eq!(live(e), 0));
    drop(gov);
    let gov = open(store.inner(), clock.clone());
    check(&gov, &*store.inner(), clock.clone());
}

/// Commands of concurrent callers share one transaction (group commit). When that grouped
/// commit fails, every command of the group answers `store_unavailable`, none is answered
/// granted, nothing of the group is stored, and a retry of each is granted once.
#[test]
fn a_failed_grouped_commit_fails_every_command_of_the_group() {
    const CALLERS: usize = 8;
    let clock = clock();
    let store = Arc::new(FaultyStore::new(inner_store(Kind::Sqlite)));
    let wide = Policy::from_value(json!({
        "policyVersion": "group", "maxInFlight": 100, "leaseTtlMs": 60000,
        "dailyBudgetCents": 100000, "maxRequestsPerMinute": 100000,
        "maxTokensPerMinute": 100000000, "maxComputeUnits": 1000
    }))
    .unwrap();
    let gov = Governor::new(
        wide,
        GovernorOptions::default(),
        store.clone(),
        clock.clone(),
        IdSource::Deterministic,
    )
    .unwrap();
    // Commit 1 recorded the policy. Commit 2 (the first acquire) stalls, so the callers that
    // come meanwhile queue for commit 3, which fails.
    store.inject(
        StoreOp::Commit,
        2,
        Fault::Stall(Duration::from_millis(1500)),
    );
    store.inject(StoreOp::Commit, 3, Fault::Error);
    let first = {
        let gov = gov.clone();
        std::thread::spawn(move || gov.acquire(acq("first")))
    };
    std::thread::sleep(Duration::from_millis(100));
    let group: Vec<_> = (0..CALLERS)
        .map(|i| {
            let gov = gov.clone();
            std::thread::spawn(move || gov.acquire(acq(&format!("g{i}"))))
        })
        .collect();
    let first = first.join().unwrap().expect("the stalled commit succeeds");
    assert!(first.granted);
    for t in group {
        match t.join().unwrap() {
            Ok(r) => panic!("a command of the failed group was answered: {r:?}"),
            Err(e) => assert!(unavailable(&e), "{e}"),
        }
    }
    let faults: Vec<_> = store.injected().iter().map(|i| (i.call, i.fault)).collect();
    assert_eq!(
        faults,
        vec![
            (2, Fault::Stall(Duration::from_millis(1500))),
            (3, Fault::Error)
        ],
        "all {CALLERS} callers were in the one failed commit"
    );
    // Nothing of the group is stored: a governor reopened on the store holds one lease.
    let stored = Engine::open_image(
        store.load().unwrap(),
        policy(),
        GovernorOptions::default(),
        clock.clone() as Arc<dyn Clock>,
        IdSource::Deterministic,
        true,
    )
    .unwrap();
    assert_eq!(live(&stored), 1);
    assert_eq!(stored.state().idem.len(), 1);
    gov.with_engine(|e| assert_eq!(live(e), 1, "the image was rebuilt from the store"));
    let lines = store.read_audit(1, u64::MAX).unwrap();
    assert!(leasekit::governor::audit::verify_audit(lines.iter().map(String::as_str)).ok);
    // Each retry is granted once.
    for i in 0..CALLERS {
        assert!(gov.acquire(acq(&format!("g{i}"))).unwrap().granted);
    }
    gov.with_engine(|e| assert_eq!(live(e), 1 + CALLERS as u64));
    assert_eq!(gov.verify_audit().unwrap().records, 1 + CALLERS as u64);
}

/// This binary run twice with the same process id (a new pid namespace per run hands out the
/// same ids, as CI containers do): the second run's stores start empty. Its SQLite files once
/// lived in a directory named after the pid, and the second run opened the first run's stores.
/// Needs `unshare` and root; skipped (with a note) without them.
#[test]
fn a_second_run_with_the_same_pid_starts_from_empty_stores() {
    const CHILD: &str = "LEASEKIT_FAILURES_SAME_PID_CHILD";
    if std::env::var_os(CHILD).is_some() {
        return;
    }
    let exe = std::env::current_exe().unwrap();
    // The runs' temp directory, shared by both and removed at the end: inside the namespace
    // their process id is 1, which never looks gone to a later run's sweep.
    let tmp = tempfile::tempdir().unwrap();
    let run = || {
        std::process::Command::new("unshare")
            .args(["--pid", "--fork"])
            .arg(&exe)
            .args([
                "a_crash_between_commits_loses_nothing_answered_on_sqlite",
                "a_command_that_panics_changes_nothing_on_sqlite",
                "--test-threads=1",
            ])
            .env(CHILD, "1")
            .env("TMPDIR", tmp.path())
            .output()
    };
    match run() {
        Ok(o) if o.status.success() => {}
        Ok(o) if String::from_utf8_lossy(&o.stderr).contains("unshare") => {
            eprintln!("skipped: no pid namespace here");
            return;
        }
        Ok(o) => panic!("first run: {}", String::from_utf8_lossy(&o.stdout)),
        Err(e) => {
            eprintln!("skipped: unshare: {e}");
            return;
        }
    }
    let o = run().unwrap();
    assert!(
        o.status.success(),
        "second run with the same pid: {}",
        String::from_utf8_lossy(&o.stdout)
    );
}
