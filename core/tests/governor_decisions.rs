//! `RecordDecision`: a guard's decision appended to the governor's own audit chain as the
//! caller's `guard_decision` record, with the peer uid from the socket, never from the
//! payload; bounded per record and per uid; nothing else changes.

use std::sync::Arc;

use leasekit::governor::engine::IdSource;
use leasekit::governor::engine::decisions::{
    DECISION_BYTES_PER_WINDOW, DECISION_WINDOW_MS, DECISIONS_PER_WINDOW,
};
use leasekit::governor::store::MemoryStore;
use leasekit::governor::wire::{MAX_DECISION_BYTES, MAX_TARGET_BYTES};
use leasekit::governor::{Governor, GovernorOptions, Peer, Policy};
use leasekit::{ManualClock, Timestamp};
use serde_json::{Value, json};

const START_MS: i64 = 1_772_366_400_000; // 2026-03-01T12:00:00Z

fn governor(policy: Value) -> (Governor, Arc<ManualClock>) {
    let clock = Arc::new(ManualClock::new(Timestamp::from_unix_millis(START_MS)));
    let g = Governor::new(
        Policy::from_value(policy).unwrap(),
        GovernorOptions::default(),
        Arc::new(MemoryStore::new()),
        clock.clone(),
        IdSource::Deterministic,
    )
    .unwrap();
    (g, clock)
}

/// `(success, payload or error)` of a command sent by `uid`.
fn call_as(g: &Governor, uid: u32, command: &str, payload: &Value) -> (bool, Value) {
    let env = g.handle_as(Peer { uid, admin: false }, command, &payload.to_string());
    if env.success {
        (true, serde_json::from_str(&env.payload_json).unwrap())
    } else {
        (false, Value::String(env.error))
    }
}

fn records(g: &Governor) -> Vec<Value> {
    let env: Value = serde_json::from_str(&g.handle("ExportAudit", "{}")).unwrap();
    let p: Value = serde_json::from_str(env["payloadJson"].as_str().unwrap()).unwrap();
    p["records"].as_array().unwrap().clone()
}

fn decision() -> Value {
    json!({"actorId": "agent", "workspaceId": "w", "source": "mcp", "decision": "deny",
           "rule": "argument", "method": "tools/call", "server": "fs", "tool": "read_text_file",
           "requestId": "7", "code": "PERMISSION_DENIED",
           "reason": "fs.read \"/etc/passwd\" is not permitted", "targets": []})
}

#[test]
fn a_decision_is_a_record_of_the_callers_uid_and_the_chain_verifies() {
    let (g, _) = governor(json!({}));
    let mut d = decision();
    // A uid in the payload is not the record's: the socket's is.
    d["peerUid"] = json!(0);
    let (ok, r) = call_as(&g, 1000, "RecordDecision", &d);
    assert!(ok, "{r}");
    assert_eq!(r["recorded"], true, "{r}");
    let recs = records(&g);
    let last = recs.last().unwrap();
    assert_eq!(last["eventType"], "guard_decision");
    assert_eq!(last["peerUid"], 1000);
    assert_eq!(last["decision"], "deny");
    assert_eq!(last["rule"], "argument");
    assert_eq!(last["orgId"], "default-org");
    assert_eq!(last["entryHash"], r["auditEntryHash"]);
    let env: Value = serde_json::from_str(&g.handle("VerifyAudit", "{}")).unwrap();
    let v: Value = serde_json::from_str(env["payloadJson"].as_str().unwrap()).unwrap();
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(v["records"], json!(recs.len()));
}

#[test]
fn malformed_and_oversized_records_are_refused_and_change_nothing() {
    let (g, _) = governor(json!({}));
    let before = records(&g).len();
    let mut cases = Vec::new();
    let mut d = decision();
    d.as_object_mut().unwrap().remove("decision");
    cases.push((d, "decision"));
    let mut d = decision();
    d["decision"] = json!("maybe");
    cases.push((d, "invalid payload"));
    let mut d = decision();
    d["code"] = json!("NOT_A_CODE");
    cases.push((d, "code"));
    let mut d = decision();
    d["tool"] = json!("t".repeat(257));
    cases.push((d, "tool"));
    let mut d = decision();
    d["reason"] = json!("r".repeat(4097));
    cases.push((d, "reason"));
    let mut d = decision();
    d["targets"] = json!(vec!["fs.read /a"; 1025]);
    cases.push((d, "targets"));
    let mut d = decision();
    d["targets"] = json!([format!("fs.read /{}", "a".repeat(MAX_TARGET_BYTES))]);
    cases.push((d, "targets[0]"));
    let mut d = decision();
    let n = MAX_DECISION_BYTES / 8192 + 1;
    d["targets"] = json!(vec!["a".repeat(8192); n]);
    cases.push((d, "text"));
    let mut d = decision();
    d["targets"] = json!("fs.read /a");
    cases.push((d, "invalid payload"));
    for (payload, field) in cases {
        let (ok, e) = call_as(&g, 1000, "RecordDecision", &payload);
        assert!(!ok, "{payload}: accepted");
        let e = e.as_str().unwrap();
        assert!(
            e.starts_with("invalid payload") && e.contains(field),
            "{field}: {e}"
        );
        // The typed strict call refuses it the same way.
        assert!(g.call_json("RecordDecision", &payload.to_string()).is_err());
    }
    assert_eq!(records(&g).len(), before);
    assert!(
        g.with_engine(|e| e.state().meta.decision_windows.is_empty()),
        "a refused record counted"
    );
}

#[test]
fn another_uids_lease_and_unbound_ids_are_refused() {
    let (g, _) = governor(json!({
        "toolRegistry": [{"toolId": "t", "category": "other"}],
        "uidBindings": {
            "1000": {"orgIds": ["*"], "workspaceIds": ["*"], "actorIds": ["agent"]},
            "1001": {"orgIds": ["*"], "workspaceIds": ["*"], "actorIds": ["other"]}
        }
    }));
    let acquire = json!({"actorId": "agent", "workspaceId": "w",
                         "requestedTools": [{"toolId": "t"}]});
    let (ok, grant) = call_as(&g, 1000, "Acquire", &acquire);
    assert!(ok && grant["granted"] == true, "{grant}");
    let lease = grant["leaseId"].clone();
    let before = records(&g).len();

    let mut d = decision();
    d["leaseId"] = lease.clone();
    d["actorId"] = json!("other");
    let (_, r) = call_as(&g, 1001, "RecordDecision", &d);
    assert_eq!(r["recorded"], false);
    assert_eq!(r["deniedReason"], "lease_not_found");
    d["actorId"] = json!("agent");
    let (_, r) = call_as(&g, 1001, "RecordDecision", &d);
    assert_eq!(r["deniedReason"], "identity_not_bound");
    d["leaseId"] = json!("no-such-lease");
    let (_, r) = call_as(&g, 1000, "RecordDecision", &d);
    assert_eq!(r["deniedReason"], "lease_not_found");
    assert_eq!(records(&g).len(), before);

    d["leaseId"] = lease;
    let (_, r) = call_as(&g, 1000, "RecordDecision", &d);
    assert_eq!(r["recorded"], true, "{r}");
    assert_eq!(records(&g).last().unwrap()["leaseId"], grant["leaseId"]);
}

#[test]
fn each_uid_is_rate_limited_in_records_and_bytes() {
    let (g, clock) = governor(json!({}));
    let d = decision();
    for i in 0..DECISIONS_PER_WINDOW {
        let (_, r) = call_as(&g, 1000, "RecordDecision", &d);
        assert_eq!(r["recorded"], true, "record {i}: {r}");
    }
    let (_, r) = call_as(&g, 1000, "RecordDecision", &d);
    assert_eq!(r["recorded"], false);
    assert_eq!(r["deniedReason"], "decision_rate_limited");
    assert_eq!(r["retryAfterMs"], json!(DECISION_WINDOW_MS));
    // Another uid has its own window.
    let (_, r) = call_as(&g, 1001, "RecordDecision", &d);
    assert_eq!(r["recorded"], true, "{r}");
    // The window ends.
    clock.set(Timestamp::from_unix_millis(START_MS + DECISION_WINDOW_MS));
    let (_, r) = call_as(&g, 1000, "RecordDecision", &d);
    assert_eq!(r["recorded"], true, "{r}");

    // Bytes: large records run out before the record count does.
    let mut big = decision();
    big["targets"] = json!(vec!["a".repeat(8192); MAX_DECISION_BYTES / 8192 - 1]);
    let per = (MAX_DECISION_BYTES / 8192 - 1) as u64 * 8192;
    let fit = DECISION_BYTES_PER_WINDOW / per;
    let mut n = 0;
    loop {
        let (ok, r) = call_as(&g, 1002, "RecordDecision", &big);
        assert!(ok, "{r}");
        if r["recorded"] == false {
            assert_eq!(r["deniedReason"], "decision_rate_limited");
            break;
        }
        n += 1;
        assert!(
            n <= fit,
            "more than {fit} records of {per} bytes fit one window"
        );
    }
    assert_eq!(n, fit);
}
