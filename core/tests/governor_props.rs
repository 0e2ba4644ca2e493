//! Governor properties: random command sequences keep the invariants
//! (in-flight <= capacity, reserved + spent <= budget, at most one grant per scoped key,
//! every audit chain verifies, a restart at any step yields the same state); malformed
//! input never panics and never changes state.

mod scratch;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use leasekit::governor::engine::IdSource;
use leasekit::governor::store::{MemoryStore, SqliteStore, Store, Synchronous};
use leasekit::governor::wire::*;
use leasekit::governor::{Governor, GovernorOptions, Policy};
use leasekit::{ManualClock, Timestamp};
use proptest::prelude::*;
use serde_json::{Value, json};

fn temp_db() -> std::path::PathBuf {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    let dir = scratch::dir();
    dir.join(format!("p{}.db", N.fetch_add(1, Ordering::Relaxed)))
}

const START_MS: i64 = 1_772_366_400_000; // 2026-03-01T12:00:00Z

fn policy() -> Policy {
    Policy::from_value(json!({
        "policyVersion": "p",
        "maxInFlight": 3,
        "dailyBudgetCents": 60,
        "maxComputeUnits": 5,
        "maxRequestsPerMinute": 50,
        "leaseTtlMs": 5000,
        "spendSpikeCents": 1000,
        "toolRegistry": [{"toolId": "fs.read", "category": "fileRead"},
                         {"toolId": "http.post", "category": "networkWrite"}],
        "approvalRequiredToolCategories": ["networkWrite"],
        "allowedFileRoots": ["/tmp"],
        "maxToolCallsPerLease": 3
    }))
    .unwrap()
}

#[derive(Debug, Clone)]
enum Op {
    Acquire {
        actor: u8,
        key: Option<u8>,
        cost: u8,
        units: u8,
        tool: bool,
    },
    Release {
        lease: u8,
        actual_pct: u8,
        key: Option<u8>,
    },
    Advance {
        ms: u16,
    },
    Approval {
        actor: u8,
    },
    Review {
        approval: u8,
        reviewer: u8,
        approve: bool,
    },
    SubLease {
        lease: u8,
        calls: u8,
    },
    Call {
        lease: u8,
        sub: u8,
    },
    Restart,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (0u8..3, proptest::option::of(0u8..3), 0u8..25, 0u8..4, any::<bool>())
            .prop_map(|(actor, key, cost, units, tool)| Op::Acquire { actor, key, cost, units, tool }),
        3 => (0u8..8, 0u8..=100, proptest::option::of(0u8..2))
            .prop_map(|(lease, actual_pct, key)| Op::Release { lease, actual_pct, key }),
        2 => (0u16..4000).prop_map(|ms| Op::Advance { ms }),
        1 => (0u8..3).prop_map(|actor| Op::Approval { actor }),
        1 => (0u8..4, 0u8..3, any::<bool>()).prop_map(|(approval, reviewer, approve)| Op::Review { approval, reviewer, approve }),
        1 => (0u8..8, 0u8..4).prop_map(|(lease, calls)| Op::SubLease { lease, calls }),
        1 => (0u8..8, 0u8..6).prop_map(|(lease, sub)| Op::Call { lease, sub }),
        1 => Just(Op::Restart),
    ]
}

struct Model {
    estimates: BTreeMap<String, u64>,
    grants_by_key: BTreeMap<String, BTreeSet<String>>,
}

fn state_json(g: &Governor) -> Value {
    g.with_engine(|e| serde_json::to_value(e.state()).unwrap())
}

fn run_sequence(ops: &[Op], sqlite: bool) -> Result<(), TestCaseError> {
    let clock = Arc::new(ManualClock::new(Timestamp::from_unix_millis(START_MS)));
    let path = temp_db();
    let open = |clock: &Arc<ManualClock>| -> Governor {
        let store: Arc<dyn Store> = if sqlite {
            Arc::new(SqliteStore::open_with(&path, Synchronous::Normal).unwrap())
        } else {
            Arc::new(MemoryStore::new())
        };
        Governor::new(
            policy(),
            GovernorOptions::default(),
            store,
            clock.clone(),
            IdSource::Deterministic,
        )
        .unwrap()
    };
    let mut g = open(&clock);
    let mut now = START_MS;
    let mut m = Model {
        estimates: BTreeMap::new(),
        grants_by_key: BTreeMap::new(),
    };
    let mut tokens: Vec<String> = Vec::new();
    for op in ops {
        match op {
            Op::Acquire {
                actor,
                key,
                cost,
                units,
                tool,
            } => {
                let req = AcquireRequest {
                    actor_id: format!("a{actor}"),
                    workspace_id: "w".into(),
                    model_id: "m".into(),
                    estimated_cost_cents: u64::from(*cost),
                    estimated_compute_units: u32::from(*units),
                    idempotency_key: key.map(|k| format!("k{k}")).unwrap_or_default(),
                    requested_tools: if *tool {
                        vec![ToolIntent {
                            tool_id: "fs.read".into(),
                            category: ToolCategory::FileRead,
                        }]
                    } else {
                        vec![]
                    },
                    approval_token: tokens.last().cloned().unwrap_or_default(),
                    ..AcquireRequest::default()
                };
                let r = g.acquire(req.clone()).unwrap();
                if r.granted {
                    m.estimates.insert(r.lease_id.clone(), u64::from(*cost));
                    if !req.idempotency_key.is_empty() {
                        m.grants_by_key
                            .entry(format!("{}|{}", req.actor_id, req.idempotency_key))
                            .or_default()
                            .insert(r.lease_id.clone());
                    }
                }
            }
            Op::Release {
                lease,
                actual_pct,
                key,
            } => {
                let id = format!("lease-{lease}");
                let est = m.estimates.get(&id).copied().unwrap_or(0);
                g.release(ReleaseRequest {
                    lease_id: id,
                    actual_cost_cents: est * u64::from(*actual_pct) / 100,
                    idempotency_key: key.map(|k| format!("r{k}")).unwrap_or_default(),
                    ..ReleaseRequest::default()
                })
                .unwrap();
            }
            Op::Advance { ms } => {
                now += i64::from(*ms);
                clock.set(Timestamp::from_unix_millis(now));
            }
            Op::Approval { actor } => {
                g.request_approval(ApprovalRequest {
                    actor_id: format!("a{actor}"),
                    workspace_id: "w".into(),
                    requested_by: format!("a{actor}"),
                    tool_category: Some(ToolCategory::NetworkWrite),
                    ..ApprovalRequest::default()
                })
                .unwrap();
            }
            Op::Review {
                approval,
                reviewer,
                approve,
            } => {
                let r = g
                    .review_approval(ReviewApprovalRequest {
                        approval_id: format!("approval-{approval}"),
                        reviewer_id: format!("r{reviewer}"),
                        approve: *approve,
                        ..ReviewApprovalRequest::default()
                    })
                    .unwrap();
                if !r.approval_token.is_empty() {
                    tokens.push(r.approval_token);
                }
            }
            Op::SubLease { lease, calls } => {
                g.request_tool_sub_lease(ToolSubLeaseRequest {
                    lease_id: format!("lease-{lease}"),
                    tool_id: "fs.read".into(),
                    category: ToolCategory::FileRead,
                    requested_calls: u32::from(*calls),
                    ..ToolSubLeaseRequest::default()
                })
                .unwrap();
            }
            Op::Call { lease, sub } => {
                g.execute_tool_call(ToolExecutionRequest {
                    lease_id: format!("lease-{lease}"),
                    tool_sub_lease_id: format!("sub-{sub}"),
                    tool_id: "fs.read".into(),
                    category: ToolCategory::FileRead,
                    target_path: "/tmp/x".into(),
                    command_text: "cat".into(),
                    ..ToolExecutionRequest::default()
                })
                .unwrap();
            }
            Op::Restart => {
                if sqlite {
                    // A command sweeps at its time, as the reopen does.
                    g.metrics().unwrap();
                    let before = state_json(&g);
                    drop(g);
                    g = open(&clock);
                    let after = state_json(&g);
                    prop_assert_eq!(before, after, "a restart changed the state");
                }
            }
        }
        // Invariants after every step.
        let (in_flight, compute, used, live_reserved, calls_ok) = g.with_engine(|e| {
            let st = e.state();
            let calls_ok = st.leases.values().all(|l| {
                l.subs.values().map(|s| s.allowed).sum::<u32>() <= l.max_tool_calls
                    && l.calls_allocated <= l.max_tool_calls
            });
            let live = st
                .leases
                .values()
                .filter(|l| l.status == leasekit::governor::engine::state::LeaseStatus::Live);
            (
                st.meta.pools.in_flight,
                st.meta.pools.compute_used,
                st.meta.pools.budget_used,
                live.count() as u64,
                calls_ok,
            )
        });
        prop_assert!(in_flight <= 3, "in-flight {in_flight} > capacity");
        prop_assert_eq!(in_flight, live_reserved);
        prop_assert!(compute <= 5, "compute {compute} > capacity");
        prop_assert!(used <= 60, "reserved + spent {used} > budget");
        prop_assert!(calls_ok, "sub-lease calls exceed the lease's maxToolCalls");
        for (k, grants) in &m.grants_by_key {
            prop_assert!(
                grants.len() <= 1,
                "two grants under one scoped key {k}: {grants:?}"
            );
        }
    }
    let v = g.verify_audit().unwrap();
    prop_assert!(v.ok, "audit chain does not verify: {}", v.message);
    drop(g);
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn random_sequences_keep_the_invariants_in_memory(ops in proptest::collection::vec(op(), 1..60)) {
        run_sequence(&ops, false)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn random_sequences_keep_the_invariants_on_sqlite_with_restarts(ops in proptest::collection::vec(op(), 1..40)) {
        run_sequence(&ops, true)?;
    }
}

#[test]
fn malformed_input_is_an_error_and_changes_nothing() {
    let clock = Arc::new(ManualClock::new(Timestamp::from_unix_millis(START_MS)));
    let g = Governor::new(
        policy(),
        GovernorOptions::default(),
        Arc::new(MemoryStore::new()),
        clock,
        IdSource::Deterministic,
    )
    .unwrap();
    g.acquire(AcquireRequest {
        actor_id: "a".into(),
        ..AcquireRequest::default()
    })
    .unwrap();
    let before = state_json(&g);
    let cases: &[(&str, &str)] = &[
        ("Acquire", "not json"),
        ("Acquire", "[]"),
        ("Acquire", "{\"estimatedCostCents\": -1}"),
        ("Acquire", "{\"estimatedCostCents\": 1.5}"),
        ("Acquire", "{\"estimatedCostCents\": 1e30}"),
        ("Acquire", "{\"estimatedCostCents\": 18446744073709551616}"),
        ("Acquire", "{\"maxOutputTokens\": true}"),
        ("Acquire", "{\"maxOutputTokens\": 4294967296}"),
        ("Acquire", "{\"actionType\": \"ChatCompletion\"}"),
        ("Acquire", "{\"principalType\": \"robot\"}"),
        (
            "Acquire",
            "{\"requestedTools\": [{\"toolId\": \"x\", \"category\": \"Exec\"}]}",
        ),
        ("Acquire", "{\"idempotencyKey\": 5}"),
        (
            "Release",
            "{\"leaseId\": \"lease-1\", \"actualCostCents\": -5}",
        ),
        ("Release", "{\"leaseId\": \"lease-1\", \"outcome\": \"ok\"}"),
        ("RequestApproval", "{\"ttlSeconds\": \"300\"}"),
        ("ReviewApproval", "{\"approve\": \"yes\"}"),
        ("StagePolicyBundle", "{\"version\": 3}"),
        ("ExportAudit", "{\"fromLine\": -1}"),
        ("NoSuchCommand", "{}"),
        ("acquire", "{}"),
        ("Acquire", "{\"contextContributions\": {\"a\": 1}}"),
        ("Acquire", "\"\\ud800\""),
    ];
    for (cmd, payload) in cases {
        let env: Value = serde_json::from_str(&g.handle(cmd, payload)).unwrap();
        assert_eq!(
            env["success"],
            json!(false),
            "{cmd} {payload} should fail: {env}"
        );
        assert!(!env["error"].as_str().unwrap().is_empty());
    }
    assert_eq!(
        before,
        state_json(&g),
        "a malformed payload changed the state"
    );
    // Frames: oversize, short, garbage.
    for frame in [
        vec![],
        vec![1, 0],
        (16_777_217i32).to_le_bytes().to_vec(),
        (-4i32).to_le_bytes().to_vec(),
        {
            let mut f = 10i32.to_le_bytes().to_vec();
            f.extend_from_slice(b"{\"a\"");
            f
        },
        encode_frame(b"{\"command\": 5}").unwrap(),
        encode_frame(&[0xff, 0xfe]).unwrap(),
    ] {
        let out = g.handle_frame(&frame);
        let (payload, _) = decode_frame(&out).unwrap();
        let env: Value = serde_json::from_slice(payload).unwrap();
        assert_eq!(env["success"], json!(false));
    }
    assert_eq!(
        before,
        state_json(&g),
        "a malformed frame changed the state"
    );
    // A good frame round-trips.
    let req = serde_json::to_vec(
        &json!({"protocolVersion": "0.1", "command": "GetMetrics", "payloadJson": "{}"}),
    )
    .unwrap();
    let out = g.handle_frame(&encode_frame(&req).unwrap());
    let env: Value = serde_json::from_slice(decode_frame(&out).unwrap().0).unwrap();
    assert_eq!(env["success"], json!(true));
}

#[test]
fn no_effect_without_audit() {
    let clock = Arc::new(ManualClock::new(Timestamp::from_unix_millis(START_MS)));
    let store = Arc::new(MemoryStore::new());
    let g = Governor::new(
        policy(),
        GovernorOptions::default(),
        store.clone(),
        clock,
        IdSource::Deterministic,
    )
    .unwrap();
    let granted = g
        .acquire(AcquireRequest {
            actor_id: "a".into(),
            ..AcquireRequest::default()
        })
        .unwrap();
    assert!(granted.granted);
    store.set_audit_unavailable(true);
    let denied = g
        .acquire(AcquireRequest {
            actor_id: "b".into(),
            ..AcquireRequest::default()
        })
        .unwrap();
    assert_eq!(denied.denied_reason, "audit_unavailable");
    assert_eq!(denied.retry_after_ms, Some(1000));
    assert!(
        g.release(ReleaseRequest {
            lease_id: granted.lease_id.clone(),
            ..ReleaseRequest::default()
        })
        .is_err()
    );
    let m = g.metrics().unwrap();
    assert_eq!(m.active_leases, 1);
    assert_eq!(m.failed_audit_writes, 2);
    store.set_audit_unavailable(false);
    let r = g
        .release(ReleaseRequest {
            lease_id: granted.lease_id,
            ..ReleaseRequest::default()
        })
        .unwrap();
    assert_eq!(r.classification, ReleaseClassification::Recorded);
    assert!(g.verify_audit().unwrap().ok);
}
