//! A fleet governor on a real PostgreSQL (tests/pg/mod.rs) under store failures (SEMANTICS
//! 13.16 "Failures"), with faults injected by `FaultyStore` into the shared store's
//! transactions: a transaction refused after the decision (rolled back), one committed whose
//! outcome is then reported lost, a durability wait (`settle`) that fails, a crash before and
//! after a commit. After each: the answer was `store_unavailable`, the chain verifies and its
//! count is the database's, no more leases are live than `maxInFlight` across every governor
//! on the database, and a retry with the same idempotency key is granted once.

mod pg;

use std::sync::Arc;

use leasekit::governor::engine::IdSource;
use leasekit::governor::store::{Fault, FaultyStore, PostgresStore, Store, StoreOp};
use leasekit::governor::wire::*;
use leasekit::governor::{Governor, GovernorOptions, Policy};
use leasekit::{ManualClock, parse_expires_at};
use pg::TempPostgres;
use serde_json::json;

const CAP: u64 = 2;

fn policy() -> Policy {
    Policy::from_value(json!({
        "policyVersion": "failures-pg", "maxInFlight": CAP, "leaseTtlMs": 60000,
        "dailyBudgetCents": 100000, "maxRequestsPerMinute": 100000,
        "maxTokensPerMinute": 100000000
    }))
    .unwrap()
}

fn clock() -> Arc<ManualClock> {
    Arc::new(ManualClock::new(
        parse_expires_at("2026-03-01T10:00:00Z").unwrap(),
    ))
}

/// A governor on `store`; `ids` apart so two governors on one database mint distinct ids.
fn open(store: Arc<dyn Store>, clock: Arc<ManualClock>, ids: IdSource) -> Governor {
    Governor::new(policy(), GovernorOptions::default(), store, clock, ids).expect("open")
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

fn unavailable(e: &leasekit::Error) -> bool {
    e.message().starts_with("store_unavailable") && e.message().ends_with("(retryable)")
}

/// A faulty store over a fresh database, the plain store under it, and the database's URL.
fn fresh(pg: &TempPostgres, tag: &str) -> (Arc<FaultyStore>, Arc<dyn Store>, String) {
    let url = pg.fresh_db(tag);
    let inner: Arc<dyn Store> = Arc::new(PostgresStore::open(&url).expect("open store"));
    (Arc::new(FaultyStore::new(inner.clone())), inner, url)
}

/// The chain verifies, and its count is the store's and the governor's status's.
fn chain_whole(gov: &Governor, store: &dyn Store) -> u64 {
    let v = gov.verify_audit().expect("verify");
    let lines = store.read_audit(1, u64::MAX).expect("read chain");
    assert!(v.ok, "chain broken: {v:?}");
    assert_eq!(v.records, lines.len() as u64);
    assert_eq!(gov.status().unwrap().audit_records, lines.len() as u64);
    lines.len() as u64
}

fn active(gov: &Governor) -> u64 {
    gov.status().unwrap().active_leases
}

#[test]
fn a_refused_transaction_changes_nothing_and_the_retry_is_granted_once() {
    let pg = TempPostgres::shared();
    let (store, inner, _) = fresh(&pg, "fail_refused");
    let gov = open(store.clone(), clock(), IdSource::Deterministic);
    assert!(gov.acquire(acq("k1")).unwrap().granted);
    let before = chain_whole(&gov, &*inner);
    store.inject_next(StoreOp::Transact, Fault::Error);
    let e = gov.acquire(acq("k2")).unwrap_err();
    assert!(unavailable(&e), "{e}");
    assert_eq!(chain_whole(&gov, &*inner), before, "nothing was written");
    assert_eq!(active(&gov), 1);
    let k2 = gov.acquire(acq("k2")).unwrap();
    assert!(k2.granted);
    assert_eq!(gov.acquire(acq("k2")).unwrap().lease_id, k2.lease_id);
    assert!(!gov.acquire(acq("k3")).unwrap().granted, "cap {CAP}");
    chain_whole(&gov, &*inner);
    assert_eq!(active(&gov), 2);
}

#[test]
fn a_lost_commit_outcome_is_store_unavailable_and_replays_the_grant() {
    let pg = TempPostgres::shared();
    for op in [StoreOp::Transact, StoreOp::Settle] {
        let (store, inner, _) = fresh(&pg, "fail_unknown");
        let gov = open(store.clone(), clock(), IdSource::Deterministic);
        store.inject_next(op, Fault::ErrorAfterCommit);
        let e = gov.acquire(acq("k1")).unwrap_err();
        assert!(unavailable(&e), "{op:?}: {e}");
        let again = gov.acquire(acq("k1")).unwrap();
        assert!(again.granted, "{op:?}");
        // One lease, one reservation: the retry replayed the committed grant.
        assert_eq!(active(&gov), 1, "{op:?}");
        let lines = inner.read_audit(1, u64::MAX).unwrap();
        let acquired = lines
            .iter()
            .filter(|l| l.contains("\"lease_acquired\""))
            .count();
        assert_eq!(acquired, 1, "{op:?}: {lines:?}");
        chain_whole(&gov, &*inner);
    }
}

#[test]
fn a_crash_before_or_after_a_commit_loses_nothing_answered_across_the_fleet() {
    let pg = TempPostgres::shared();
    for fault in [Fault::CrashBefore, Fault::CrashAfter] {
        let (store, inner, url) = fresh(&pg, "fail_crash");
        let clock = clock();
        let a = open(store.clone(), clock.clone(), IdSource::Deterministic);
        // A second governor on the same database, with its own store and ids.
        let other: Arc<dyn Store> = Arc::new(PostgresStore::open(&url).expect("second store"));
        let b = open(other.clone(), clock.clone(), IdSource::Random);
        let first = a.acquire(acq("k1")).unwrap();
        assert!(first.granted);
        store.inject_next(StoreOp::Transact, fault);
        assert!(unavailable(&a.acquire(acq("k2")).unwrap_err()));
        // Dead: nothing more is answered granted by it.
        assert!(a.acquire(acq("k3")).is_err());
        drop(a);
        // The other governor sees what was committed: k1, and k2 only after a commit.
        let expect = if fault == Fault::CrashAfter { 2 } else { 1 };
        assert_eq!(active(&b), expect, "{fault:?}");
        // k2's retry through the other governor: replayed or granted afresh, never twice.
        let k2 = b.acquire(acq("k2")).unwrap();
        assert!(k2.granted, "{fault:?}");
        assert_eq!(b.acquire(acq("k2")).unwrap().lease_id, k2.lease_id);
        assert!(
            !b.acquire(acq("k4")).unwrap().granted,
            "cap {CAP} across the fleet"
        );
        // The crashed governor's process restarts on the database.
        store.restart();
        let a = open(store.clone(), clock.clone(), IdSource::Random);
        assert_eq!(active(&a), 2, "{fault:?}");
        assert!(!a.acquire(acq("k5")).unwrap().granted);
        chain_whole(&a, &*inner);
        chain_whole(&b, &*other);
    }
}
