//! Budget alerts (`budgetAlertThresholdsPercent`): each threshold of each budget (the daily
//! budget and every org, workspace and actor budget the policy sets) is raised once per UTC
//! day when a grant or a release brings the budget's use (reservations plus settled spend) to
//! it: a `budget_threshold_crossed` audit record and one report to the observer after the
//! commit. Raised thresholds survive a restart; the next day re-arms them; a policy without
//! the field writes nothing; bad threshold lists are refused with one stable code.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use leasekit::governor::engine::IdSource;
use leasekit::governor::store::{Fault, FaultyStore, StoreOp};
use leasekit::governor::wire::{AcquireRequest, ExportAuditRequest, ReleaseRequest};
use leasekit::governor::{
    BudgetAlert, Governor, GovernorObserver, GovernorOptions, MemoryStore, Policy, SqliteStore,
    Store, Synchronous,
};
use leasekit::{ErrorCode, ManualClock, Timestamp};
use serde_json::Value;

/// 2026-03-01T12:00:00Z.
const NOON_MS: i64 = 1_772_366_400_000;
/// The next UTC midnight.
const MIDNIGHT_MS: i64 = NOON_MS + 43_200_000;

/// Collects the alerts a governor reports.
#[derive(Default)]
struct Seen(Mutex<Vec<BudgetAlert>>);

impl GovernorObserver for Seen {
    fn store_commit(&self, _: Duration, _: bool) {}
    fn fleet_settle(&self, _: Duration, _: bool) {}
    fn release(&self, _: &'static str) {}
    fn budget_threshold_crossed(&self, alert: &BudgetAlert) {
        self.0.lock().unwrap().push(alert.clone());
    }
}

impl Seen {
    fn take(&self) -> Vec<(&'static str, String, u8)> {
        std::mem::take(&mut *self.0.lock().unwrap())
            .into_iter()
            .map(|a| (a.scope, a.scope_id, a.threshold_percent))
            .collect()
    }
}

struct Gov {
    g: Governor,
    seen: Arc<Seen>,
}

fn open(policy: &str, store: Arc<dyn Store>, clock: &Arc<ManualClock>) -> Gov {
    let g = Governor::new(
        Policy::from_json(policy).unwrap(),
        GovernorOptions::default(),
        store,
        clock.clone(),
        IdSource::Deterministic,
    )
    .unwrap();
    let seen = Arc::new(Seen::default());
    assert!(g.set_observer(seen.clone()));
    Gov { g, seen }
}

fn clock() -> Arc<ManualClock> {
    Arc::new(ManualClock::new(Timestamp::from_unix_millis(NOON_MS)))
}

fn memory(policy: &str) -> (Gov, Arc<ManualClock>) {
    let c = clock();
    (open(policy, Arc::new(MemoryStore::new()), &c), c)
}

fn req(actor: &str, cents: u64) -> AcquireRequest {
    AcquireRequest {
        actor_id: actor.into(),
        workspace_id: "w".into(),
        org_id: "o".into(),
        estimated_cost_cents: cents,
        ..AcquireRequest::default()
    }
}

fn acquire(g: &Governor, actor: &str, cents: u64) -> String {
    let r = g.acquire(req(actor, cents)).unwrap();
    assert!(r.granted, "{r:?}");
    r.lease_id
}

fn release(g: &Governor, lease: &str, actual: u64) {
    g.release(ReleaseRequest {
        lease_id: lease.into(),
        actual_cost_cents: actual,
        ..ReleaseRequest::default()
    })
    .unwrap();
}

/// The chain's `budget_threshold_crossed` records.
fn alert_records(g: &Governor) -> Vec<Value> {
    g.export_audit(ExportAuditRequest::default())
        .unwrap()
        .records
        .into_iter()
        .filter(|r| r["eventType"] == "budget_threshold_crossed")
        .collect()
}

fn temp_db(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("leasekit-alerts-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir.join("governor.db")
}

const DAILY: &str = r#"{"dailyBudgetCents": 100, "budgetAlertThresholdsPercent": [50, 80, 100]}"#;

#[test]
fn each_threshold_is_raised_once_when_the_use_reaches_it() {
    let (gov, _) = memory(DAILY);
    let g = &gov.g;
    let first = acquire(g, "a", 40);
    assert!(gov.seen.take().is_empty(), "40 % reaches no threshold");
    acquire(g, "a", 15);
    assert_eq!(gov.seen.take(), vec![("daily", String::new(), 50)]);
    let recs = alert_records(g);
    assert_eq!(recs.len(), 1);
    let r = &recs[0];
    assert_eq!(r["scope"], "daily");
    assert_eq!(r["scopeId"], "");
    assert_eq!(r["thresholdPercent"], 50);
    assert_eq!(
        (&r["usedCents"], &r["spentCents"], &r["reservedCents"]),
        (&Value::from(55), &Value::from(0), &Value::from(55)),
        "both live reservations are the use"
    );
    assert_eq!(r["limitCents"], 100);
    assert_eq!(r["leaseId"], "lease-2");
    // Down (a release under its reservation) and up again past 50: not raised again.
    release(g, &first, 10);
    acquire(g, "a", 10);
    assert!(gov.seen.take().is_empty());
    // One grant past two thresholds (35 -> 100 of 100) raises both, in order, each once.
    acquire(g, "a", 65);
    assert_eq!(
        gov.seen.take(),
        vec![("daily", String::new(), 80), ("daily", String::new(), 100)]
    );
    let recs = alert_records(g);
    assert_eq!(recs.len(), 3);
    assert_eq!(
        (&recs[2]["usedCents"], &recs[2]["spentCents"]),
        (&Value::from(100), &Value::from(10)),
        "the released lease's actuals are spent"
    );
    assert!(g.verify_audit().unwrap().ok);
}

#[test]
fn a_release_over_its_reservation_can_cross_a_threshold() {
    let (gov, _) = memory(r#"{"dailyBudgetCents": 100, "budgetAlertThresholdsPercent": [50]}"#);
    let g = &gov.g;
    let lease = acquire(g, "a", 10);
    release(g, &lease, 60);
    assert_eq!(gov.seen.take(), vec![("daily", String::new(), 50)]);
    let r = &alert_records(g)[0];
    assert_eq!(
        (&r["spentCents"], &r["reservedCents"]),
        (&60.into(), &0.into())
    );
    let chain = g
        .export_audit(ExportAuditRequest::default())
        .unwrap()
        .records;
    let kinds: Vec<&str> = chain
        .iter()
        .map(|r| r["eventType"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        [
            "lease_acquired",
            "lease_released",
            "budget_threshold_crossed"
        ],
        "the alert follows the record of the command that caused it"
    );
}

#[test]
fn scoped_budgets_alert_on_their_own_limits() {
    let (gov, _) = memory(
        r#"{"dailyBudgetCents": 1000, "actorDailyBudgetCents": {"a": 10},
            "workspaceDailyBudgetCents": 40, "budgetAlertThresholdsPercent": [50]}"#,
    );
    let g = &gov.g;
    acquire(g, "a", 5);
    assert_eq!(gov.seen.take(), vec![("actor", "a".to_string(), 50)]);
    // Actor b has no budget of its own; the workspace (shared, 40) reaches 50 %.
    acquire(g, "b", 15);
    assert_eq!(gov.seen.take(), vec![("workspace", "w".to_string(), 50)]);
    let recs = alert_records(g);
    assert_eq!(recs[1]["scope"], "workspace");
    assert_eq!(
        (&recs[1]["usedCents"], &recs[1]["limitCents"]),
        (&20.into(), &40.into())
    );
    assert_eq!(
        recs[1]["reservedCents"], 20,
        "both leases count in the workspace"
    );
    assert_eq!(
        recs[0]["reservedCents"], 5,
        "only actor a's lease counts in its budget"
    );
}

#[test]
fn no_record_and_no_report_when_the_policy_sets_no_thresholds() {
    for policy in [
        r#"{"dailyBudgetCents": 100, "actorDailyBudgetCents": 10}"#,
        r#"{"dailyBudgetCents": 100, "actorDailyBudgetCents": 10, "budgetAlertThresholdsPercent": []}"#,
    ] {
        let (gov, _) = memory(policy);
        let lease = acquire(&gov.g, "a", 10);
        release(&gov.g, &lease, 100);
        assert!(gov.seen.take().is_empty(), "{policy}");
        assert!(alert_records(&gov.g).is_empty(), "{policy}");
        assert!(
            gov.g
                .with_engine(|e| e.state().meta.pools.alerted.is_empty()),
            "nothing is stored either"
        );
    }
}

#[test]
fn a_restart_does_not_raise_again_the_same_day_and_the_next_day_re_arms() {
    let db = temp_db("restart");
    let c = clock();
    let sqlite = || -> Arc<dyn Store> {
        Arc::new(SqliteStore::open_with(&db, Synchronous::Normal).unwrap())
    };
    let gov = open(DAILY, sqlite(), &c);
    acquire(&gov.g, "a", 50);
    assert_eq!(gov.seen.take(), vec![("daily", String::new(), 50)]);
    drop(gov);
    let gov = open(DAILY, sqlite(), &c);
    c.set(Timestamp::from_unix_millis(NOON_MS + 1_000));
    acquire(&gov.g, "a", 10);
    assert!(
        gov.seen.take().is_empty(),
        "50 was raised today before the restart"
    );
    assert_eq!(alert_records(&gov.g).len(), 1);
    // The next UTC day: the budget and its thresholds start over.
    c.set(Timestamp::from_unix_millis(MIDNIGHT_MS));
    acquire(&gov.g, "a", 49);
    assert!(gov.seen.take().is_empty());
    acquire(&gov.g, "a", 1);
    assert_eq!(gov.seen.take(), vec![("daily", String::new(), 50)]);
    assert_eq!(alert_records(&gov.g).len(), 2);
    assert!(gov.g.verify_audit().unwrap().ok);
}

#[test]
fn an_alert_of_a_command_whose_commit_failed_is_not_reported_and_is_raised_on_retry() {
    let store = Arc::new(FaultyStore::new(Arc::new(MemoryStore::reloadable())));
    let c = clock();
    let gov = open(DAILY, store.clone(), &c);
    acquire(&gov.g, "a", 40);
    store.inject_next(StoreOp::Commit, Fault::Error);
    let err = gov.g.acquire(req("a", 20)).unwrap_err();
    assert_eq!(err.code(), ErrorCode::InternalError);
    assert!(
        gov.seen.take().is_empty(),
        "nothing of the failed command is reported"
    );
    assert!(alert_records(&gov.g).is_empty());
    acquire(&gov.g, "a", 20);
    assert_eq!(gov.seen.take(), vec![("daily", String::new(), 50)]);
    assert_eq!(alert_records(&gov.g).len(), 1);
}

#[test]
fn bad_threshold_lists_are_refused_with_a_stable_code() {
    let huge = format!(
        r#"{{"budgetAlertThresholdsPercent": [{}]}}"#,
        vec!["50"; 100_000].join(",")
    );
    let cases = [
        r#"{"budgetAlertThresholdsPercent": [0]}"#.to_string(),
        r#"{"budgetAlertThresholdsPercent": [101]}"#.to_string(),
        r#"{"budgetAlertThresholdsPercent": [-5]}"#.to_string(),
        r#"{"budgetAlertThresholdsPercent": [50.5]}"#.to_string(),
        r#"{"budgetAlertThresholdsPercent": ["50"]}"#.to_string(),
        r#"{"budgetAlertThresholdsPercent": [null]}"#.to_string(),
        r#"{"budgetAlertThresholdsPercent": [[50]]}"#.to_string(),
        r#"{"budgetAlertThresholdsPercent": [80, 50]}"#.to_string(),
        r#"{"budgetAlertThresholdsPercent": [50, 50]}"#.to_string(),
        r#"{"budgetAlertThresholdsPercent": 50}"#.to_string(),
        r#"{"budgetAlertThresholdsPercent": {"50": true}}"#.to_string(),
        r#"{"budgetAlertThresholdsPercent": [18446744073709551666]}"#.to_string(),
        huge,
    ];
    for policy in &cases {
        let err = Policy::from_json(policy).expect_err(&policy[..policy.len().min(80)]);
        assert_eq!(err.code(), ErrorCode::InvalidRequest);
        assert!(
            err.message()
                .contains("invalid_budget_alert_thresholds: budgetAlertThresholdsPercent"),
            "{}",
            err.message()
        );
        assert!(
            err.message().len() < 300,
            "the message does not echo the list"
        );
    }
    let all: Vec<String> = (1..=100).map(|p| p.to_string()).collect();
    let full = format!(r#"{{"budgetAlertThresholdsPercent": [{}]}}"#, all.join(","));
    assert!(
        Policy::from_json(&full).is_ok(),
        "every percent once is the largest list"
    );
    assert!(Policy::from_json(r#"{"budgetAlertThresholdsPercent": null}"#).is_ok());
}

#[test]
fn a_staged_policy_with_bad_thresholds_is_refused_and_changes_nothing() {
    let (gov, _) = memory(r#"{"policyVersion": "v1"}"#);
    let answer: Value = serde_json::from_str(
        &gov.g.handle(
            "StagePolicyBundle",
            &serde_json::json!({
                "version": "v2",
                "createdAtUtc": "2026-03-01T00:00:00Z",
                "author": "ops",
                "policyContentJson": r#"{"budgetAlertThresholdsPercent": [80, 200]}"#,
            })
            .to_string(),
        ),
    )
    .unwrap();
    let payload: Value = serde_json::from_str(answer["payloadJson"].as_str().unwrap()).unwrap();
    assert_eq!(payload["accepted"], false);
    assert!(
        payload["message"]
            .as_str()
            .unwrap()
            .contains("invalid_budget_alert_thresholds"),
        "{payload}"
    );
    assert_eq!(gov.g.status().unwrap().policy_version, "v1");
}
