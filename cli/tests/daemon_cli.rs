//! `leasekit gov` against a real daemon: status, metrics, approvals, policy stage / activate /
//! rollback, audit export (verified by `leasekit audit verify` and by core's verifier), text
//! and JSON.

mod daemon;

use std::os::unix::process::CommandExt;
use std::process::{Command, Output};

use daemon::Daemon;
use leasekit::governor::wire::{AcquireRequest, ApprovalRequest, ReleaseRequest};
use serde_json::{Value, json};

fn gov(d: &Daemon, args: &[&str]) -> Output {
    Command::new(daemon::leasekit_bin())
        .arg("gov")
        .arg("--socket")
        .arg(&d.socket)
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
}

fn text(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn json_of(o: &Output) -> Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {}{}",
            text(o),
            String::from_utf8_lossy(&o.stderr)
        )
    })
}

fn start_with(extra: &[&str]) -> Daemon {
    let dir = daemon::temp_dir("cli");
    let p = dir.join("policy.json");
    std::fs::write(
        &p,
        json!({"policyVersion": "v1", "maxInFlight": 4,
            "toolRegistry": [{"toolId": "deploy", "category": "exec"}],
            "approvalRequiredToolCategories": ["exec"]})
        .to_string(),
    )
    .unwrap();
    let mut args = vec!["--policy".to_string(), p.display().to_string()];
    args.extend(extra.iter().map(|a| a.to_string()));
    Daemon::start_in(&dir, args)
}

fn start() -> Daemon {
    start_with(&[])
}

#[test]
fn status_and_metrics() {
    let d = start();
    let c = d.client();
    let g = c
        .acquire(AcquireRequest {
            actor_id: "a".into(),
            estimated_cost_cents: 4,
            ..Default::default()
        })
        .unwrap();
    let o = gov(&d, &["status"]);
    assert!(o.status.success());
    let t = text(&o);
    assert!(
        t.contains("healthy") && t.contains("v1") && t.contains("active leases      1"),
        "{t}"
    );
    assert!(t.contains("governor.db (durable)"), "{t}");
    let s = json_of(&gov(&d, &["status", "--format", "json"]));
    assert_eq!(s["activeLeases"], 1);
    assert_eq!(s["policyVersion"], "v1");
    c.release(ReleaseRequest {
        lease_id: g.lease_id,
        actual_cost_cents: 3,
        ..Default::default()
    })
    .unwrap();
    let m = json_of(&gov(&d, &["metrics", "--format", "json"]));
    assert_eq!(m["activeLeases"], 0);
    assert_eq!(m["spendTodayCents"], 3);
    assert_eq!(m["grantsByReason"]["granted"], 1);
    let t = text(&gov(&d, &["metrics"]));
    assert!(
        t.contains("spend today          3 cents") && t.contains("granted"),
        "{t}"
    );
}

#[test]
fn approvals_list_and_review() {
    // The approval is requested by another uid than the reviewing one: a uid never reviews
    // an approval it requested (SEMANTICS 13.16), so this needs root to act as a second uid.
    if leasekit_serve::listener::current_uid() != 0 {
        eprintln!("SKIP: needs root to request as a second uid");
        return;
    }
    let d = start_with(&["--socket-mode", "666"]);
    let c = d.client();
    let request = ApprovalRequest {
        actor_id: "bot".into(),
        workspace_id: "w".into(),
        requested_by: "bot".into(),
        reason: "deploy to staging".into(),
        tool_id: "deploy".into(),
        ..Default::default()
    };
    let o = Command::new(daemon::leasekit_bin_for_any_uid())
        .arg("gov")
        .arg("--socket")
        .arg(&d.socket)
        .args(["call", "RequestApproval"])
        .arg(serde_json::to_string(&request).unwrap())
        .uid(65534)
        .gid(65534)
        .output()
        .unwrap();
    let a: leasekit::governor::wire::ApprovalRequestResponse =
        serde_json::from_value(json_of(&o)["payload"].clone()).unwrap();
    let o = gov(&d, &["approvals"]);
    assert!(o.status.success());
    assert!(
        text(&o).contains(&a.approval_id) && text(&o).contains("deploy to staging"),
        "{}",
        text(&o)
    );
    let l = json_of(&gov(&d, &["approvals", "list", "--format", "json"]));
    assert_eq!(l["items"].as_array().unwrap().len(), 1);
    // Self-review is refused: exit 1, the approval stays pending.
    let o = gov(
        &d,
        &[
            "approvals",
            "review",
            &a.approval_id,
            "--approve",
            "--reviewer",
            "bot",
        ],
    );
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains("self_review_not_allowed"), "{}", text(&o));
    // An unknown id: refused, exit 1.
    let o = gov(&d, &["approvals", "review", "approval-999", "--deny"]);
    assert_eq!(o.status.code(), Some(1));
    // A reviewer grants it: the token is shown once and works.
    let o = gov(
        &d,
        &[
            "approvals",
            "review",
            &a.approval_id,
            "--approve",
            "--reviewer",
            "alice",
            "--format",
            "json",
        ],
    );
    assert!(o.status.success(), "{}", text(&o));
    let r = json_of(&o);
    assert_eq!(r["status"], "granted");
    let token = r["approvalToken"].as_str().unwrap().to_string();
    let g = c
        .acquire(AcquireRequest {
            actor_id: "bot".into(),
            workspace_id: "w".into(),
            requested_tools: vec![leasekit::governor::wire::ToolIntent {
                tool_id: "deploy".into(),
                category: leasekit::governor::wire::ToolCategory::Exec,
            }],
            approval_token: token,
            ..Default::default()
        })
        .unwrap();
    assert!(g.granted, "{}", g.denied_reason);
    assert!(text(&gov(&d, &["approvals"])).contains("no pending approvals"));
}

#[test]
fn policy_stage_activate_rollback() {
    let d = start();
    let p2 = d.dir.join("p2.json");
    std::fs::write(&p2, json!({"maxInFlight": 1}).to_string()).unwrap();
    // Without --version a plain policy is a usage error.
    assert_eq!(
        gov(&d, &["policy", "stage", p2.to_str().unwrap()])
            .status
            .code(),
        Some(2)
    );
    let o = gov(
        &d,
        &["policy", "stage", p2.to_str().unwrap(), "--version", "v2"],
    );
    assert!(
        o.status.success(),
        "{}{}",
        text(&o),
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(text(&o).contains("policy staged"), "{}", text(&o));
    // Activating another version than the staged one is refused (exit 1).
    let o = gov(&d, &["policy", "activate", "v9"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let o = gov(&d, &["policy", "activate", "v2", "--format", "json"]);
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(json_of(&o)["activePolicyVersion"], "v2");
    // The new capacity is in force at once.
    let c = d.client();
    assert!(
        c.acquire(AcquireRequest {
            actor_id: "a".into(),
            ..Default::default()
        })
        .unwrap()
        .granted
    );
    let second = c
        .acquire(AcquireRequest {
            actor_id: "b".into(),
            ..Default::default()
        })
        .unwrap();
    assert_eq!(second.denied_reason, "concurrency_limit_reached");
    let o = gov(&d, &["policy", "rollback", "v1"]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("active version v1"), "{}", text(&o));
    let o = gov(&d, &["policy", "rollback", "never"]);
    assert_eq!(o.status.code(), Some(1));
    // A non-JSON policy is refused by the daemon (an answer): exit 1.
    let bad = d.dir.join("bad.json");
    std::fs::write(&bad, "{\"maxInFlight\": -1}").unwrap();
    let o = gov(
        &d,
        &["policy", "stage", bad.to_str().unwrap(), "--version", "v3"],
    );
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
}

#[test]
fn audit_export_and_verify() {
    let d = start();
    let c = d.client();
    for i in 0..3 {
        let g = c
            .acquire(AcquireRequest {
                actor_id: format!("a{i}"),
                estimated_cost_cents: 1,
                ..Default::default()
            })
            .unwrap();
        c.release(ReleaseRequest {
            lease_id: g.lease_id,
            ..Default::default()
        })
        .unwrap();
    }
    let out = d.dir.join("audit.jsonl");
    let o = gov(&d, &["audit", "export", "-o", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(text(&o).contains("wrote 6 audit records"), "{}", text(&o));
    let lines: Vec<String> = std::fs::read_to_string(&out)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    assert_eq!(lines.len(), 6);
    let v = leasekit::governor::verify_audit(lines.iter().map(String::as_str));
    assert!(v.ok, "{v:?}");
    // `leasekit audit verify` accepts the exported file.
    let o = Command::new(daemon::leasekit_bin())
        .args(["audit", "verify"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "{}{}",
        text(&o),
        String::from_utf8_lossy(&o.stderr)
    );
    // A range.
    let o = gov(&d, &["audit", "export", "--from", "2", "--to", "3"]);
    assert_eq!(text(&o).lines().count(), 2);
    let o = gov(&d, &["audit", "verify"]);
    assert!(o.status.success());
    assert!(text(&o).contains("6 records"), "{}", text(&o));
    // Tampered: the exported file with one byte changed no longer verifies.
    let tampered: Vec<String> = lines
        .iter()
        .enumerate()
        .map(|(i, l)| {
            if i == 2 {
                l.replacen("\"a1\"", "\"a9\"", 1)
            } else {
                l.clone()
            }
        })
        .collect();
    let v = leasekit::governor::verify_audit(tampered.iter().map(String::as_str));
    assert!(!v.ok);
    assert_eq!(v.first_bad_line, Some(3));
}

#[test]
fn unreachable_daemon_is_exit_2() {
    let dir = daemon::temp_dir("none");
    let o = Command::new(daemon::leasekit_bin())
        .args(["gov", "--socket"])
        .arg(dir.join("none.sock"))
        .arg("status")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("unreachable"));
    let _ = std::fs::remove_dir_all(dir);
}
