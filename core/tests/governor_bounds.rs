//! Bounded state and input checks of the governor (SEMANTICS 13.16 "Sizes on the wire",
//! "Bounded state", "Tool-call targets"): oversized fields are refused before anything is
//! stored, denials are counted by reason code, safety maps stay within their byte bound,
//! scoped budgets of past days are dropped, stored state does not grow with past grants, and
//! a tool call's host must be a host name or an IP literal.

use std::sync::Arc;

use leasekit::governor::engine::IdSource;
use leasekit::governor::store::MemoryStore;
use leasekit::governor::{Governor, GovernorOptions, Policy};
use leasekit::{ManualClock, Timestamp};
use serde_json::{Value, json};

const START_MS: i64 = 1_772_366_400_000; // 2026-03-01T12:00:00Z
const DAY_MS: i64 = 86_400_000;

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

/// The wire answer: `(success, payload or error)`.
fn call(g: &Governor, command: &str, payload: Value) -> (bool, Value) {
    let env: Value = serde_json::from_str(&g.handle(command, &payload.to_string())).unwrap();
    let ok = env["success"].as_bool().unwrap();
    if ok {
        (
            true,
            serde_json::from_str(env["payloadJson"].as_str().unwrap()).unwrap(),
        )
    } else {
        (false, env["error"].clone())
    }
}

fn ok(g: &Governor, command: &str, payload: Value) -> Value {
    let (success, v) = call(g, command, payload);
    assert!(success, "{command}: {v}");
    v
}

fn state(g: &Governor) -> Value {
    g.with_engine(|e| serde_json::to_value(e.state()).unwrap())
}

/// Bytes of the stored meta row without the safety maps (bounded on their own).
fn meta_bytes(g: &Governor) -> usize {
    let mut meta = g.with_engine(|e| serde_json::to_value(&e.state().meta).unwrap());
    meta.as_object_mut().unwrap().remove("safety");
    meta.to_string().len()
}

fn tool_policy() -> Value {
    json!({
        "toolRegistry": [{"toolId": "web.get", "category": "networkRead"},
                         {"toolId": "sh", "category": "exec"}],
        "allowedNetworkHosts": ["*.example.com", "example.org", "127.0.0.1", "[::1]"],
        "allowedFileRoots": ["/tmp"],
        "toolLoopThreshold": 0,
        "maxToolCallsPerLease": 1000,
    })
}

/// A governor with lease-1 holding sub-1 (for `tool`, many calls).
fn tool_governor(tool: &str, category: &str) -> Governor {
    let (g, _) = governor(tool_policy());
    let grant = ok(
        &g,
        "Acquire",
        json!({"actorId": "a", "workspaceId": "w",
               "requestedTools": [{"toolId": tool, "category": category}]}),
    );
    assert_eq!(grant["granted"], true, "{grant}");
    let sub = ok(
        &g,
        "RequestToolSubLease",
        json!({"leaseId": "lease-1", "toolId": tool, "category": category,
               "requestedCalls": 500}),
    );
    assert_eq!(sub["toolSubLeaseId"], "sub-1", "{sub}");
    g
}

fn exec(g: &Governor, tool: &str, category: &str, host: &str, cmd: &str) -> Value {
    ok(
        g,
        "ExecuteToolCall",
        json!({"leaseId": "lease-1", "toolSubLeaseId": "sub-1", "toolId": tool,
               "category": category, "targetHost": host, "commandText": cmd}),
    )
}

#[test]
fn denials_are_counted_by_reason_code_without_client_text() {
    let (g, _) = governor(json!({"toolRegistry": [{"toolId": "t", "category": "other"}]}));
    for i in 0..5 {
        let tool = format!("{i}{}", "u".repeat(200));
        let d = ok(
            &g,
            "Acquire",
            json!({"actorId": "a", "workspaceId": format!("w{i}"),
                   "requestedTools": [{"toolId": tool}]}),
        );
        // The answer still names the tool.
        assert_eq!(d["deniedReason"], format!("tool_not_registered:{tool}"));
    }
    let m = ok(&g, "GetMetrics", json!({}));
    assert_eq!(
        m["deniesByReason"],
        json!({"tool_not_registered": 5}),
        "{m}"
    );
    let meta = serde_json::to_string(&state(&g)["meta"]).unwrap();
    assert!(
        !meta.contains("uuuuuuuu"),
        "the stored state holds a client's tool id"
    );
}

#[test]
fn oversized_fields_are_refused_naming_the_field_and_nothing_is_stored() {
    let g = tool_governor("sh", "exec");
    let before = state(&g);
    let big = |n: usize| "x".repeat(n);
    let cases = [
        (
            "Acquire",
            json!({"actorId": "a", "requestedTools": [{"toolId": big(257)}]}),
            "requestedTools[0].toolId",
        ),
        ("Acquire", json!({"actorId": big(257)}), "actorId"),
        (
            "Acquire",
            json!({"idempotencyKey": big(300)}),
            "idempotencyKey",
        ),
        (
            "Acquire",
            json!({"riskFlags": vec!["r"; 1025]}),
            "riskFlags has 1025 items",
        ),
        ("Acquire", json!({"modelId": big(1 << 20)}), "modelId"),
        ("Release", json!({"leaseId": big(257)}), "leaseId"),
        (
            "ExecuteToolCall",
            json!({"leaseId": "lease-1", "toolSubLeaseId": "sub-1", "toolId": "sh",
                   "category": "exec", "commandText": big(4097)}),
            "commandText",
        ),
        (
            "ExecuteToolCall",
            json!({"leaseId": "lease-1", "toolSubLeaseId": "sub-1", "toolId": "sh",
                   "category": "exec", "targetHost": big(16_385)}),
            "targetHost",
        ),
        (
            "RequestApproval",
            json!({"actorId": "a", "workspaceId": "w", "reason": big(4097)}),
            "reason",
        ),
        (
            "ReviewApproval",
            json!({"approvalId": "approval-1", "reviewerId": big(257)}),
            "reviewerId",
        ),
        ("ActivatePolicy", json!({"version": big(257)}), "version"),
        (
            "Authorize",
            json!({"leaseId": "lease-1", "capability": "fs.read", "target": big(16_385)}),
            "target",
        ),
    ];
    for (command, payload, field) in cases {
        let (success, error) = call(&g, command, payload.clone());
        assert!(!success, "{command} {field}: accepted");
        let error = error.as_str().unwrap();
        assert!(
            error.contains(field),
            "{command}: {error} does not name {field}"
        );
        assert!(
            error.len() < 200,
            "the error echoes the value: {}",
            error.len()
        );
        // The strict typed entry point refuses it the same way.
        let strict = g.call_json(command, &payload.to_string()).unwrap_err();
        assert!(strict.to_string().contains(field), "{strict}");
    }
    assert_eq!(state(&g), before, "a refused payload changed the state");
    // At the limit is fine.
    let d = ok(
        &g,
        "Acquire",
        json!({"actorId": big(256), "requestedTools": [{"toolId": big(256)}]}),
    );
    assert_eq!(d["granted"], false);
    let x = exec(&g, "sh", "exec", "", &format!("ls {}", big(4093)));
    assert_eq!(x["allowed"], true, "{x}");
}

#[test]
fn tool_call_hosts_must_be_host_names_or_ip_literals() {
    let g = tool_governor("web.get", "networkRead");
    let allowed = [
        ("api.example.com", "api.example.com"),
        ("API.Example.COM.", "api.example.com"),
        ("example.org", "example.org"),
        ("127.0.0.1", "127.0.0.1"),
        ("[::1]", "[::1]"),
        ("::1", "[::1]"),
        ("[0:0:0::1]", "[::1]"),
        ("a-b.example.com", "a-b.example.com"),
    ];
    for (host, canonical) in allowed {
        let x = exec(&g, "web.get", "networkRead", host, "get");
        assert_eq!(x["allowed"], true, "{host}: {x}");
        assert_eq!(x["canonicalHost"], canonical, "{host}: {x}");
    }
    let label64 = format!("{}.example.com", "a".repeat(64));
    let long_name = format!("{}example.com", "abcdefghi.".repeat(25));
    assert!(long_name.len() > 253);
    let invalid = [
        "localhost:6379#.example.com",
        "2852039166/.example.com",
        "api.example.com:443",
        "user@api.example.com",
        "a_b.example.com",
        "a..example.com",
        ".example.com",
        "api.example.com..",
        "a b.example.com",
        "ex\u{e4}mple.example.com",
        "2852039166",
        "127.1",
        "0x7f.0x1",
        "127.0.0.01",
        "1.2.3.256",
        "[::1",
        "[fe80::1%eth0]",
        "[127.0.0.1]",
        label64.as_str(),
        long_name.as_str(),
    ];
    for host in invalid {
        let x = exec(&g, "web.get", "networkRead", host, "get");
        assert_eq!(x["allowed"], false, "{host}: {x}");
        assert_eq!(x["deniedReason"], "host_invalid", "{host}: {x}");
        assert!(x.get("canonicalHost").is_none(), "{x}");
    }
    // Valid but not listed.
    for host in ["evil.com", "a.b.example.com", "[::2]", "10.0.0.1"] {
        let x = exec(&g, "web.get", "networkRead", host, "get");
        assert_eq!(x["deniedReason"], "tool_host_not_allowed", "{host}: {x}");
    }
}

#[test]
fn commands_with_control_characters_are_rejected() {
    let g = tool_governor("sh", "exec");
    for cmd in [
        "ls /work\nrm -rf /",
        "ls /work\rrm",
        "ls\t/work",
        "ls \u{0}x",
        "ls \u{1b}[2J",
        "ls \u{7f}",
    ] {
        let x = exec(&g, "sh", "exec", "", cmd);
        assert_eq!(x["deniedReason"], "tool_command_rejected", "{cmd:?}: {x}");
    }
    let x = exec(&g, "sh", "exec", "", "ls -la /work");
    assert_eq!(x["allowed"], true, "{x}");
}

#[test]
fn safety_maps_stay_within_their_byte_bound() {
    // Distinct long actors, workspaces and keys: each denied acquire adds a retry-storm key
    // and a policy-denial key.
    let (g, _) = governor(json!({"toolRegistry": [{"toolId": "t", "category": "other"}]}));
    let id = |p: &str, i: usize| format!("{p}{i:06}{}", "z".repeat(240));
    for i in 0..4000 {
        let d = ok(
            &g,
            "Acquire",
            json!({"actorId": id("a", i), "workspaceId": id("w", i),
                   "idempotencyKey": id("k", i), "requestedTools": [{"toolId": "nope"}]}),
        );
        assert_eq!(d["granted"], false);
    }
    let st = state(&g);
    for map in [
        "retry",
        "denies",
        "loops",
        "cooldowns",
        "breakers",
        "clamps",
    ] {
        let m = st["meta"]["safety"][map].as_object().unwrap();
        let key_bytes: usize = m.keys().map(String::len).sum();
        assert!(
            key_bytes <= 1 << 20,
            "safety map {map}: {} keys, {key_bytes} key bytes",
            m.len()
        );
    }
    assert!(
        !st["meta"]["safety"]["retry"]
            .as_object()
            .unwrap()
            .is_empty()
    );
}

#[test]
fn scoped_budgets_of_past_days_are_dropped_at_the_day_roll() {
    let (g, clock) = governor(json!({"actorDailyBudgetCents": 100}));
    for i in 0..5 {
        let grant = ok(
            &g,
            "Acquire",
            json!({"actorId": format!("a{i}"), "workspaceId": "w", "estimatedCostCents": 1}),
        );
        assert_eq!(grant["granted"], true, "{grant}");
        let id = grant["leaseId"].as_str().unwrap();
        ok(&g, "Release", json!({"leaseId": id, "actualCostCents": 1}));
    }
    assert!(state(&g)["meta"]["scoped"].as_object().unwrap().len() >= 5);
    clock.set(Timestamp::from_unix_millis(START_MS + DAY_MS));
    ok(&g, "GetMetrics", json!({}));
    let scoped = state(&g)["meta"]["scoped"].clone();
    assert_eq!(
        scoped,
        json!({}),
        "yesterday's scoped budgets are still stored"
    );
    // Today's spend counts afresh.
    let grant = ok(
        &g,
        "Acquire",
        json!({"actorId": "a0", "workspaceId": "w", "estimatedCostCents": 100}),
    );
    assert_eq!(grant["granted"], true, "{grant}");
}

#[test]
fn the_meta_row_does_not_grow_with_past_idempotent_grants() {
    let (g, _) = governor(json!({"maxRequestsPerMinute": 100_000}));
    let grant = |i: usize| {
        let r = ok(
            &g,
            "Acquire",
            json!({"actorId": "a", "workspaceId": "w",
                   "idempotencyKey": format!("key-{i:05}-{}", "k".repeat(64))}),
        );
        assert_eq!(r["granted"], true, "{r}");
        let id = r["leaseId"].as_str().unwrap().to_string();
        ok(&g, "Release", json!({"leaseId": id}));
    };
    for i in 0..10 {
        grant(i);
    }
    let small = meta_bytes(&g);
    for i in 10..300 {
        grant(i);
    }
    let large = meta_bytes(&g);
    assert!(
        large < small + 200,
        "the meta row grew from {small} to {large} bytes over 290 grants"
    );
    // The replay still works (the idempotency records are rows of their own).
    let r = ok(
        &g,
        "Acquire",
        json!({"actorId": "a", "workspaceId": "w",
               "idempotencyKey": format!("key-00003-{}", "k".repeat(64))}),
    );
    assert_eq!(r["leaseId"], "lease-4", "{r}");
}
