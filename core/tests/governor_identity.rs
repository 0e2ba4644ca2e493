//! Identity and isolation of peers in one governor (SEMANTICS 13.14, 13.16): commands sent
//! for daemon peers (`Governor::handle_as`) on memory and SQLite stores. Safety state
//! (breakers, cooldowns, clamps, retry-storm and tool-loop counters) is per uid, tool-loop
//! events count only on the caller's own live leases, `uidBindings` binds declared ids to
//! uids, and composite keys never collide. The same on PostgreSQL: `governor_postgres.rs`;
//! through real daemons and real uids: `cli/tests/daemon_access.rs`.

use std::sync::Arc;

use leasekit::governor::engine::IdSource;
use leasekit::governor::wire::ResponseEnvelope;
use leasekit::governor::{Governor, GovernorOptions, MemoryStore, Peer, Policy, SqliteStore};
use leasekit::{ManualClock, Timestamp};
use serde_json::{Value, json};

const ALICE: u32 = 1000;
const MALLORY: u32 = 1001;

fn gov_with(policy: Value) -> (Governor, Arc<ManualClock>) {
    let clock = Arc::new(ManualClock::new(Timestamp::from_unix_millis(
        1_767_225_600_000,
    )));
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

fn policy() -> Value {
    json!({
        "toolRegistry": [{"toolId": "t", "category": "other"}],
        "allowedModels": ["good"],
        "policyDenyCircuitBreakerThreshold": 2,
        "retryThresholdPerLease": 2,
        "spendSpikeCents": 50,
        "clampedMaxOutputTokens": 10,
        "safetyCooldownMs": 60000,
        "leaseTtlMs": 600000
    })
}

fn call(g: &Governor, uid: u32, cmd: &str, payload: Value) -> Value {
    let env: ResponseEnvelope = g.handle_as(Peer { uid, admin: false }, cmd, &payload.to_string());
    assert!(env.success, "{cmd}: {env:?}");
    serde_json::from_str(&env.payload_json).unwrap()
}

fn acquire(actor: &str, ws: &str) -> Value {
    json!({"actorId": actor, "workspaceId": ws, "modelId": "good", "estimatedCostCents": 1,
        "maxOutputTokens": 100})
}

#[test]
fn another_uids_policy_denials_do_not_trip_a_victims_workspace_breaker() {
    let (g, _) = gov_with(policy());
    for _ in 0..2 {
        let mut bad = acquire("m", "shared-ws");
        bad["modelId"] = json!("bad");
        let d = call(&g, MALLORY, "Acquire", bad);
        assert_eq!(d["deniedReason"], "model_not_allowed");
    }
    // Mallory's own breaker on the workspace is open ...
    let d = call(&g, MALLORY, "Acquire", acquire("m", "shared-ws"));
    assert_eq!(d["deniedReason"], "workspace_circuit_breaker");
    // ... Alice's is not, nor the in-process host's.
    let a = call(&g, ALICE, "Acquire", acquire("alice", "shared-ws"));
    assert_eq!(a["granted"], true, "{a}");
    let host: Value = serde_json::from_str(
        &g.handle_envelope("Acquire", &acquire("h", "shared-ws").to_string())
            .payload_json,
    )
    .unwrap();
    assert_eq!(host["granted"], true, "{host}");
}

#[test]
fn another_uids_retry_storm_does_not_cool_down_a_victims_actor() {
    let (g, _) = gov_with(policy());
    let mut req = acquire("alice", "w");
    req["idempotencyKey"] = json!("k");
    // Mallory replays one key under Alice's declared actor id until the storm trips.
    for _ in 0..3 {
        call(&g, MALLORY, "Acquire", req.clone());
    }
    let d = call(&g, MALLORY, "Acquire", acquire("alice", "w"));
    assert_eq!(d["deniedReason"], "actor_cooldown_active");
    let a = call(&g, ALICE, "Acquire", acquire("alice", "w"));
    assert_eq!(a["granted"], true, "{a}");
}

#[test]
fn another_uids_spend_spike_does_not_clamp_or_cool_down_a_victims_actor() {
    let (g, _) = gov_with(policy());
    let m = call(&g, MALLORY, "Acquire", acquire("alice", "w"));
    let r = call(
        &g,
        MALLORY,
        "Release",
        json!({"leaseId": m["leaseId"], "actualCostCents": 60}),
    );
    assert_eq!(r["classification"], "recorded");
    let d = call(&g, MALLORY, "Acquire", acquire("alice", "w"));
    assert_eq!(d["deniedReason"], "actor_cooldown_active");
    let a = call(&g, ALICE, "Acquire", acquire("alice", "w"));
    assert_eq!(a["granted"], true, "{a}");
    assert_eq!(a["constraints"]["maxOutputTokensOverride"], 100, "{a}");
}

/// An owned lease with a 50-call sub-lease on tool `t`.
fn lease_with_sub(g: &Governor, uid: u32) -> (String, String) {
    let mut req = acquire("alice", "w");
    req["requestedTools"] = json!([{"toolId": "t"}]);
    let a = call(g, uid, "Acquire", req);
    assert_eq!(a["granted"], true, "{a}");
    let id = a["leaseId"].as_str().unwrap().to_string();
    let s = call(
        g,
        uid,
        "RequestToolSubLease",
        json!({"leaseId": id, "toolId": "t", "requestedCalls": 50}),
    );
    assert_eq!(s["granted"], true, "{s}");
    (id, s["toolSubLeaseId"].as_str().unwrap().to_string())
}

fn tool_call(g: &Governor, uid: u32, lease: &str, sub: &str) -> Value {
    call(
        g,
        uid,
        "ExecuteToolCall",
        json!({"leaseId": lease, "toolSubLeaseId": sub, "toolId": "t", "commandText": "cat"}),
    )
}

#[test]
fn junk_lease_ids_neither_count_nor_evict_an_agents_loop_counter() {
    let mut p = policy();
    p["maxToolCallsPerLease"] = json!(50);
    p["toolLoopThreshold"] = json!(4);
    let (g, _) = gov_with(p);
    let (id, sub) = lease_with_sub(&g, ALICE);
    for _ in 0..3 {
        let d = tool_call(&g, ALICE, &id, &sub);
        assert_eq!(d["allowed"], true, "{d}");
    }
    // 10 000 calls naming leases that do not exist, and some on Alice's lease from another
    // uid: none counts, so Alice's counter is neither evicted nor tripped by them.
    for i in 0..10_000 {
        let d = tool_call(&g, MALLORY, &format!("junk-{i}"), &sub);
        assert_eq!(d["deniedReason"], "tool_sublease_not_found");
    }
    for _ in 0..5 {
        let d = tool_call(&g, MALLORY, &id, &sub);
        assert_eq!(d["deniedReason"], "tool_sublease_not_found");
    }
    let d = tool_call(&g, ALICE, &id, &sub);
    assert_eq!(d["deniedReason"], "tool_loop_detected", "{d}");
    // The loop trips Alice's breaker on the workspace, not Mallory's.
    let a = call(&g, ALICE, "Acquire", acquire("alice", "w"));
    assert_eq!(a["deniedReason"], "workspace_circuit_breaker");
    let m = call(&g, MALLORY, "Acquire", acquire("m", "w"));
    assert_eq!(m["granted"], true, "{m}");
}

#[test]
fn unknown_lease_ids_never_trip_the_loop_detector() {
    let mut p = policy();
    p["toolLoopThreshold"] = json!(2);
    let (g, _) = gov_with(p);
    for _ in 0..5 {
        let d = tool_call(&g, ALICE, "nope", "sub-1");
        assert_eq!(d["deniedReason"], "tool_sublease_not_found", "{d}");
    }
    assert_eq!(
        call(&g, ALICE, "Acquire", acquire("alice", "w"))["granted"],
        true
    );
}

#[test]
fn ids_holding_the_old_separator_are_distinct_idempotency_scopes() {
    let (g, _) = gov_with(policy());
    let mut one = acquire("a", "b\u{1f}c");
    one["orgId"] = json!("o");
    one["idempotencyKey"] = json!("k");
    let mut two = acquire("a", "b");
    two["orgId"] = json!("o");
    two["actorId"] = json!("c\u{1f}a");
    two["idempotencyKey"] = json!("k");
    let first = call(&g, ALICE, "Acquire", one.clone());
    assert_eq!(first["granted"], true, "{first}");
    // Another tuple: a grant of its own, not a conflict with the first.
    let second = call(&g, ALICE, "Acquire", two);
    assert_eq!(second["granted"], true, "{second}");
    assert_ne!(second["leaseId"], first["leaseId"]);
    // The first still replays.
    assert_eq!(call(&g, ALICE, "Acquire", one)["leaseId"], first["leaseId"]);
}

#[test]
fn another_uids_key_and_request_never_replay_a_grant_on_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("gov.db");
    let open = || {
        Governor::new(
            Policy::from_value(policy()).unwrap(),
            GovernorOptions::default(),
            Arc::new(SqliteStore::open(&path).unwrap()),
            Arc::new(ManualClock::new(Timestamp::from_unix_millis(
                1_767_225_600_000,
            ))),
            IdSource::Deterministic,
        )
        .unwrap()
    };
    let g = open();
    let mut req = acquire("alice", "w");
    req["idempotencyKey"] = json!("k");
    let a = call(&g, ALICE, "Acquire", req.clone());
    assert_eq!(a["granted"], true);
    let m = call(&g, MALLORY, "Acquire", req.clone());
    assert_ne!(m["leaseId"], a["leaseId"], "{m}");
    drop(g);
    // After a reopen as well.
    let g = open();
    assert_eq!(
        call(&g, ALICE, "Acquire", req.clone())["leaseId"],
        a["leaseId"]
    );
    assert_eq!(call(&g, MALLORY, "Acquire", req)["leaseId"], m["leaseId"]);
}

#[test]
fn uid_bindings_deny_ids_not_bound_to_the_peer() {
    let mut p = policy();
    p["uidBindings"] = json!({
        "1000": {"orgIds": ["default-org"], "workspaceIds": ["w", "w2"], "actorIds": ["alice"]},
        "1002": {"orgIds": ["*"], "workspaceIds": ["*"], "actorIds": ["*"]}
    });
    p["actorDailyBudgetCents"] = json!({"alice": 3});
    let (g, _) = gov_with(p);
    let ok = call(&g, ALICE, "Acquire", acquire("alice", "w"));
    assert_eq!(ok["granted"], true, "{ok}");
    for (uid, req) in [
        (ALICE, acquire("bob", "w")),
        (ALICE, acquire("alice", "w3")),
        (ALICE, {
            let mut r = acquire("alice", "w");
            r["orgId"] = json!("other-org");
            r
        }),
        // A uid the bindings do not list: nothing is bound to it.
        (MALLORY, acquire("alice", "w")),
        (MALLORY, acquire("m", "w")),
    ] {
        let d = call(&g, uid, "Acquire", req.clone());
        assert_eq!(d["granted"], false, "{req}");
        assert_eq!(d["deniedReason"], "identity_not_bound", "{req}");
        assert!(d.get("retryAfterMs").is_none_or(Value::is_null), "{d}");
    }
    // Mallory could not spend Alice's actor quota: two more cents are left for her.
    let more = call(&g, ALICE, "Acquire", acquire("alice", "w2"));
    assert_eq!(more["granted"], true, "{more}");
    // `*` binds every id; the in-process host is not a peer and is not checked.
    assert_eq!(
        call(&g, 1002, "Acquire", acquire("anyone", "anywhere"))["granted"],
        true
    );
    let host: Value = serde_json::from_str(
        &g.handle_envelope("Acquire", &acquire("zed", "elsewhere").to_string())
            .payload_json,
    )
    .unwrap();
    assert_eq!(host["granted"], true, "{host}");
    let m = g.metrics().unwrap();
    assert_eq!(m.denies_by_reason.get("identity_not_bound"), Some(&5));
}

#[test]
fn uid_bindings_hold_for_an_idempotent_replay_and_a_service_account_actor() {
    let mut p = policy();
    p["uidBindings"] = json!({
        "1000": {"orgIds": ["o"], "workspaceIds": ["w"], "actorIds": ["alice"]}
    });
    let token = "svc-secret";
    let hash = {
        use sha2::{Digest, Sha256};
        hex::encode(Sha256::digest(token.as_bytes()))
    };
    p["serviceAccounts"] = json!([{"name": "robot", "orgId": "o", "workspaceId": "w",
        "tokenHash": hash, "role": "member"}]);
    let (g, _) = gov_with(p.clone());
    let mut req = acquire("alice", "w");
    req["orgId"] = json!("o");
    req["idempotencyKey"] = json!("k");
    let a = call(&g, ALICE, "Acquire", req.clone());
    assert_eq!(a["granted"], true, "{a}");
    // A service account fills in its own name as the actor: unbound.
    let mut svc = acquire("", "w");
    svc["orgId"] = json!("o");
    svc["principalType"] = json!("service");
    svc["authToken"] = json!(token);
    let d = call(&g, ALICE, "Acquire", svc);
    assert_eq!(d["deniedReason"], "identity_not_bound", "{d}");
    // Once the binding is withdrawn, the earlier grant is not replayed either.
    p["uidBindings"] = json!({"1000": {"orgIds": ["o"], "workspaceIds": ["w"], "actorIds": []}});
    let staged = g
        .handle_as(
            Peer {
                uid: 0,
                admin: true,
            },
            "StagePolicyBundle",
            &json!({"version": "v2", "policyContentJson": p.to_string()}).to_string(),
        )
        .payload_json;
    assert!(staged.contains("\"accepted\":true"), "{staged}");
    let act = g
        .handle_as(
            Peer {
                uid: 0,
                admin: true,
            },
            "ActivatePolicy",
            &json!({"version": "v2"}).to_string(),
        )
        .payload_json;
    assert!(act.contains("\"activated\":true"), "{act}");
    let d = call(&g, ALICE, "Acquire", req);
    assert_eq!(d["deniedReason"], "identity_not_bound", "{d}");
}

#[test]
fn uid_bindings_must_name_uids() {
    for bad in [
        json!({"alice": {"actorIds": ["a"]}}),
        json!({"01000": {"actorIds": ["a"]}}),
        json!({"-1": {"actorIds": ["a"]}}),
        json!({"4294967296": {"actorIds": ["a"]}}),
    ] {
        let e = Policy::from_value(json!({ "uidBindings": bad })).unwrap_err();
        assert!(e.message().contains("uidBindings"), "{bad}: {e}");
    }
    // Wrong types are malformed policies.
    for bad in [json!({"1000": {"actorIds": "a"}}), json!(["1000"])] {
        assert!(
            Policy::from_value(json!({ "uidBindings": bad })).is_err(),
            "{bad}"
        );
    }
    let p =
        Policy::from_value(json!({"uidBindings": {"0": {}, "4294967295": {"actorIds": ["*"]}}}))
            .unwrap();
    let codes: Vec<&str> = p.lint().iter().map(|f| f.code).collect();
    assert!(codes.contains(&"uid-binding-empty"), "{codes:?}");
}
