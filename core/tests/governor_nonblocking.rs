//! Deciding on an async runtime's thread (`Governor::handle_as_nonblocking`, the daemon's path
//! for small per-call requests): the caller is never held by a commit, a store read or another
//! caller's long command; everything that could hold it is left to a blocking thread (`None`).
//! Real SQLite files, faults injected by `FaultyStore`.

mod scratch;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use leasekit::SystemClock;
use leasekit::governor::store::{Fault, FaultyStore, SqliteStore, StoreOp, Synchronous};
use leasekit::governor::wire::{Command, ResponseEnvelope};
use leasekit::governor::{
    CommitWait, Governor, GovernorOptions, IdSource, Peer, Policy, decides_without_blocking,
};
use serde_json::{Value, json};

static DB: AtomicU64 = AtomicU64::new(0);

fn policy() -> Policy {
    Policy::from_value(json!({
        "policyVersion": "nonblocking", "maxInFlight": 1000, "leaseTtlMs": 600000,
        "dailyBudgetCents": 10000000, "maxRequestsPerMinute": 1000000,
        "maxTokensPerMinute": 100000000, "maxComputeUnits": 100000
    }))
    .unwrap()
}

/// A governor on a fresh SQLite file behind a `FaultyStore`.
fn faulty() -> (Governor, Arc<FaultyStore>) {
    let path = scratch::dir().join(format!("{}.db", DB.fetch_add(1, Ordering::Relaxed)));
    let sqlite = Arc::new(SqliteStore::open_with(&path, Synchronous::Normal).unwrap());
    let faulty = Arc::new(FaultyStore::new(sqlite));
    let gov = Governor::new(
        policy(),
        GovernorOptions::default(),
        faulty.clone(),
        Arc::new(SystemClock),
        IdSource::Random,
    )
    .expect("open governor");
    (gov, faulty)
}

const PEER: Peer = Peer {
    uid: 1000,
    admin: true,
};

fn acquire_payload(key: &str) -> String {
    json!({"actorId": "a", "workspaceId": "w", "estimatedCostCents": 3, "idempotencyKey": key})
        .to_string()
}

fn nonblocking_acquire(
    gov: &Governor,
    key: &str,
) -> Option<(ResponseEnvelope, Option<CommitWait>)> {
    gov.handle_as_nonblocking(PEER, "Acquire", &acquire_payload(key))
}

fn granted(env: &ResponseEnvelope) -> bool {
    assert!(env.success, "{env:?}");
    let v: Value = serde_json::from_str(&env.payload_json).unwrap();
    v["granted"].as_bool().unwrap()
}

/// Waits (bounded) until `cond` holds.
fn until(what: &str, cond: impl Fn() -> bool) {
    let t0 = Instant::now();
    while !cond() {
        assert!(t0.elapsed() < Duration::from_secs(10), "{what}: never");
        std::thread::sleep(Duration::from_millis(1));
    }
}

#[test]
fn a_lone_nonblocking_caller_never_commits_on_its_own_thread() {
    let (gov, faulty) = faulty();
    // Nobody leads: a blocking caller would lead this batch itself and sit out the stall.
    faulty.inject_next(StoreOp::Commit, Fault::Stall(Duration::from_millis(600)));
    let commits = faulty.calls(StoreOp::Commit);
    let t0 = Instant::now();
    let (answer, wait) = nonblocking_acquire(&gov, "k0").expect("an Acquire is decided");
    let decided_in = t0.elapsed();
    assert!(
        decided_in < Duration::from_millis(400),
        "the caller was held {decided_in:?} (it led the stalled commit)"
    );
    assert!(granted(&answer));
    let wait = wait.expect("a durable store's command has a commit to await");
    // The committer thread writes it.
    until("the commit starts", || {
        faulty.calls(StoreOp::Commit) > commits
    });
    wait.wait().expect("committed");
    assert!(
        t0.elapsed() >= Duration::from_millis(590),
        "{:?}",
        t0.elapsed()
    );
}

#[test]
fn only_per_call_commands_are_decided_without_blocking() {
    let (gov, _faulty) = faulty();
    for cmd in Command::ALL {
        let quick = decides_without_blocking(cmd);
        let expected = matches!(
            cmd,
            Command::Acquire
                | Command::Release
                | Command::RequestToolSubLease
                | Command::ExecuteToolCall
                | Command::Authorize
                | Command::RecordDecision
        );
        assert_eq!(quick, expected, "{cmd:?}");
        if !quick {
            // Audit reads, policy work, exports, approvals: a blocking thread's.
            assert!(
                gov.handle_as_nonblocking(PEER, cmd.as_str(), "{}")
                    .is_none(),
                "{cmd:?} was decided on the nonblocking path"
            );
        }
    }
    for unknown in ["", "NoSuchCommand", "acquire"] {
        assert!(gov.handle_as_nonblocking(PEER, unknown, "{}").is_none());
    }
    // A per-call command with a bad payload is still answered at once, with its error.
    let (answer, wait) = gov
        .handle_as_nonblocking(PEER, "Release", "not json")
        .expect("decided");
    assert!(!answer.success);
    assert!(wait.is_none(), "nothing changed: nothing to commit");
}

#[test]
fn nothing_is_decided_while_a_blocking_call_is_under_way() {
    let (gov, faulty) = faulty();
    // A blocking caller leads a commit that stalls (its thread is inside the governor).
    faulty.inject_next(StoreOp::Commit, Fault::Stall(Duration::from_millis(500)));
    let commits = faulty.calls(StoreOp::Commit);
    let blocking = {
        let gov = gov.clone();
        std::thread::spawn(move || gov.handle_as(PEER, "Acquire", &acquire_payload("b")))
    };
    until("the blocking caller's commit starts", || {
        faulty.calls(StoreOp::Commit) > commits
    });
    assert!(
        nonblocking_acquire(&gov, "n0").is_none(),
        "decided while a blocking call was under way"
    );
    assert!(granted(&blocking.join().unwrap()));
    // Once it is done, the nonblocking path decides again.
    let (answer, wait) = nonblocking_acquire(&gov, "n1").expect("decided");
    assert!(granted(&answer));
    wait.expect("a commit to await").wait().expect("committed");
}

#[test]
fn a_broken_image_is_left_to_a_blocking_thread_to_rebuild() {
    let (gov, faulty) = faulty();
    // The store dies before the next commit: the command fails, and the image cannot be
    // rebuilt until the store is back.
    faulty.inject_next(StoreOp::Commit, Fault::CrashBefore);
    let (answer, wait) = nonblocking_acquire(&gov, "k0").expect("decided");
    assert!(granted(&answer), "decided before the commit");
    let err = wait.expect("a commit to await").wait().unwrap_err();
    assert!(
        err.message().contains("store_unavailable"),
        "{}",
        err.message()
    );
    // Rebuilding reads the store: never on the nonblocking path.
    assert!(nonblocking_acquire(&gov, "k1").is_none());
    faulty.restart();
    // A blocking caller rebuilds it; then the nonblocking path decides again.
    assert!(granted(&gov.handle_as(
        PEER,
        "Acquire",
        &acquire_payload("k2")
    )));
    let (answer, wait) = nonblocking_acquire(&gov, "k3").expect("decided");
    assert!(granted(&answer));
    wait.expect("a commit to await").wait().expect("committed");
}

#[test]
fn a_memory_governor_answers_at_once() {
    let gov = Governor::in_memory(policy(), GovernorOptions::default()).unwrap();
    let (answer, wait) = nonblocking_acquire(&gov, "k0").expect("decided");
    assert!(granted(&answer));
    assert!(wait.is_none(), "nothing to await on a memory store");
    let lease: Value = serde_json::from_str(&answer.payload_json).unwrap();
    let release = json!({"leaseId": lease["leaseId"], "actualCostCents": 1,
        "idempotencyKey": "r0"});
    let (answer, wait) = gov
        .handle_as_nonblocking(PEER, "Release", &release.to_string())
        .expect("decided");
    assert!(answer.success, "{answer:?}");
    assert!(wait.is_none());
}
