//! Parts of the governor's state as rows of their own in a SQLite store, out of the meta row
//! that every batch rewrites (SEMANTICS 13.16: a command's cost does not grow with the number
//! of past commands). Scoped daily budget counters: a batch writes the counters it changed, so
//! the meta row does not grow with the org, workspace and actor ids of the day; they survive a
//! restart and keep the quotas; the day roll deletes past days' rows, on a running governor
//! and on a reopen. Policy contents: written once per policy (and staged bundle), not with
//! every batch; activations, rollbacks, trims and restarts keep exactly the contents the
//! history needs. A store written with both in its meta row is converted by its first open.

mod scratch;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use leasekit::governor::store::{SQLITE_FORMAT, SqliteStore, Synchronous};
use leasekit::governor::{Governor, GovernorOptions, IdSource, Peer, Policy};
use leasekit::{ManualClock, Timestamp};
use rusqlite::Connection;
use serde_json::{Value, json};

static DB: AtomicU64 = AtomicU64::new(0);

const PEER: Peer = Peer {
    uid: 1000,
    admin: true,
};

/// 30 Nov 2026 12:00 UTC.
const NOON_MS: i64 = 1_796_040_000_000;
const DAY_MS: i64 = 86_400_000;

fn temp_db() -> std::path::PathBuf {
    scratch::dir().join(format!("scopes-{}.db", DB.fetch_add(1, Ordering::Relaxed)))
}

fn policy() -> Policy {
    Policy::from_value(json!({
        "policyVersion": "scopes", "maxInFlight": 100000, "leaseTtlMs": 600000,
        "dailyBudgetCents": 100000000, "maxRequestsPerMinute": 100000000,
        "maxTokensPerMinute": 1000000000, "maxComputeUnits": 1000000,
        "actorDailyBudgetCents": 10
    }))
    .unwrap()
}

fn clock_at(ms: i64) -> Arc<ManualClock> {
    Arc::new(ManualClock::new(Timestamp::from_unix_millis(ms)))
}

fn open(path: &std::path::Path, clock: Arc<ManualClock>) -> Governor {
    let store = Arc::new(SqliteStore::open_with(path, Synchronous::Normal).unwrap());
    Governor::new(
        policy(),
        GovernorOptions::default(),
        store,
        clock,
        IdSource::Random,
    )
    .expect("open governor")
}

fn call(gov: &Governor, command: &str, payload: Value) -> Value {
    let env = gov.handle_as(PEER, command, &payload.to_string());
    assert!(env.success, "{command}: {env:?}");
    serde_json::from_str(&env.payload_json).unwrap()
}

/// Acquires `cents` for `actor`; releases at the same actual cost when granted. Answers
/// whether it was granted.
fn spend(gov: &Governor, actor: &str, cents: u64) -> bool {
    let a = call(
        gov,
        "Acquire",
        json!({"actorId": actor, "workspaceId": "w", "orgId": "o",
               "estimatedCostCents": cents}),
    );
    if a["granted"] != true {
        return false;
    }
    let r = call(
        gov,
        "Release",
        json!({"leaseId": a["leaseId"], "actualCostCents": cents}),
    );
    assert_eq!(r["classification"], "recorded", "{r}");
    true
}

/// The stored meta row.
fn meta_body(conn: &Connection) -> String {
    conn.query_row("SELECT body FROM meta WHERE id = 1", [], |r| r.get(0))
        .unwrap()
}

/// Rewrites the file as format 1 kept it: `put` moves the rows of `table` (id, body) into the
/// meta row; then the rows are deleted and the format set to 1.
fn rewrite_as_format_1(
    path: &std::path::Path,
    table: &str,
    put: impl FnOnce(&mut Value, Vec<(String, String)>),
) {
    let conn = Connection::open(path).unwrap();
    let mut meta: Value = serde_json::from_str(&meta_body(&conn)).unwrap();
    let rows: Vec<(String, String)> = conn
        .prepare(&format!("SELECT id, body FROM {table}"))
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    put(&mut meta, rows);
    conn.execute(&format!("DELETE FROM {table}"), []).unwrap();
    conn.execute(
        "UPDATE meta SET body = ?1 WHERE id = 1",
        [serde_json::to_string(&meta).unwrap()],
    )
    .unwrap();
    conn.pragma_update(None, "user_version", 1).unwrap();
}

/// (length of the stored meta row, its scoped counters, the counter rows by id).
fn stored(path: &std::path::Path) -> (usize, usize, Vec<(String, Value)>) {
    let conn = Connection::open(path).unwrap();
    let meta = meta_body(&conn);
    let in_meta = serde_json::from_str::<Value>(&meta).unwrap()["scoped"]
        .as_object()
        .map_or(0, |m| m.len());
    let mut st = conn
        .prepare("SELECT id, body FROM scopes ORDER BY id")
        .unwrap();
    let rows = st
        .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))
        .unwrap()
        .map(|r| {
            let (id, body) = r.unwrap();
            (id, serde_json::from_str(&body).unwrap())
        })
        .collect();
    (meta.len(), in_meta, rows)
}

#[test]
fn the_meta_row_does_not_grow_with_the_ids_of_the_day() {
    let path = temp_db();
    let gov = open(&path, clock_at(NOON_MS));
    assert!(spend(&gov, "actor-0", 1));
    let (first, in_meta, rows) = stored(&path);
    assert_eq!(
        in_meta, 0,
        "the counters are rows, not part of the meta row"
    );
    assert_eq!(rows.len(), 3, "org, workspace and actor: {rows:?}");
    for n in 1..2000 {
        assert!(spend(&gov, &format!("actor-{n}-{}", "x".repeat(100)), 1));
    }
    let (last, in_meta, rows) = stored(&path);
    assert_eq!(in_meta, 0);
    assert_eq!(rows.len(), 2002);
    // Counters of 2 000 actors (~250 KB of ids) are not in the row every batch rewrites.
    assert!(
        last < first + 256,
        "the meta row grew from {first} to {last} bytes with the actors of the day"
    );
}

#[test]
fn the_counters_survive_a_restart_and_keep_the_quota() {
    let path = temp_db();
    let clock = clock_at(NOON_MS);
    {
        let gov = open(&path, clock.clone());
        assert!(spend(&gov, "a", 9));
        assert!(spend(&gov, "b", 3));
    }
    let gov = open(&path, clock);
    // `a` has 1 cent of its 10 left, `b` 7.
    assert!(
        !spend(&gov, "a", 2),
        "the actor quota was forgotten by the restart"
    );
    assert!(spend(&gov, "a", 1));
    assert!(spend(&gov, "b", 7));
    assert!(!spend(&gov, "b", 1));
    let (_, _, rows) = stored(&path);
    let used = |id: &str| {
        rows.iter()
            .find(|(k, _)| k == id)
            .map(|(_, v)| v["used"].as_u64().unwrap())
    };
    assert_eq!((used("actor:a"), used("actor:b")), (Some(10), Some(10)));
    assert_eq!(used("org:o"), Some(20));
}

#[test]
fn a_store_with_the_counters_in_its_meta_row_is_converted_by_its_first_open() {
    let path = temp_db();
    let clock = clock_at(NOON_MS);
    {
        let gov = open(&path, clock.clone());
        assert!(spend(&gov, "a", 9));
    }
    // Rewrite the file as the format before kept it: the counters inside the meta row, no
    // counter rows, format 1.
    rewrite_as_format_1(&path, "scopes", |meta, rows| {
        assert_eq!(rows.len(), 3);
        let scoped = rows
            .into_iter()
            .map(|(id, body)| (id, serde_json::from_str(&body).unwrap()))
            .collect();
        meta["scoped"] = Value::Object(scoped);
    });
    let gov = open(&path, clock);
    let (_, in_meta, rows) = stored(&path);
    assert_eq!(in_meta, 0, "the meta row still holds the counters");
    assert_eq!(rows.len(), 3, "{rows:?}");
    let version: i64 = Connection::open(&path)
        .unwrap()
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap();
    assert_eq!(version, SQLITE_FORMAT);
    assert!(!spend(&gov, "a", 2), "the converted counter lost its spend");
    assert!(spend(&gov, "a", 1));
}

#[test]
fn the_day_roll_deletes_the_counters_of_past_days() {
    let path = temp_db();
    let clock = clock_at(NOON_MS);
    let gov = open(&path, clock.clone());
    for n in 0..20 {
        assert!(spend(&gov, &format!("day1-{n}"), 1));
    }
    assert_eq!(stored(&path).2.len(), 22);
    // The next day, on a running governor: its first command drops yesterday's counters.
    clock.set(Timestamp::from_unix_millis(NOON_MS + DAY_MS));
    assert!(
        spend(&gov, "day2", 10),
        "yesterday's spend counts nothing today"
    );
    let ids: Vec<String> = stored(&path).2.into_iter().map(|(k, _)| k).collect();
    assert_eq!(ids, ["actor:day2", "org:o", "ws:w"]);
    drop(gov);
    // And on a reopen a day later: the open rolls the day before anything else.
    clock.set(Timestamp::from_unix_millis(NOON_MS + 2 * DAY_MS));
    let gov = open(&path, clock);
    assert_eq!(
        stored(&path).2,
        [],
        "the reopen left past days' counter rows"
    );
    assert!(spend(&gov, "day2", 10));
}

/// A policy whose tool registry makes its content ~`tools` x 90 bytes.
fn big_policy(version: &str, tools: usize, max_in_flight: u64) -> Value {
    let registry: Vec<Value> = (0..tools)
        .map(|i| json!({"toolId": format!("tool-{i:05}-{}", "x".repeat(60)), "category": "other"}))
        .collect();
    json!({"policyVersion": version, "maxInFlight": max_in_flight, "toolRegistry": registry})
}

fn open_with(path: &std::path::Path, policy: Value) -> Governor {
    let store = Arc::new(SqliteStore::open_with(path, Synchronous::Normal).unwrap());
    Governor::new(
        Policy::from_value(policy).unwrap(),
        GovernorOptions::default(),
        store,
        clock_at(NOON_MS),
        IdSource::Random,
    )
    .expect("open governor")
}

fn stage(gov: &Governor, policy: &Value) {
    let v = policy["policyVersion"].as_str().unwrap();
    let r = call(
        gov,
        "StagePolicyBundle",
        json!({"version": v, "createdAtUtc": "2026-11-30T00:00:00Z", "author": "t",
               "policyContentJson": policy.to_string(), "signatureBase64": ""}),
    );
    assert_eq!(r["accepted"], true, "{r}");
}

fn activate(gov: &Governor, version: &str) {
    let r = call(gov, "ActivatePolicy", json!({"version": version}));
    assert_eq!(r["activated"], true, "{r}");
}

/// (length of the stored meta row, the policy content row keys).
fn stored_policies(path: &std::path::Path) -> (usize, Vec<String>) {
    let conn = Connection::open(path).unwrap();
    let meta = meta_body(&conn);
    let mut st = conn.prepare("SELECT id FROM policies ORDER BY id").unwrap();
    let keys = st
        .query_map([], |r| r.get::<_, String>(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    (meta.len(), keys)
}

/// How many acquires in a row are granted (up to 10; each lease stays live).
fn granted_in_a_row(gov: &Governor) -> usize {
    (0..10)
        .take_while(|_| {
            call(gov, "Acquire", json!({"actorId": "p", "workspaceId": "w"}))["granted"] == true
        })
        .count()
}

#[test]
fn a_policy_content_is_written_once_not_with_every_batch() {
    let path = temp_db();
    let policy = big_policy("big", 2000, 100);
    let size = policy.to_string().len();
    assert!(size > 150_000, "{size}");
    let gov = open_with(&path, policy);
    for n in 0..20 {
        assert!(spend(&gov, &format!("a{n}"), 0));
    }
    let (meta, keys) = stored_policies(&path);
    assert_eq!(keys.len(), 1, "{keys:?}");
    assert!(
        meta < 8_192,
        "the meta row holds {meta} bytes with a policy of {size}"
    );
}

#[test]
fn activations_rollbacks_trims_and_restarts_keep_the_contents_the_history_needs() {
    let path = temp_db();
    let gov = open_with(&path, big_policy("v00", 100, 1));
    stage(&gov, &big_policy("v01", 100, 2));
    let (_, keys) = stored_policies(&path);
    assert_eq!(
        keys.len(),
        2,
        "the first policy and the staged bundle: {keys:?}"
    );
    assert!(keys.iter().any(|k| k.starts_with("staged:")), "{keys:?}");
    activate(&gov, "v01");
    let (_, keys) = stored_policies(&path);
    assert_eq!(keys.len(), 2, "two policies, no staged bundle: {keys:?}");
    assert!(!keys.iter().any(|k| k.starts_with("staged:")), "{keys:?}");
    drop(gov);
    // After a restart the older content is read back: rolling back to it works.
    let gov = open_with(&path, big_policy("ignored", 1, 50));
    assert_eq!(granted_in_a_row(&gov), 2, "v01 (maxInFlight 2) is active");
    let r = call(&gov, "RollbackPolicy", json!({"version": "v00"}));
    assert_eq!(r["activated"], true, "{r}");
    drop(gov);
    let gov = open_with(&path, big_policy("ignored", 1, 50));
    // v00 allows one lease in flight, and two are live already.
    assert_eq!(granted_in_a_row(&gov), 0, "v00 (maxInFlight 1) is active");
    // More activations than the history keeps: the dropped policies' rows go with them.
    for i in 2..30u64 {
        let v = format!("v{i:02}");
        stage(&gov, &big_policy(&v, 10, 100 + i));
        activate(&gov, &v);
    }
    let (_, keys) = stored_policies(&path);
    assert_eq!(keys.len(), leasekit::governor::engine::POLICY_HISTORY_MAX);
    drop(gov);
    let gov = open_with(&path, big_policy("ignored", 1, 50));
    let r = call(&gov, "RollbackPolicy", json!({"version": "v20"}));
    assert_eq!(r["activated"], true, "{r}");
}

#[test]
fn a_store_with_policy_contents_in_its_meta_row_is_converted_by_its_first_open() {
    let path = temp_db();
    drop(open_with(&path, big_policy("v00", 100, 1)));
    // As the format before kept it: the contents inside the meta row, no content rows.
    rewrite_as_format_1(&path, "policies", |meta, rows| {
        for rec in meta["policy"]["history"].as_array_mut().unwrap() {
            let (_, body) = rows
                .iter()
                .find(|(id, _)| id == rec["hash"].as_str().unwrap())
                .unwrap();
            rec["content"] = serde_json::from_str(body).unwrap();
        }
    });
    let (legacy_meta, keys) = stored_policies(&path);
    assert!(keys.is_empty());
    let gov = open_with(&path, big_policy("ignored", 1, 50));
    let (meta, keys) = stored_policies(&path);
    assert_eq!(keys.len(), 1, "{keys:?}");
    assert!(meta + 5_000 < legacy_meta, "{meta} against {legacy_meta}");
    assert_eq!(granted_in_a_row(&gov), 1, "v00 (maxInFlight 1) is active");
}
