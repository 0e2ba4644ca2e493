//! The policy history (SEMANTICS 13.9, 13.16): every activated policy is kept with its content,
//! each (version, hash) once and at most `POLICY_HISTORY_MAX` of them, so the meta row that
//! every batch rewrites does not grow with activations and rollbacks. Rollback reaches what is
//! kept; an older version is refused; a restart keeps the history; a longer history stored by
//! an earlier leasekit is trimmed when the store is opened, the active policy unchanged.

use leasekit::governor::engine::POLICY_HISTORY_MAX;
use leasekit::governor::open::EmbeddedGovernor;
use rusqlite::Connection;
use serde_json::{Value, json};

const POLICY: &str = r#"{"policyVersion": "start", "maxInFlight": 4}"#;

/// A new SQLite store file in a directory of its own: (directory, file, store string).
fn new_store() -> (tempfile::TempDir, std::path::PathBuf, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("gov.db");
    let store = format!("sqlite:{}", path.display());
    (dir, path, store)
}

fn call(g: &EmbeddedGovernor, command: &str, payload: Value) -> Value {
    let out = g
        .governor()
        .call_json(command, &payload.to_string())
        .unwrap_or_else(|e| panic!("{command}: {e}"));
    serde_json::from_str(&out).unwrap()
}

/// Stages and activates version `v` (a policy whose content differs by `n`).
fn activate(g: &EmbeddedGovernor, v: &str, n: u64) {
    let content = json!({"policyVersion": v, "maxInFlight": n + 1}).to_string();
    let staged = call(
        g,
        "StagePolicyBundle",
        json!({"version": v, "createdAtUtc": "2026-11-30T00:00:00Z", "author": "t",
               "policyContentJson": content, "signatureBase64": ""}),
    );
    assert_eq!(staged["accepted"], true, "{staged}");
    let act = call(g, "ActivatePolicy", json!({"version": v}));
    assert_eq!(act["activated"], true, "{act}");
}

fn rollback(g: &EmbeddedGovernor, v: &str) -> Value {
    call(g, "RollbackPolicy", json!({"version": v}))
}

/// The stored meta row: (the length in bytes of its policy part, the history's versions, the
/// active version).
fn stored(path: &std::path::Path) -> (usize, Vec<String>, String) {
    let body: String = Connection::open(path)
        .unwrap()
        .query_row("SELECT body FROM meta WHERE id = 1", [], |r| r.get(0))
        .unwrap();
    let meta: Value = serde_json::from_str(&body).unwrap();
    let history: Vec<String> = meta["policy"]["history"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["version"].as_str().unwrap().to_string())
        .collect();
    let active = history[meta["policy"]["active"].as_u64().unwrap() as usize].clone();
    (meta["policy"].to_string().len(), history, active)
}

#[test]
fn activations_and_rollbacks_keep_the_history_bounded_and_the_meta_row_flat() {
    let (_dir, path, store) = new_store();
    let g = EmbeddedGovernor::open(&store, POLICY, "").unwrap();
    for i in 0..40 {
        activate(&g, &format!("v{i:02}"), i);
    }
    let (len_after_40, history, active) = stored(&path);
    assert_eq!(history.len(), POLICY_HISTORY_MAX);
    assert_eq!(active, "v39");
    let oldest_kept = format!("v{:02}", 40 - POLICY_HISTORY_MAX);
    assert_eq!(history[0], oldest_kept);

    // Rolling back and forth repeats no entry and leaves the meta row's size where it was.
    for i in 0..100 {
        let v = if i % 2 == 0 { "v38" } else { "v39" };
        let r = rollback(&g, v);
        assert_eq!(r["activated"], true, "{r}");
    }
    let (len_after_rollbacks, history, active) = stored(&path);
    assert_eq!(history.len(), POLICY_HISTORY_MAX);
    assert_eq!(active, "v39");
    assert_eq!(len_after_rollbacks, len_after_40);

    // The oldest kept version can be rolled back to; one older than that is gone.
    let r = rollback(&g, &oldest_kept);
    assert_eq!(r["activated"], true, "{r}");
    let dropped = format!("v{:02}", 39 - POLICY_HISTORY_MAX);
    let r = rollback(&g, &dropped);
    assert_eq!(r["activated"], false, "{r}");
    assert_eq!(r["message"], "policy version not found", "{r}");
    drop(g);

    // A restart keeps the history and the active policy.
    let (_, before, active) = stored(&path);
    assert_eq!(active, oldest_kept);
    let g = EmbeddedGovernor::open(&store, POLICY, "").unwrap();
    let r = rollback(&g, "v39");
    assert_eq!(r["activated"], true, "{r}");
    drop(g);
    let (_, after, active) = stored(&path);
    assert_eq!(active, "v39");
    assert_eq!(after.len(), before.len());
}

#[test]
fn a_long_history_from_an_earlier_leasekit_is_trimmed_at_open() {
    let (_dir, path, store) = new_store();
    let g = EmbeddedGovernor::open(&store, POLICY, "").unwrap();
    for i in 0..3 {
        activate(&g, &format!("v{i}"), i);
    }
    drop(g);
    // As an earlier leasekit stored it: every activation and rollback appended, 60 entries,
    // the active one (v1, rolled back to) last.
    let conn = Connection::open(&path).unwrap();
    let body: String = conn
        .query_row("SELECT body FROM meta WHERE id = 1", [], |r| r.get(0))
        .unwrap();
    let mut meta: Value = serde_json::from_str(&body).unwrap();
    let recs = meta["policy"]["history"].as_array().unwrap().clone();
    let mut long = Vec::new();
    for i in 0..59 {
        long.push(recs[i % recs.len()].clone());
    }
    long.push(recs[2].clone());
    meta["policy"]["history"] = Value::Array(long);
    meta["policy"]["active"] = json!(59);
    conn.execute("UPDATE meta SET body = ?1 WHERE id = 1", [meta.to_string()])
        .unwrap();
    drop(conn);
    let (long_len, history, active) = stored(&path);
    assert_eq!((history.len(), active.as_str()), (60, "v1"));

    let g = EmbeddedGovernor::open(&store, POLICY, "").unwrap();
    let status = call(&g, "GetStatus", json!({}));
    drop(g);
    let (len, history, active) = stored(&path);
    assert_eq!(active, "v1", "{status}");
    // Newest first, each once, the active one last: v0 (entry 57), start (56), v2 (55), v1.
    assert_eq!(history, ["v2", "start", "v0", "v1"]);
    assert!(len < long_len / 10, "{len} of {long_len}");
}
