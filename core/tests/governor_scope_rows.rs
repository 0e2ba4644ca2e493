//! Scoped daily budget counters as rows of their own in a SQLite store (SEMANTICS 13.16: a
//! command's cost does not grow with the number of past commands): a batch writes the
//! counters it changed, the meta row that every batch rewrites leaves them out, so it does not
//! grow with the number of distinct org, workspace and actor ids of the day. The counters
//! survive a restart and keep the quotas; a store written with the counters in its meta row is
//! converted by its first open; the day roll deletes the rows of past days, on a running
//! governor and on a reopen.

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

/// (length of the stored meta row, its scoped counters, the counter rows by id).
fn stored(path: &std::path::Path) -> (usize, usize, Vec<(String, Value)>) {
    let conn = Connection::open(path).unwrap();
    let meta: String = conn
        .query_row("SELECT body FROM meta WHERE id = 1", [], |r| r.get(0))
        .unwrap();
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
    {
        let conn = Connection::open(&path).unwrap();
        let meta: String = conn
            .query_row("SELECT body FROM meta WHERE id = 1", [], |r| r.get(0))
            .unwrap();
        let mut meta: Value = serde_json::from_str(&meta).unwrap();
        let mut scoped = serde_json::Map::new();
        let mut st = conn.prepare("SELECT id, body FROM scopes").unwrap();
        let rows: Vec<(String, String)> = st
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        assert_eq!(rows.len(), 3);
        for (id, body) in rows {
            scoped.insert(id, serde_json::from_str(&body).unwrap());
        }
        meta["scoped"] = Value::Object(scoped);
        conn.execute("DELETE FROM scopes", []).unwrap();
        conn.execute(
            "UPDATE meta SET body = ?1 WHERE id = 1",
            [serde_json::to_string(&meta).unwrap()],
        )
        .unwrap();
        conn.pragma_update(None, "user_version", 1).unwrap();
    }
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
