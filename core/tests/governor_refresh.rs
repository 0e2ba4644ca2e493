//! Engine::refresh (SEMANTICS 13.12): two engines that take turns on one state, each applying
//! the other's committed changes before deciding, end every step with equal state images and
//! the same decisions one engine alone would make; a policy activated by one is installed by
//! the other; a refresh with pending changes or a corrupt row is refused and changes nothing;
//! the day counters only roll forward.

use std::sync::Arc;

use leasekit::governor::engine::{Engine, IdSource};
use leasekit::governor::store::{Batch, Table};
use leasekit::governor::wire::*;
use leasekit::governor::{GovernorOptions, Policy};
use leasekit::{ManualClock, Timestamp};
use serde_json::json;

const START_MS: i64 = 1_772_366_400_000; // 2026-03-01T12:00:00Z

fn policy() -> Policy {
    Policy::from_value(json!({
        "policyVersion": "p1", "maxInFlight": 4, "dailyBudgetCents": 300,
        "maxRequestsPerMinute": 1000, "leaseTtlMs": 3000
    }))
    .unwrap()
}

fn engine(clock: &Arc<ManualClock>) -> Engine {
    Engine::open(
        None,
        policy(),
        GovernorOptions::default(),
        clock.clone(),
        IdSource::Deterministic,
        true,
    )
    .unwrap()
}

/// What a shared store would hand the other engine: the meta row and the touched rows.
fn changes(e: &Engine, b: &Batch) -> (String, Vec<(Table, String, Option<String>)>) {
    let meta = serde_json::to_string(&e.state().meta).unwrap();
    let rows = b
        .rows
        .iter()
        .map(|((t, id), body)| (*t, id.clone(), body.clone()))
        .collect();
    (meta, rows)
}

struct Lcg(u64);
impl Lcg {
    fn next(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % n
    }
}

fn step(e: &mut Engine, rng: &mut Lcg, leases: &mut Vec<String>) -> String {
    match rng.next(4) {
        0 | 1 => {
            let r = e.acquire(AcquireRequest {
                actor_id: format!("a{}", rng.next(3)),
                workspace_id: "w".into(),
                estimated_cost_cents: rng.next(60),
                idempotency_key: if rng.next(2) == 0 {
                    format!("k{}", rng.next(4))
                } else {
                    String::new()
                },
                ..AcquireRequest::default()
            });
            if r.granted {
                leases.push(r.lease_id.clone());
            }
            serde_json::to_string(&r).unwrap()
        }
        2 if !leases.is_empty() => {
            let id = leases.remove(rng.next(leases.len() as u64) as usize);
            let r = e.release(ReleaseRequest {
                lease_id: id,
                actual_cost_cents: rng.next(40),
                ..ReleaseRequest::default()
            });
            format!("{r:?}")
        }
        _ => serde_json::to_string(&e.metrics()).unwrap(),
    }
}

#[test]
fn two_engines_taking_turns_equal_one_engine() {
    for seed in 0..12u64 {
        let clock = Arc::new(ManualClock::new(Timestamp::from_unix_millis(START_MS)));
        let solo_clock = Arc::new(ManualClock::new(Timestamp::from_unix_millis(START_MS)));
        let mut pair = [engine(&clock), engine(&clock)];
        let mut solo = engine(&solo_clock);
        // Both start from the first one's fresh state.
        let first = pair[0].take_changes();
        let (meta, rows) = changes(&pair[0], &first);
        let _ = pair[1].take_changes();
        pair[1].refresh(&meta, rows).unwrap();
        let _ = solo.take_changes();
        let (mut rng, mut solo_rng) = (Lcg(seed), Lcg(seed));
        let (mut leases, mut solo_leases) = (Vec::new(), Vec::new());
        let mut now = START_MS;
        let mut turn = 0usize;
        for i in 0..300 {
            if i % 7 == 0 {
                now += 700;
                clock.set(Timestamp::from_unix_millis(now));
                solo_clock.set(Timestamp::from_unix_millis(now));
            }
            turn = (turn + (seed as usize + i) % 3) % 2;
            let (a, b) = if turn == 0 {
                let [x, y] = &mut pair;
                (x, y)
            } else {
                let [x, y] = &mut pair;
                (y, x)
            };
            a.begin(true).unwrap();
            let got = step(a, &mut rng, &mut leases);
            let batch = a.take_changes();
            solo.begin(true).unwrap();
            let want = step(&mut solo, &mut solo_rng, &mut solo_leases);
            let _ = solo.take_changes();
            assert_eq!(
                got, want,
                "seed {seed} step {i}: the pair decided otherwise"
            );
            let (meta, rows) = changes(a, &batch);
            b.refresh(&meta, rows).unwrap();
            if a.state() != b.state() {
                let (x, y) = (
                    serde_json::to_value(a.state()).unwrap(),
                    serde_json::to_value(b.state()).unwrap(),
                );
                let diff: Vec<String> = x
                    .as_object()
                    .unwrap()
                    .iter()
                    .filter(|(k, v)| y.get(k.as_str()) != Some(v))
                    .map(|(k, v)| format!("{k}: {v} vs {}", y[k.as_str()]))
                    .collect();
                panic!("seed {seed} step {i}: images differ after refresh: {diff:?}");
            }
        }
        assert!(pair[0].state() == solo.state(), "seed {seed}: pair vs solo");
    }
}

#[test]
fn a_policy_activated_by_one_engine_is_installed_by_the_other() {
    let clock = Arc::new(ManualClock::new(Timestamp::from_unix_millis(START_MS)));
    let (mut a, mut b) = (engine(&clock), engine(&clock));
    let _ = (a.take_changes(), b.take_changes());
    a.begin(true).unwrap();
    let staged = a.stage_policy(PolicyBundle {
        version: "p2".into(),
        policy_content_json: json!({"maxInFlight": 1, "dailyBudgetCents": 50}).to_string(),
        ..PolicyBundle::default()
    });
    assert!(staged.accepted, "{staged:?}");
    let act = a.activate_policy(ActivatePolicyRequest {
        version: "p2".into(),
        ..ActivatePolicyRequest::default()
    });
    assert!(act.activated, "{act:?}");
    let batch = a.take_changes();
    assert_ne!(b.policy().hash(), a.policy().hash());
    let (meta, rows) = changes(&a, &batch);
    b.refresh(&meta, rows).unwrap();
    assert_eq!(b.policy().hash(), a.policy().hash());
    assert_eq!(b.settings().max_in_flight, 1);
    b.begin(true).unwrap();
    let req = AcquireRequest {
        actor_id: "x".into(),
        workspace_id: "w".into(),
        estimated_cost_cents: 1,
        ..AcquireRequest::default()
    };
    assert!(b.acquire(req.clone()).granted);
    assert_eq!(
        b.acquire(req).denied_reason,
        "concurrency_limit_reached",
        "the new capacity holds on the other engine"
    );
}

#[test]
fn refresh_is_refused_with_pending_changes_or_a_corrupt_row() {
    let clock = Arc::new(ManualClock::new(Timestamp::from_unix_millis(START_MS)));
    let (mut a, mut b) = (engine(&clock), engine(&clock));
    let _ = (a.take_changes(), b.take_changes());
    a.begin(true).unwrap();
    let r = a.acquire(AcquireRequest {
        actor_id: "x".into(),
        workspace_id: "w".into(),
        ..AcquireRequest::default()
    });
    assert!(r.granted);
    let batch = a.take_changes();
    let (meta, rows) = changes(&a, &batch);
    // Pending changes on b: refused, b unchanged.
    b.begin(true).unwrap();
    assert!(
        b.acquire(AcquireRequest {
            actor_id: "y".into(),
            workspace_id: "w".into(),
            ..AcquireRequest::default()
        })
        .granted
    );
    let before = b.state().clone();
    assert!(b.refresh(&meta, rows.clone()).is_err());
    assert!(b.state() == &before);
    let _ = b.take_changes();
    // A corrupt row: refused, b unchanged.
    let mut bad = rows.clone();
    bad.push((Table::Lease, "zzz".into(), Some("{not json".into())));
    let before = b.state().clone();
    let err = b.refresh(&meta, bad).unwrap_err();
    assert!(err.message().contains("corrupt"), "{err}");
    assert!(b.state() == &before);
    b.refresh(&meta, rows).unwrap();
    assert!(b.state() == a.state());
}

#[test]
fn the_budget_day_never_rolls_back() {
    // A governor whose clock is behind another's must not reset the day the other began.
    let ahead = Arc::new(ManualClock::new(Timestamp::from_unix_millis(START_MS)));
    let behind = Arc::new(ManualClock::new(Timestamp::from_unix_millis(START_MS)));
    let (mut a, mut b) = (engine(&ahead), engine(&behind));
    let _ = (a.take_changes(), b.take_changes());
    let midnight = START_MS - START_MS.rem_euclid(86_400_000) + 86_400_000;
    ahead.set(Timestamp::from_unix_millis(midnight + 500));
    behind.set(Timestamp::from_unix_millis(midnight - 500));
    a.begin(true).unwrap();
    assert!(
        a.acquire(AcquireRequest {
            actor_id: "x".into(),
            workspace_id: "w".into(),
            estimated_cost_cents: 250,
            ..AcquireRequest::default()
        })
        .granted
    );
    let batch = a.take_changes();
    let (meta, rows) = changes(&a, &batch);
    b.refresh(&meta, rows).unwrap();
    b.begin(true).unwrap();
    let r = b.acquire(AcquireRequest {
        actor_id: "y".into(),
        workspace_id: "w".into(),
        estimated_cost_cents: 100,
        ..AcquireRequest::default()
    });
    assert!(!r.granted, "250 + 100 > 300 whatever b's clock says: {r:?}");
    assert_eq!(b.state().meta.pools.budget_used, 250);
}
