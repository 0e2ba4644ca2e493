//! Audit verification (SEMANTICS 13.10, 13.16): every line must be byte-identical to the RFC
//! 8785 form of its value (a duplicated key, other spacing or key order is a bad line), in chain
//! verification and in proof bundles; a store's `VerifyAudit` also compares the last `entryHash`
//! and the line count with the head and count the store records (a deleted last line fails);
//! `ExportAudit` answers at most 10 000 records per call and `nextLine` when more remain.

use std::sync::Arc;

use leasekit::governor::audit::{export_proof, verify_proof};
use leasekit::governor::wire::AcquireRequest;
use leasekit::governor::{
    Governor, GovernorOptions, IdSource, MemoryStore, Policy, SqliteStore, verify_audit,
};
use leasekit::{ManualClock, parse_expires_at};
use serde_json::{Value, json};

fn policy() -> Policy {
    Policy::from_json(
        r#"{"maxInFlight": 100000, "maxComputeUnits": 100000, "maxRequestsPerMinute": 100000}"#,
    )
    .unwrap()
}

fn acquire(g: &Governor, actor: &str) {
    let r = g
        .acquire(AcquireRequest {
            actor_id: actor.into(),
            workspace_id: "w".into(),
            estimated_cost_cents: 0,
            ..AcquireRequest::default()
        })
        .unwrap();
    assert!(r.granted, "{r:?}");
}

fn memory_governor() -> Governor {
    Governor::new(
        policy(),
        GovernorOptions::default(),
        Arc::new(MemoryStore::new()),
        Arc::new(ManualClock::new(
            parse_expires_at("2026-03-01T12:00:00Z").unwrap(),
        )),
        IdSource::Deterministic,
    )
    .unwrap()
}

/// The same three lines every time (manual clock, deterministic ids).
fn three_lines() -> Vec<String> {
    let g = memory_governor();
    for a in ["a1", "a2", "a3"] {
        acquire(&g, a);
    }
    let lines = g.audit_lines(1, 3).unwrap();
    assert_eq!(lines.len(), 3);
    assert!(verify_audit(lines.iter().map(String::as_str)).ok);
    lines
}

/// Line 2 of a good chain rewritten by `f` (the parsed value stays the same, so its hash
/// recomputes and it links): every such rewrite is a bad line 2.
fn rewritten(f: impl Fn(&str) -> String) -> Vec<String> {
    let mut lines = three_lines();
    let before: Value = serde_json::from_str(&lines[1]).unwrap();
    lines[1] = f(&lines[1]);
    let after: Value = serde_json::from_str(&lines[1]).unwrap();
    assert_eq!(before, after, "the rewrite keeps the parsed value");
    lines
}

fn non_canonical_variants() -> Vec<(&'static str, Vec<String>)> {
    vec![
        (
            "a key given twice (the first value differs; the last wins in this parser)",
            rewritten(|l| l.replacen('{', "{\"actorId\":\"mallory\",", 1)),
        ),
        (
            "a key given twice with the same value",
            rewritten(|l| l.replacen('{', "{\"actorId\":\"a2\",", 1)),
        ),
        ("other spacing", rewritten(|l| l.replacen("\":", "\": ", 1))),
        ("a trailing space", rewritten(|l| format!("{l} "))),
        (
            "another key order",
            rewritten(|l| {
                let mut m: Vec<(String, Value)> = serde_json::from_str::<serde_json::Map<_, _>>(l)
                    .unwrap()
                    .into_iter()
                    .collect();
                m.reverse();
                let body: Vec<String> = m
                    .iter()
                    .map(|(k, v)| format!("{}:{}", Value::from(k.as_str()), v))
                    .collect();
                format!("{{{}}}", body.join(","))
            }),
        ),
        (
            "an escaped character JCS writes plainly",
            rewritten(|l| l.replacen("\"a2\"", "\"\\u00612\"", 1)),
        ),
    ]
}

#[test]
fn a_line_that_is_not_its_rfc8785_form_is_a_bad_line() {
    for (why, lines) in non_canonical_variants() {
        let v = verify_audit(lines.iter().map(String::as_str));
        assert!(!v.ok, "{why}: accepted");
        assert_eq!(v.first_bad_line, Some(2), "{why}: {v:?}");
        assert_eq!(v.records, 1, "{why}");
    }
}

#[test]
fn a_proof_over_a_line_that_is_not_its_rfc8785_form_does_not_verify() {
    let good = three_lines();
    // Signing refuses such a line.
    for (why, lines) in non_canonical_variants() {
        assert!(export_proof(1, &lines, None).is_err(), "{why}: signed");
        // A bundle signed over the good chain does not verify against the rewritten one.
        let b = export_proof(1, &good, None).unwrap();
        assert!(verify_proof(&b, &good, &[]).ok);
        let v = verify_proof(&b, &lines, &[]);
        assert!(!v.ok, "{why}: verified");
        assert_eq!(v.first_bad_line, Some(2), "{why}: {v:?}");
    }
}

fn temp_db(tag: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("lk-auditv-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d.join("governor.db")
}

fn sqlite_governor(path: &std::path::Path) -> Governor {
    Governor::new(
        policy(),
        GovernorOptions::default(),
        Arc::new(SqliteStore::open(path).unwrap()),
        Arc::new(ManualClock::new(
            parse_expires_at("2026-03-01T12:00:00Z").unwrap(),
        )),
        IdSource::Deterministic,
    )
    .unwrap()
}

#[test]
fn a_deleted_last_line_fails_verification_of_the_store() {
    let path = temp_db("last");
    let g = sqlite_governor(&path);
    for a in ["a1", "a2", "a3"] {
        acquire(&g, a);
    }
    assert_eq!(g.verify_audit().unwrap().records, 3);
    drop(g);
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute("DELETE FROM audit WHERE line = 3", [])
        .unwrap();
    drop(conn);
    let g = sqlite_governor(&path);
    let v = g.verify_audit().unwrap();
    assert!(!v.ok, "a chain whose last line was deleted verified: {v:?}");
    assert_eq!(v.first_bad_line, Some(3), "{v:?}");
    assert_eq!(v.records, 2);
    // Over the wire too.
    let env: Value = serde_json::from_str(&g.handle("VerifyAudit", "{}")).unwrap();
    let p: Value = serde_json::from_str(env["payloadJson"].as_str().unwrap()).unwrap();
    assert_eq!(p["ok"], false, "{p}");
    assert_eq!(p["firstBadLine"], 3, "{p}");
    let _ = std::fs::remove_dir_all(path.parent().unwrap());
}

#[test]
fn an_appended_line_or_a_replaced_head_fails_verification_of_the_store() {
    let path = temp_db("extra");
    let g = sqlite_governor(&path);
    for a in ["a1", "a2"] {
        acquire(&g, a);
    }
    let lines = g.audit_lines(1, 2).unwrap();
    drop(g);
    // A third line that links and recomputes, written behind the governor's back.
    let third = {
        let mut v: serde_json::Map<String, Value> = serde_json::from_str(&lines[1]).unwrap();
        let prev = v["entryHash"].clone();
        v.insert("prevHash".into(), prev);
        v.remove("entryHash");
        let h = leasekit::governor::audit::compute_entry_hash(&Value::Object(v.clone())).unwrap();
        v.insert("entryHash".into(), Value::from(h));
        serde_json_canonicalizer::to_string(&Value::Object(v)).unwrap()
    };
    assert!(verify_audit([lines[0].as_str(), &lines[1], &third]).ok);
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute("INSERT INTO audit (line, body) VALUES (3, ?1)", [&third])
        .unwrap();
    drop(conn);
    let g = sqlite_governor(&path);
    let v = g.verify_audit().unwrap();
    assert!(!v.ok, "{v:?}");
    assert_eq!(v.first_bad_line, Some(3), "{v:?}");
    drop(g);
    let _ = std::fs::remove_dir_all(path.parent().unwrap());
}

fn call(g: &Governor, cmd: &str, payload: Value) -> Value {
    let env: Value = serde_json::from_str(&g.handle(cmd, &payload.to_string())).unwrap();
    assert_eq!(env["success"], true, "{env}");
    serde_json::from_str(env["payloadJson"].as_str().unwrap()).unwrap()
}

#[test]
fn export_audit_answers_at_most_10000_records_and_the_next_line() {
    let g = memory_governor();
    for i in 0..10_003 {
        acquire(&g, &format!("a{i}"));
    }
    let p = call(&g, "ExportAudit", json!({}));
    assert_eq!(p["records"].as_array().unwrap().len(), 10_000);
    assert_eq!(p["nextLine"], 10_001, "{}", p["nextLine"]);
    let p = call(&g, "ExportAudit", json!({"fromLine": 10_001}));
    assert_eq!(p["records"].as_array().unwrap().len(), 3);
    assert_eq!(p["records"][0]["actorId"], "a10000");
    assert!(p.get("nextLine").is_none(), "{}", p["nextLine"]);
    // A range inside the cap: no nextLine; a range beyond it: nextLine inside the range.
    let p = call(&g, "ExportAudit", json!({"fromLine": 2, "toLine": 10_001}));
    assert_eq!(p["records"].as_array().unwrap().len(), 10_000);
    assert!(p.get("nextLine").is_none());
    let p = call(&g, "ExportAudit", json!({"fromLine": 3, "toLine": 10_003}));
    assert_eq!(p["records"].as_array().unwrap().len(), 10_000);
    assert_eq!(p["nextLine"], 10_003);
    // The whole chain still verifies (paged).
    let v = g.verify_audit().unwrap();
    assert!(v.ok && v.records == 10_003, "{v:?}");
}
