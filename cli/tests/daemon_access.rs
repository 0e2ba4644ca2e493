//! Daemon access with two real uids (SEMANTICS 13.14): the tests run as root and start client
//! processes as uid 65534 (`nobody`) through `Command::uid` (setuid before exec), so the
//! daemon sees a second uid through SO_PEERCRED. Without root they cannot run and say so.
//! The same holds for a fleet of daemons on one throwaway PostgreSQL (`core/tests/pg/mod.rs`),
//! and a peer's safety state and `uidBindings` are its own (SEMANTICS 13.16).

mod daemon;
#[path = "../../core/tests/pg/mod.rs"]
mod pg;

use std::os::unix::process::CommandExt;
use std::process::{Command, Output};

use daemon::Daemon;
use leasekit::governor::wire::{AcquireRequest, ReleaseRequest, ToolIntent};
use serde_json::{Value, json};

const OTHER: u32 = 65534;

fn is_root() -> bool {
    leasekit_serve::listener::current_uid() == 0
}

/// `leasekit gov --socket S ARGS...` run as `uid`.
fn gov_as(uid: u32, d: &Daemon, args: &[&str]) -> Output {
    Command::new(daemon::leasekit_bin_for_any_uid())
        .arg("gov")
        .arg("--socket")
        .arg(&d.socket)
        .args(args)
        .env("NO_COLOR", "1")
        .uid(uid)
        .gid(uid)
        .output()
        .expect("run leasekit gov")
}

/// A raw command as `uid`: (success, payload, error).
fn call_as(uid: u32, d: &Daemon, command: &str, payload: Value) -> (bool, Value, String) {
    let out = gov_as(uid, d, &["call", command, &payload.to_string()]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (
        v["success"] == true,
        v["payload"].clone(),
        v["error"].as_str().unwrap_or_default().to_string(),
    )
}

fn start(extra: &[&str]) -> Daemon {
    let dir = daemon::temp_dir("acc");
    let pfile = dir.join("policy.json");
    std::fs::write(
        &pfile,
        json!({"policyVersion": "v1", "toolRegistry": [{"toolId": "t", "category": "other"}]})
            .to_string(),
    )
    .unwrap();
    let mut args = vec!["--policy".to_string(), pfile.display().to_string()];
    args.extend(extra.iter().map(|s| s.to_string()));
    Daemon::start_in(&dir, args)
}

#[test]
fn owner_only_socket_keeps_other_uids_out() {
    if !is_root() {
        eprintln!("SKIP: needs root to act as a second uid");
        return;
    }
    let d = start(&[]);
    let out = gov_as(OTHER, &d, &["status"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("PERMISSION_DENIED") && err.contains("owner-only"),
        "{err}"
    );
    // And nothing is decided locally for it either (gov never falls back).
    assert_eq!(d.client().metrics().unwrap().active_leases, 0);
}

#[test]
fn another_uid_cannot_touch_a_lease_or_run_admin_commands() {
    if !is_root() {
        eprintln!("SKIP: needs root to act as a second uid");
        return;
    }
    let d = start(&["--socket-mode", "666"]);
    let root = d.client();
    let grant = root
        .acquire(AcquireRequest {
            actor_id: "alice".into(),
            workspace_id: "w".into(),
            estimated_cost_cents: 7,
            requested_tools: vec![ToolIntent {
                tool_id: "t".into(),
                ..ToolIntent::default()
            }],
            requested_lease: Some(json!({"fs.read": ["/data/**"]})),
            ..AcquireRequest::default()
        })
        .unwrap();
    assert!(grant.granted, "{grant:?}");
    let id = grant.lease_id.clone();
    let sub = root
        .request_tool_sub_lease(leasekit::governor::wire::ToolSubLeaseRequest {
            lease_id: id.clone(),
            tool_id: "t".into(),
            ..Default::default()
        })
        .unwrap();
    assert!(sub.granted);

    // uid 65534 on uid 0's lease: exactly what an unknown lease gets.
    let (ok, p, _) = call_as(
        OTHER,
        &d,
        "Release",
        json!({"leaseId": id, "actualCostCents": 0}),
    );
    assert!(ok);
    assert_eq!(p["classification"], "leaseNotFound");
    let (_, unknown, _) = call_as(OTHER, &d, "Release", json!({"leaseId": "nope"}));
    assert_eq!(p, unknown, "a foreign lease must look like an unknown one");
    let (ok, p, _) = call_as(
        OTHER,
        &d,
        "RequestToolSubLease",
        json!({"leaseId": id, "toolId": "t"}),
    );
    assert!(ok);
    assert_eq!(p["granted"], false);
    assert_eq!(p["deniedReason"], "lease_not_found");
    let (_, p, _) = call_as(
        OTHER,
        &d,
        "Authorize",
        json!({"leaseId": id, "capability": "fs.read", "target": "/data/x"}),
    );
    assert_eq!(p["allowed"], false);
    assert_eq!(p["deniedReason"], "lease_not_found");
    let (_, p, _) = call_as(
        OTHER,
        &d,
        "ExecuteToolCall",
        json!({"leaseId": id,
        "toolSubLeaseId": sub.tool_sub_lease_id, "toolId": "t"}),
    );
    assert_eq!(p["allowed"], false);
    assert_eq!(p["deniedReason"], "tool_sublease_not_found");

    // Admin commands: refused, nothing changed.
    let appr = root
        .request_approval(leasekit::governor::wire::ApprovalRequest {
            actor_id: "bob".into(),
            workspace_id: "w".into(),
            requested_by: "bob".into(),
            tool_id: "t".into(),
            ..Default::default()
        })
        .unwrap();
    for (cmd, payload) in [
        (
            "GrantApproval",
            json!({"approvalId": appr.approval_id, "grantedBy": "mallory"}),
        ),
        (
            "DenyApproval",
            json!({"approvalId": appr.approval_id, "deniedBy": "mallory"}),
        ),
        (
            "ReviewApproval",
            json!({"approvalId": appr.approval_id, "reviewerId": "mallory", "approve": true}),
        ),
        (
            "StagePolicyBundle",
            json!({"version": "evil", "policyContentJson": "{\"maxInFlight\": 1000}"}),
        ),
        ("ActivatePolicy", json!({"version": "evil"})),
        ("RollbackPolicy", json!({"version": "v1"})),
        ("ExportAudit", json!({})),
        ("VerifyAudit", json!({})),
        ("ExportDiagnostics", json!({})),
    ] {
        let (ok, _, err) = call_as(OTHER, &d, cmd, payload);
        assert!(!ok && err.starts_with("permission_denied"), "{cmd}: {err}");
    }
    // The operator CLI says so and exits 2.
    let out = gov_as(
        OTHER,
        &d,
        &[
            "approvals",
            "review",
            &appr.approval_id,
            "--approve",
            "--reviewer",
            "m",
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("PERMISSION_DENIED"));
    let pol = d.dir.join("evil.json");
    std::fs::write(&pol, "{\"maxInFlight\": 1000}").unwrap();
    let out = gov_as(
        OTHER,
        &d,
        &[
            "policy",
            "stage",
            pol.to_str().unwrap(),
            "--version",
            "evil",
        ],
    );
    assert_eq!(out.status.code(), Some(2));

    // It may still use the governor for itself, and its leases are its own.
    let (ok, mine, _) = call_as(
        OTHER,
        &d,
        "Acquire",
        json!({"actorId": "nob", "estimatedCostCents": 2}),
    );
    assert!(ok && mine["granted"] == true, "{mine}");
    let theirs = root
        .release(ReleaseRequest {
            lease_id: mine["leaseId"].as_str().unwrap().into(),
            ..ReleaseRequest::default()
        })
        .unwrap();
    assert_eq!(
        theirs.classification.as_str(),
        "leaseNotFound",
        "root is not the owner either"
    );
    let (_, p, _) = call_as(
        OTHER,
        &d,
        "Release",
        json!({"leaseId": mine["leaseId"], "actualCostCents": 1}),
    );
    assert_eq!(p["classification"], "recorded");

    // uid 0's lease, approval and policy are as they were.
    let status = root.status().unwrap();
    assert_eq!(status.policy_version, "v1");
    assert_eq!(status.active_leases, 1);
    assert_eq!(status.pending_approvals, 1);
    let rel = root
        .release(ReleaseRequest {
            lease_id: id,
            actual_cost_cents: 5,
            ..ReleaseRequest::default()
        })
        .unwrap();
    assert_eq!(rel.classification.as_str(), "recorded");
    assert_eq!(root.metrics().unwrap().spend_today_cents, 5 + 1);
}

#[test]
fn admin_uids_are_the_configured_ones() {
    if !is_root() {
        eprintln!("SKIP: needs root to act as a second uid");
        return;
    }
    let other = OTHER.to_string();
    let d = start(&["--socket-mode", "666", "--admin-uid", &other]);
    let appr = d
        .client()
        .request_approval(leasekit::governor::wire::ApprovalRequest {
            actor_id: "bob".into(),
            workspace_id: "w".into(),
            requested_by: "bob".into(),
            ..Default::default()
        })
        .unwrap();
    // uid 0 is no longer an admin here.
    let e = d
        .client()
        .list_pending_approvals(Default::default())
        .unwrap_err();
    assert_eq!(e.code(), leasekit::ErrorCode::PermissionDenied);
    // uid 65534 is, through the operator CLI.
    let out = gov_as(OTHER, &d, &["approvals", "list"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains(&appr.approval_id));
    let out = gov_as(
        OTHER,
        &d,
        &[
            "approvals",
            "review",
            &appr.approval_id,
            "--approve",
            "--reviewer",
            "carol",
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("granted"));
}

/// A daemon in a fresh directory with `policy` and `args`.
fn start_with(policy: &Value, args: &[&str]) -> Daemon {
    let dir = daemon::temp_dir("accp");
    let pfile = dir.join("policy.json");
    std::fs::write(&pfile, policy.to_string()).unwrap();
    let mut all = vec!["--policy".to_string(), pfile.display().to_string()];
    all.extend(args.iter().map(|s| s.to_string()));
    Daemon::start_in(&dir, all)
}

#[test]
fn another_uid_is_isolated_on_every_daemon_of_a_postgres_fleet() {
    if !is_root() {
        eprintln!("SKIP: needs root to act as a second uid");
        return;
    }
    let pg = pg::TempPostgres::start();
    let url = pg.fresh_db("peers");
    let policy = json!({"policyVersion": "v1",
        "toolRegistry": [{"toolId": "t", "category": "other"}],
        "allowedModels": ["good"], "policyDenyCircuitBreakerThreshold": 2,
        "safetyCooldownMs": 60000, "retryThresholdPerLease": 100});
    let args = ["--store", url.as_str(), "--socket-mode", "666"];
    let (d1, d2) = (start_with(&policy, &args), start_with(&policy, &args));
    let req = json!({"actorId": "alice", "workspaceId": "w", "modelId": "good",
        "estimatedCostCents": 2, "idempotencyKey": "k",
        "requestedTools": [{"toolId": "t"}], "requestedLease": {"fs.read": ["/data/**"]}});
    let (ok, grant, e) = call_as(0, &d1, "Acquire", req.clone());
    assert!(ok && grant["granted"] == true, "{grant} {e}");
    let id = grant["leaseId"].as_str().unwrap().to_string();
    let (_, sub, _) = call_as(
        0,
        &d1,
        "RequestToolSubLease",
        json!({"leaseId": id, "toolId": "t"}),
    );
    assert_eq!(sub["granted"], true, "{sub}");

    let mut own = None;
    for d in [&d1, &d2] {
        let (_, p, _) = call_as(OTHER, d, "Release", json!({"leaseId": id}));
        assert_eq!(p["classification"], "leaseNotFound", "{p}");
        let (_, p, _) = call_as(
            OTHER,
            d,
            "RequestToolSubLease",
            json!({"leaseId": id, "toolId": "t"}),
        );
        assert_eq!(p["deniedReason"], "lease_not_found", "{p}");
        let (_, p, _) = call_as(
            OTHER,
            d,
            "Authorize",
            json!({"leaseId": id, "capability": "fs.read", "target": "/data/x"}),
        );
        assert_eq!(p["deniedReason"], "lease_not_found", "{p}");
        let (_, p, _) = call_as(
            OTHER,
            d,
            "ExecuteToolCall",
            json!({"leaseId": id, "toolSubLeaseId": sub["toolSubLeaseId"], "toolId": "t"}),
        );
        assert_eq!(p["deniedReason"], "tool_sublease_not_found", "{p}");
        // uid 0's key and request: a grant of uid 65534's own, replayed only to it.
        let (_, p, _) = call_as(OTHER, d, "Acquire", req.clone());
        assert_eq!(p["granted"], true, "{p}");
        assert_ne!(p["leaseId"], grant["leaseId"], "{p}");
        let first = own.get_or_insert_with(|| p["leaseId"].clone());
        assert_eq!(*first, p["leaseId"]);
    }
    // uid 65534's policy denials trip its own breaker on the workspace, not uid 0's.
    for _ in 0..2 {
        let (_, p, _) = call_as(
            OTHER,
            &d2,
            "Acquire",
            json!({"actorId": "alice", "workspaceId": "w", "modelId": "bad"}),
        );
        assert_eq!(p["deniedReason"], "model_not_allowed", "{p}");
    }
    let (_, p, _) = call_as(
        OTHER,
        &d1,
        "Acquire",
        json!({"actorId": "alice", "workspaceId": "w", "modelId": "good"}),
    );
    assert_eq!(p["deniedReason"], "workspace_circuit_breaker", "{p}");
    let (_, p, _) = call_as(
        0,
        &d2,
        "Acquire",
        json!({"actorId": "alice", "workspaceId": "w", "modelId": "good"}),
    );
    assert_eq!(p["granted"], true, "{p}");
    // The owner still acts on its lease through the other daemon.
    let (_, p, _) = call_as(
        0,
        &d2,
        "Authorize",
        json!({"leaseId": id, "capability": "fs.read", "target": "/data/x"}),
    );
    assert_eq!(p["allowed"], true, "{p}");
    let (_, p, _) = call_as(
        0,
        &d2,
        "Release",
        json!({"leaseId": id, "actualCostCents": 1}),
    );
    assert_eq!(p["classification"], "recorded", "{p}");
}

#[test]
fn another_uid_cannot_trip_safety_state_or_name_unbound_ids() {
    if !is_root() {
        eprintln!("SKIP: needs root to act as a second uid");
        return;
    }
    let policy = json!({"policyVersion": "v1",
    "toolRegistry": [{"toolId": "t", "category": "other"}],
    "allowedModels": ["good"], "policyDenyCircuitBreakerThreshold": 2,
    "retryThresholdPerLease": 2, "safetyCooldownMs": 60000, "toolLoopThreshold": 3,
    "actorDailyBudgetCents": {"alice": 5},
    "uidBindings": {
        "0": {"orgIds": ["*"], "workspaceIds": ["*"], "actorIds": ["*"]},
        "65534": {"orgIds": ["default-org"], "workspaceIds": ["w"], "actorIds": ["nob"]}
    }});
    let d = start_with(&policy, &["--socket-mode", "666"]);
    // Naming uid 0's actor: denied, and its quota untouched.
    let (_, p, _) = call_as(
        OTHER,
        &d,
        "Acquire",
        json!({"actorId": "alice", "workspaceId": "w", "modelId": "good", "estimatedCostCents": 5}),
    );
    assert_eq!(p["deniedReason"], "identity_not_bound", "{p}");
    let (_, p, _) = call_as(
        OTHER,
        &d,
        "Acquire",
        json!({"actorId": "nob", "workspaceId": "elsewhere", "modelId": "good"}),
    );
    assert_eq!(p["deniedReason"], "identity_not_bound", "{p}");
    let (_, p, _) = call_as(
        0,
        &d,
        "Acquire",
        json!({"actorId": "alice", "workspaceId": "w", "modelId": "good", "estimatedCostCents": 5,
            "requestedTools": [{"toolId": "t"}]}),
    );
    assert_eq!(p["granted"], true, "{p}");
    let lease = p["leaseId"].as_str().unwrap().to_string();
    let (_, sub, _) = call_as(
        0,
        &d,
        "RequestToolSubLease",
        json!({"leaseId": lease, "toolId": "t", "requestedCalls": 5}),
    );
    assert_eq!(sub["granted"], true, "{sub}");

    // uid 65534 trips its own breaker (policy denials) and cooldown (a retry storm) on
    // names it is bound to; uid 0 uses the same workspace and actor names freely.
    for _ in 0..2 {
        let (_, p, _) = call_as(
            OTHER,
            &d,
            "Acquire",
            json!({"actorId": "nob", "workspaceId": "w", "modelId": "bad"}),
        );
        assert_eq!(p["deniedReason"], "model_not_allowed", "{p}");
    }
    for _ in 0..3 {
        call_as(
            OTHER,
            &d,
            "Acquire",
            json!({"actorId": "nob", "workspaceId": "w", "modelId": "good", "idempotencyKey": "r"}),
        );
    }
    let (_, p, _) = call_as(
        OTHER,
        &d,
        "Acquire",
        json!({"actorId": "nob", "workspaceId": "w", "modelId": "good"}),
    );
    assert_eq!(p["granted"], false, "{p}");
    let (_, p, _) = call_as(
        0,
        &d,
        "Acquire",
        json!({"actorId": "nob", "workspaceId": "w", "modelId": "good"}),
    );
    assert_eq!(
        p["granted"], true,
        "uid 65534's safety state tripped uid 0's: {p}"
    );

    // Tool calls on uid 0's lease, or on a lease that does not exist, count for nothing.
    for junk in ["junk", "junk", "junk", lease.as_str(), lease.as_str()] {
        let (_, p, _) = call_as(
            OTHER,
            &d,
            "ExecuteToolCall",
            json!({"leaseId": junk, "toolSubLeaseId": sub["toolSubLeaseId"], "toolId": "t"}),
        );
        assert_eq!(p["deniedReason"], "tool_sublease_not_found", "{p}");
    }
    for _ in 0..2 {
        let (_, p, _) = call_as(
            0,
            &d,
            "ExecuteToolCall",
            json!({"leaseId": lease, "toolSubLeaseId": sub["toolSubLeaseId"], "toolId": "t",
                "commandText": "cat"}),
        );
        assert_eq!(p["allowed"], true, "{p}");
    }
}
