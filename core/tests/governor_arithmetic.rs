//! Checked arithmetic (SEMANTICS 13.16 "Arithmetic"): every pool, quota and counter is
//! computed with checked arithmetic; a command whose effect would overflow is refused
//! (`success: false`) and changes nothing. These tests hold in debug and release builds
//! alike: they assert the refusal and the unchanged state, so neither a panic (debug) nor a
//! wrap (release) passes.

use std::sync::Arc;

use leasekit::governor::engine::IdSource;
use leasekit::governor::store::{MemoryStore, Store};
use leasekit::governor::wire::*;
use leasekit::governor::{Governor, GovernorOptions, Policy};
use leasekit::{ManualClock, parse_expires_at};
use serde_json::json;

/// The largest cents amount a request may carry (the wire's bound, 10^15).
const MAX_CENTS: u64 = 1_000_000_000_000_000;

fn policy(max_in_flight: u64) -> Policy {
    Policy::from_value(json!({
        "policyVersion": "arith", "maxInFlight": max_in_flight, "maxComputeUnits": max_in_flight,
        "dailyBudgetCents": i64::MAX, "maxRequestsPerMinute": 1_000_000,
        "maxTokensPerMinute": 1_000_000_000_000i64, "leaseTtlMs": 3_600_000,
        "spendSpikeCents": i64::MAX, "receiptThresholdCostCents": i64::MAX,
        "actorDailyBudgetCents": i64::MAX
    }))
    .unwrap()
}

fn open(store: Arc<dyn Store>, max_in_flight: u64) -> Governor {
    Governor::new(
        policy(max_in_flight),
        GovernorOptions::default(),
        store,
        Arc::new(ManualClock::new(
            parse_expires_at("2026-03-01T10:00:00Z").unwrap(),
        )),
        IdSource::Deterministic,
    )
    .unwrap()
}

fn acq(key: &str, cents: u64) -> AcquireRequest {
    AcquireRequest {
        actor_id: "a".into(),
        workspace_id: "w".into(),
        estimated_cost_cents: cents,
        idempotency_key: key.into(),
        ..AcquireRequest::default()
    }
}

fn rel(lease: &str, cents: u64) -> ReleaseRequest {
    ReleaseRequest {
        lease_id: lease.into(),
        actual_cost_cents: cents,
        idempotency_key: format!("r-{lease}"),
        ..ReleaseRequest::default()
    }
}

/// Spend, in-flight, audit count and the lease's status: what a refused command must not
/// change.
fn snapshot(gov: &Governor, lease: &str) -> (u64, u64, u64, String) {
    gov.with_engine(|e| {
        let st = e.state();
        (
            st.meta.pools.budget_used,
            st.meta.pools.in_flight,
            st.meta.audit.count,
            format!("{:?}", st.leases.get(lease).map(|l| l.status)),
        )
    })
}

fn overflow(e: &leasekit::Error, field: &str) -> bool {
    e.message().contains(field) && !e.message().contains("panicked")
}

/// Cents beyond the wire's bound are refused on the typed API as on the wire, before anything
/// changes (values above 2^53 could not be recorded exactly in the audit chain's JSON, and
/// above i64::MAX they were written as negative numbers).
#[test]
fn cents_beyond_the_exact_json_range_are_refused() {
    let gov = open(Arc::new(MemoryStore::new()), 4);
    let before = snapshot(&gov, "lease-1");
    for cents in [MAX_CENTS + 1, u64::MAX] {
        let e = gov.acquire(acq("k", cents)).unwrap_err();
        assert!(overflow(&e, "estimatedCostCents"), "{e}");
    }
    assert_eq!(snapshot(&gov, "lease-1"), before);
    let ok = gov.acquire(acq("k", MAX_CENTS)).unwrap();
    assert!(ok.granted, "{ok:?}");
    let before = snapshot(&gov, &ok.lease_id);
    for cents in [MAX_CENTS + 1, 1 << 63, u64::MAX] {
        let e = gov.release(rel(&ok.lease_id, cents)).unwrap_err();
        assert!(overflow(&e, "actualCostCents"), "{e}");
        assert_eq!(snapshot(&gov, &ok.lease_id), before);
    }
    let wire = gov.handle(
        "Release",
        &json!({"leaseId": ok.lease_id, "actualCostCents": u64::MAX}).to_string(),
    );
    let v: serde_json::Value = serde_json::from_str(&wire).unwrap();
    assert_eq!(v["success"], false, "{wire}");
    assert!(
        v["error"].as_str().unwrap().contains("exceeds the maximum"),
        "{wire}"
    );
    assert_eq!(snapshot(&gov, &ok.lease_id), before);
    let r = gov.release(rel(&ok.lease_id, MAX_CENTS)).unwrap();
    assert_eq!(r.classification, ReleaseClassification::Recorded);
    let v = gov.verify_audit().unwrap();
    assert!(v.ok, "{v:?}");
}

/// A day's spend close to `u64::MAX` (stored so: reaching it takes 18 447 settlements of the
/// largest amount): the release that would overflow it is refused whole (the lease stays
/// live, the spend and the chain as they were), and an acquire on top of it is denied, not
/// wrapped.
#[test]
fn a_release_that_would_overflow_the_days_spend_is_refused() {
    let store = Arc::new(MemoryStore::reloadable());
    let gov = open(store.clone(), 4);
    let a = gov.acquire(acq("k1", 1)).unwrap();
    assert!(a.granted);
    drop(gov);
    // The stored spend of the day (and the actor's) set near u64::MAX, as many settlements
    // would leave it.
    let snap = store.load().unwrap().unwrap();
    let mut meta: serde_json::Value = serde_json::from_str(&snap.meta).unwrap();
    let near = u64::MAX - MAX_CENTS / 2;
    meta["pools"]["budget_used"] = json!(near);
    for c in meta["scoped"].as_object_mut().unwrap().values_mut() {
        c["used"] = json!(near);
    }
    store
        .commit(leasekit::governor::store::Batch {
            meta: Some(meta.to_string()),
            ..Default::default()
        })
        .unwrap();
    let gov = open(store.clone(), 4);
    let before = snapshot(&gov, &a.lease_id);
    assert_eq!(before.0, near);
    let e = gov.release(rel(&a.lease_id, MAX_CENTS)).unwrap_err();
    assert!(overflow(&e, "actualCostCents"), "{e}");
    assert!(e.message().starts_with("arithmetic_overflow"), "{e}");
    assert_eq!(
        snapshot(&gov, &a.lease_id),
        before,
        "a refused release changed state"
    );
    // A small actual settles; an acquire on top of this spend is denied, nothing wraps.
    let r = gov.release(rel(&a.lease_id, 5)).unwrap();
    assert_eq!(r.classification, ReleaseClassification::Recorded);
    let used = gov.with_engine(|e| e.state().meta.pools.budget_used);
    assert_eq!(used, near - 1 + 5);
    let d = gov.acquire(acq("late", MAX_CENTS)).unwrap();
    assert!(!d.granted);
    assert!(
        ["actor_exhausted", "daily_budget_exceeded"].contains(&d.denied_reason.as_str()),
        "{d:?}"
    );
    let v = gov.verify_audit().unwrap();
    assert!(v.ok, "{v:?}");
}

/// Policy limits at the top of their range (i64::MAX ms TTLs, windows, cooldowns) do not
/// overflow time arithmetic: a lease granted under them lives, nothing panics or wraps.
#[test]
fn limits_at_the_top_of_their_range_do_not_overflow_time() {
    let p = Policy::from_value(json!({
        "policyVersion": "huge", "leaseTtlMs": i64::MAX, "rateWindowMs": i64::MAX,
        "safetyCooldownMs": i64::MAX, "safetyWindowMs": i64::MAX,
        "idempotencyRetentionMs": i64::MAX, "spendSpikeCents": 1,
        "maxTokensPerMinute": i64::MAX, "maxRequestsPerMinute": i64::MAX,
        "dailyBudgetCents": i64::MAX
    }))
    .unwrap();
    let gov = Governor::new(
        p,
        GovernorOptions::default(),
        Arc::new(MemoryStore::new()),
        Arc::new(ManualClock::new(
            parse_expires_at("2026-03-01T10:00:00Z").unwrap(),
        )),
        IdSource::Deterministic,
    )
    .unwrap();
    let a = gov.acquire(acq("k1", 5)).unwrap();
    assert!(a.granted, "{a:?}");
    // A spend spike starts a cooldown of i64::MAX ms.
    gov.release(rel(&a.lease_id, 5)).unwrap();
    let d = gov.acquire(acq("k2", 5)).unwrap();
    assert!(!d.granted);
    assert!(gov.verify_audit().unwrap().ok);
    gov.with_engine(|e| {
        let l = &e.state().leases[&a.lease_id];
        assert!(l.retain_until > l.acquired_at, "retention wrapped");
        assert!(l.expires_at > l.acquired_at, "expiry wrapped");
    });
}
