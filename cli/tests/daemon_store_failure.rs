//! A real `leasekit serve` whose SQLite store fails (SEMANTICS 13.16 "Failures"): the test
//! holds the write lock on `governor.db` through its own SQLite connection, so the daemon's
//! commit waits out its busy timeout and fails with `database is locked`. The command is
//! answered `store_unavailable` (`success: false`, retryable); once the lock is gone the
//! daemon goes on from what the file holds: the audit chain verifies (also after a restart),
//! its count is the file's, and no more leases are live than `maxInFlight`.

mod daemon;

use std::time::Duration;

use daemon::Daemon;
use leasekit::governor::client::{ClientOptions, FallbackMode, GovernorClient};
use leasekit::governor::wire::{AcquireRequest, ReleaseClassification, ReleaseRequest};
use serde_json::json;

fn acq(key: &str) -> AcquireRequest {
    AcquireRequest {
        actor_id: "a".into(),
        workspace_id: "w".into(),
        estimated_cost_cents: 3,
        idempotency_key: key.into(),
        ..AcquireRequest::default()
    }
}

/// A client that waits longer than the store's 10 s busy timeout.
fn patient(d: &Daemon) -> GovernorClient {
    GovernorClient::with_options(
        &d.socket,
        ClientOptions {
            fallback: FallbackMode::Off,
            timeout: Duration::from_secs(60),
            ..ClientOptions::default()
        },
    )
}

/// The chain verifies and its count is the file's and the status's.
fn chain_whole(d: &Daemon) -> u64 {
    let c = patient(d);
    let v = c.verify_audit().unwrap();
    assert!(v.ok, "chain broken: {v:?}");
    let lines: i64 = rusqlite::Connection::open(d.state.join("governor.db"))
        .unwrap()
        .query_row("SELECT count(*) FROM audit", [], |r| r.get(0))
        .unwrap();
    let lines = lines as u64;
    assert_eq!(v.records, lines);
    assert_eq!(c.status().unwrap().audit_records, lines);
    lines
}

#[test]
fn a_locked_store_answers_store_unavailable_and_the_daemon_recovers_whole() {
    let dir = daemon::temp_dir("sfail");
    let pfile = dir.join("policy.json");
    std::fs::write(
        &pfile,
        json!({"policyVersion": "v1", "maxInFlight": 2, "leaseTtlMs": 4000}).to_string(),
    )
    .unwrap();
    let mut d = Daemon::start_in(&dir, vec!["--policy".into(), pfile.display().to_string()]);
    let c = patient(&d);
    let a = c.acquire(acq("ka")).unwrap();
    assert!(a.granted);
    // Lease A expires: the next command's sweep settles it (a change to commit). The leases
    // live 4 s so that B and C, taken below, outlive the checks that follow them even on a
    // loaded machine (with 1 s, B expired before the cap was checked under load).
    std::thread::sleep(Duration::from_millis(4200));
    let mut lock = rusqlite::Connection::open(d.state.join("governor.db")).unwrap();
    let tx = lock
        .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
        .unwrap();
    let e = c.acquire(acq("kb")).unwrap_err();
    assert!(e.retryable(), "{e}");
    assert_eq!(e.details()["reason"], "store_unavailable", "{e}");
    assert!(e.message().contains("store_unavailable:"), "{e}");
    assert!(e.message().contains("database is locked"), "{e}");
    tx.rollback().unwrap();
    drop(lock);
    // The daemon goes on from the file: the retry is granted, the cap holds.
    let b = c.acquire(acq("kb")).unwrap();
    let cc = c.acquire(acq("kc")).unwrap();
    assert!(b.granted && cc.granted);
    let full = c.acquire(acq("kd")).unwrap();
    assert_eq!(full.denied_reason, "concurrency_limit_reached");
    let r = c
        .release(ReleaseRequest {
            lease_id: b.lease_id.clone(),
            actual_cost_cents: 2,
            idempotency_key: "rb".into(),
            ..ReleaseRequest::default()
        })
        .unwrap();
    assert_eq!(r.classification, ReleaseClassification::Recorded);
    let lines = chain_whole(&d);
    let audit = c.audit_lines(1, lines).unwrap();
    assert_eq!(
        audit
            .iter()
            .filter(|l| l.contains("\"lease_expired\""))
            .count(),
        1,
        "lease A settled once"
    );
    // A crash and a restart on the file: the same chain, at most lease C live (it may have
    // expired meanwhile and been settled by the restart).
    d.kill9();
    d.restart();
    chain_whole(&d);
    assert!(patient(&d).status().unwrap().active_leases <= 1);
}
