//! Deferred commits (`Governor::handle_as_deferred`, the daemon's path): the answer is decided
//! at once, but may be sent only once its `CommitWait` completes; a failed commit replaces it
//! with `store_unavailable` (SEMANTICS 13.11, 13.16). Real SQLite files, faults injected by
//! `FaultyStore`.

mod scratch;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::{Context, Waker};
use std::time::{Duration, Instant};

use leasekit::SystemClock;
use leasekit::governor::store::{Fault, FaultyStore, SqliteStore, Store, StoreOp, Synchronous};
use leasekit::governor::wire::ResponseEnvelope;
use leasekit::governor::{CommitWait, Governor, GovernorOptions, IdSource, Peer, Policy};
use serde_json::{Value, json};

static DB: AtomicU64 = AtomicU64::new(0);

fn temp_db() -> std::path::PathBuf {
    let dir = scratch::dir();
    dir.join(format!("{}.db", DB.fetch_add(1, Ordering::Relaxed)))
}

fn policy() -> Policy {
    Policy::from_value(json!({
        "policyVersion": "deferred", "maxInFlight": 1000, "leaseTtlMs": 600000,
        "dailyBudgetCents": 10000000, "maxRequestsPerMinute": 1000000,
        "maxTokensPerMinute": 100000000, "maxComputeUnits": 100000
    }))
    .unwrap()
}

fn open(store: Arc<dyn Store>) -> Governor {
    Governor::new(
        policy(),
        GovernorOptions::default(),
        store,
        Arc::new(SystemClock),
        IdSource::Random,
    )
    .expect("open governor")
}

/// A governor on a fresh SQLite file behind a `FaultyStore`, and the file.
fn faulty() -> (Governor, Arc<FaultyStore>, std::path::PathBuf) {
    let path = temp_db();
    let sqlite = Arc::new(SqliteStore::open_with(&path, Synchronous::Normal).unwrap());
    let faulty = Arc::new(FaultyStore::new(sqlite));
    (open(faulty.clone()), faulty, path)
}

const PEER: Peer = Peer {
    uid: 1000,
    admin: true,
};

fn acquire(gov: &Governor, key: &str) -> (ResponseEnvelope, Option<CommitWait>) {
    let payload = json!({"actorId": "a", "workspaceId": "w", "estimatedCostCents": 3,
        "idempotencyKey": key});
    gov.handle_as_deferred(PEER, "Acquire", &payload.to_string())
}

fn payload(env: &ResponseEnvelope) -> Value {
    assert!(env.success, "{env:?}");
    serde_json::from_str(&env.payload_json).unwrap()
}

/// Leases live in the store file, read by a governor opened on it afresh.
fn live_leases_in_file(path: &std::path::Path) -> u64 {
    let gov = Governor::open_sqlite(path, policy(), GovernorOptions::default()).unwrap();
    let status = payload(&gov.handle_as(PEER, "GetStatus", "{}"));
    status["activeLeases"]
        .as_u64()
        .or_else(|| status["inFlight"].as_u64())
        .unwrap_or_else(|| panic!("no lease count in {status}"))
}

#[test]
fn the_answer_waits_for_its_commit() {
    let (gov, faulty, _path) = faulty();
    // A first command finds nobody leading: it leads its batch on its own thread, whose
    // commit stalls.
    faulty.inject_next(StoreOp::Commit, Fault::Stall(Duration::from_millis(300)));
    let commits = faulty.calls(StoreOp::Commit);
    let first = {
        let gov = gov.clone();
        std::thread::spawn(move || {
            let (answer, wait) = acquire(&gov, "k0");
            if let Some(w) = wait {
                w.wait().unwrap();
            }
            answer
        })
    };
    let t0 = Instant::now();
    while faulty.calls(StoreOp::Commit) == commits {
        assert!(
            t0.elapsed() < Duration::from_secs(10),
            "the first commit never started"
        );
        std::thread::sleep(Duration::from_millis(1));
    }
    // A second one, while that commit is in flight: decided at once, its thread not held.
    let t1 = Instant::now();
    let (answer, wait) = acquire(&gov, "k1");
    assert!(
        t1.elapsed() < Duration::from_millis(200),
        "{:?}",
        t1.elapsed()
    );
    assert!(payload(&answer)["granted"].as_bool().unwrap());
    let mut wait = wait.expect("a durable store's command has a commit to await");
    let mut cx = Context::from_waker(Waker::noop());
    assert!(
        std::pin::Pin::new(&mut wait).poll(&mut cx).is_pending(),
        "the batch before it is still stalled"
    );
    wait.wait().expect("committed");
    // Its commit came after the stalled one.
    assert!(
        t0.elapsed() >= Duration::from_millis(290),
        "{:?}",
        t0.elapsed()
    );
    assert!(first.join().unwrap().success);
}

#[test]
fn a_committed_answer_is_in_the_store() {
    let (gov, _faulty, path) = faulty();
    let (answer, wait) = acquire(&gov, "k1");
    assert!(payload(&answer)["granted"].as_bool().unwrap());
    wait.unwrap().wait().unwrap();
    drop(gov);
    assert_eq!(live_leases_in_file(&path), 1);
}

#[test]
fn a_failed_commit_replaces_the_answer_and_nothing_of_it_stays() {
    for fault in [Fault::Error, Fault::ErrorAfterCommit, Fault::Panic] {
        let (gov, faulty, path) = faulty();
        faulty.inject_next(StoreOp::Commit, fault);
        let (answer, wait) = acquire(&gov, "k1");
        assert!(answer.success, "decided before the commit");
        let err = wait.unwrap().wait().expect_err("the commit failed");
        let msg = err.message();
        assert!(msg.starts_with("store_unavailable: "), "{fault:?}: {msg}");
        assert!(msg.contains("retry with the same idempotencyKey"), "{msg}");
        // The governor recovers: the next command commits, and the image equals the store.
        let (answer, wait) = acquire(&gov, "k2");
        assert!(payload(&answer)["granted"].as_bool().unwrap(), "{fault:?}");
        wait.unwrap().wait().unwrap();
        let verify = payload(&gov.handle_as(PEER, "VerifyAudit", "{}"));
        assert_eq!(verify["ok"], true, "{fault:?}: {verify}");
        drop(gov);
        let expected = if fault == Fault::ErrorAfterCommit {
            2
        } else {
            1
        };
        assert_eq!(live_leases_in_file(&path), expected, "{fault:?}");
    }
}

#[test]
fn an_abandoned_wait_holds_nothing_up() {
    let (gov, faulty, _path) = faulty();
    faulty.inject_next(StoreOp::Commit, Fault::Error);
    let (_, failed) = acquire(&gov, "k1");
    drop(failed);
    let (_, ok) = acquire(&gov, "k2");
    drop(ok);
    // Commands decided before the failed commit was known fail with it (they were decided on
    // the image it broke); then every command commits.
    let (mut ok, mut failed) = (0, 0);
    for i in 0..40 {
        let (answer, wait) = acquire(&gov, &format!("n{i}"));
        assert!(answer.success);
        match wait.unwrap().wait() {
            Ok(()) => ok += 1,
            Err(e) => {
                assert!(ok == 0, "a failure after a commit: {e:?}");
                assert!(e.message().starts_with("store_unavailable: "), "{e:?}");
                failed += 1;
            }
        }
        if ok == 20 {
            break;
        }
    }
    assert_eq!(ok, 20, "{failed} failed");
}

#[test]
fn audit_reads_and_stores_that_are_not_durable_answer_at_once() {
    let (gov, _faulty, _path) = faulty();
    let (answer, wait) = gov.handle_as_deferred(PEER, "VerifyAudit", "{}");
    assert!(answer.success && wait.is_none(), "{answer:?}");
    let (answer, wait) = gov.handle_as_deferred(PEER, "ExportAudit", "{}");
    assert!(answer.success && wait.is_none(), "{answer:?}");
    let mem = Governor::in_memory(policy(), GovernorOptions::default()).unwrap();
    let (answer, wait) = acquire(&mem, "k1");
    assert!(answer.success && wait.is_none(), "{answer:?}");
}

#[test]
fn deferred_and_blocking_callers_share_the_group_commit() {
    let (gov, _faulty, path) = faulty();
    let deadline = Instant::now() + Duration::from_secs(120);
    std::thread::scope(|s| {
        for t in 0..8 {
            let gov = gov.clone();
            s.spawn(move || {
                for i in 0..40 {
                    let (answer, wait) = acquire(&gov, &format!("d{t}-{i}"));
                    let lease = payload(&answer)["leaseId"].as_str().unwrap().to_string();
                    wait.unwrap().wait().unwrap();
                    let rel = json!({"leaseId": lease, "actualCostCents": 1});
                    let (answer, wait) = gov.handle_as_deferred(PEER, "Release", &rel.to_string());
                    assert!(answer.success, "{answer:?}");
                    wait.unwrap().wait().unwrap();
                    assert!(
                        Instant::now() < deadline,
                        "too slow: a commit was never led?"
                    );
                }
            });
        }
        for t in 0..4 {
            let gov = gov.clone();
            s.spawn(move || {
                for i in 0..40 {
                    let payload_json = json!({"actorId": "b", "workspaceId": "w",
                        "estimatedCostCents": 1, "idempotencyKey": format!("b{t}-{i}")});
                    let env = gov.handle_as(PEER, "Acquire", &payload_json.to_string());
                    assert!(env.success, "{env:?}");
                }
            });
        }
    });
    let verify = payload(&gov.handle_as(PEER, "VerifyAudit", "{}"));
    assert_eq!(verify["ok"], true, "{verify}");
    drop(gov);
    // The blocking callers' 160 leases are live; every deferred one was released.
    assert_eq!(live_leases_in_file(&path), 160);
}
