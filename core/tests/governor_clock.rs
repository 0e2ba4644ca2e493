//! A clock that steps backwards (SEMANTICS 13.2 "Days", 13.15 "Days"; docs/decisions.md,
//! "Deterministic simulation"): the governor's day only rolls forward, and a lease acquired
//! while the clock is behind that day belongs to the day its reservation was counted in, so a
//! later release settles it there.

use std::sync::Arc;

use leasekit::governor::engine::IdSource;
use leasekit::governor::wire::{AcquireRequest, ReleaseRequest};
use leasekit::governor::{Governor, GovernorOptions, MemoryStore, Policy};
use leasekit::{ManualClock, Timestamp};

/// 2026-03-02T00:00:00Z.
const MIDNIGHT_MS: i64 = 1_772_409_600_000;

fn acquire(g: &Governor, cents: u64) -> String {
    let r = g
        .acquire(AcquireRequest {
            actor_id: "a".into(),
            workspace_id: "w".into(),
            estimated_cost_cents: cents,
            ..AcquireRequest::default()
        })
        .unwrap();
    assert!(r.granted, "{r:?}");
    r.lease_id
}

#[test]
fn a_lease_acquired_while_the_clock_is_behind_the_day_settles_in_that_day() {
    let clock = Arc::new(ManualClock::new(Timestamp::from_unix_millis(
        MIDNIGHT_MS + 1_000,
    )));
    let g = Governor::new(
        Policy::from_json(r#"{"dailyBudgetCents": 100, "leaseTtlMs": 600000}"#).unwrap(),
        GovernorOptions::default(),
        Arc::new(MemoryStore::new()),
        clock.clone(),
        IdSource::Deterministic,
    )
    .unwrap();
    acquire(&g, 5);
    // The clock steps back across midnight (an NTP correction): the governor's day stays.
    clock.set(Timestamp::from_unix_millis(MIDNIGHT_MS - 500));
    let behind = acquire(&g, 7);
    assert_eq!(g.metrics().unwrap().spend_today_cents, 12);
    // Forward again: the release replaces the reservation with the actuals in the day that
    // counted it.
    clock.set(Timestamp::from_unix_millis(MIDNIGHT_MS + 2_000));
    g.release(ReleaseRequest {
        lease_id: behind,
        actual_cost_cents: 1,
        ..ReleaseRequest::default()
    })
    .unwrap();
    assert_eq!(g.metrics().unwrap().spend_today_cents, 6);
}
