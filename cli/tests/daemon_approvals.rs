//! Reviewers behind a real `leasekit serve` (SEMANTICS 13.14, 13.16 "Reviewers"): a review
//! records the reviewer's uid, reviews from one uid count once toward a quorum whatever
//! reviewer ids it uses, and a uid never reviews an approval it requested. The tests run as
//! root and act as other uids through `Command::uid` (setuid before exec).

mod daemon;

use std::os::unix::process::CommandExt;
use std::process::Command;

use daemon::Daemon;
use serde_json::{Value, json};

const A: u32 = 65534;
const B: u32 = 65533;
const C: u32 = 65532;

fn is_root() -> bool {
    leasekit_serve::listener::current_uid() == 0
}

/// A raw command as `uid` through `leasekit gov call`: (success, payload, error).
fn call_as(uid: u32, d: &Daemon, command: &str, payload: Value) -> (bool, Value, String) {
    let out = Command::new(daemon::leasekit_bin_for_any_uid())
        .arg("gov")
        .arg("--socket")
        .arg(&d.socket)
        .args(["call", command, &payload.to_string()])
        .env("NO_COLOR", "1")
        .uid(uid)
        .gid(uid)
        .output()
        .expect("run leasekit gov");
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

/// A daemon whose admins are uid 0, A, B and C, with exec needing three reviewers.
fn start() -> Daemon {
    let dir = daemon::temp_dir("appr");
    let pfile = dir.join("policy.json");
    std::fs::write(
        &pfile,
        json!({"policyVersion": "v1",
               "toolRegistry": [{"toolId": "sh", "category": "exec"}],
               "approvalRequiredToolCategories": ["exec"],
               "approvalReviewersByToolCategory": {"exec": 3}})
        .to_string(),
    )
    .unwrap();
    let mut args = vec!["--policy".to_string(), pfile.display().to_string()];
    for a in ["--socket-mode", "666"] {
        args.push(a.into());
    }
    for uid in [0, A, B, C] {
        args.push("--admin-uid".into());
        args.push(uid.to_string());
    }
    Daemon::start_in(&dir, args)
}

fn review(uid: u32, d: &Daemon, id: &str, reviewer: &str) -> Value {
    let (ok, p, e) = call_as(
        uid,
        d,
        "ReviewApproval",
        json!({"approvalId": id, "reviewerId": reviewer, "approve": true}),
    );
    assert!(ok, "{e}");
    p
}

#[test]
fn one_uid_counts_once_toward_a_quorum_whatever_ids_it_reviews_as() {
    if !is_root() {
        eprintln!("SKIP: needs root to act as other uids");
        return;
    }
    let d = start();
    let (ok, r, e) = call_as(
        A,
        &d,
        "RequestApproval",
        json!({"actorId": "agent", "workspaceId": "w", "requestedBy": "agent", "toolId": "sh"}),
    );
    assert!(ok, "{e}");
    assert_eq!(r["requiredReviewers"], 3, "{r}");
    let id = r["approvalId"].as_str().unwrap().to_string();
    // One admin uid, three reviewer names: one approval.
    for name in ["x1", "x2", "x3"] {
        let v = review(0, &d, &id, name);
        assert_eq!(v["status"], "pending", "{name}: {v}");
        assert_eq!(v["currentApprovals"], 1, "{name}: {v}");
    }
    let v = review(B, &d, &id, "y1");
    assert_eq!(v["currentApprovals"], 2, "{v}");
    assert_eq!(v["status"], "pending", "{v}");
    let v = review(C, &d, &id, "z1");
    assert_eq!(v["currentApprovals"], 3, "{v}");
    assert_eq!(v["status"], "granted", "{v}");
    let token = v["approvalToken"].as_str().unwrap().to_string();
    let (ok, g, e) = call_as(
        A,
        &d,
        "Acquire",
        json!({"actorId": "agent", "workspaceId": "w", "modelId": "m",
               "requestedTools": [{"toolId": "sh", "category": "exec"}],
               "approvalToken": token}),
    );
    assert!(ok, "{e}");
    assert_eq!(g["granted"], true, "{g}");
}

#[test]
fn the_uid_that_requested_an_approval_cannot_review_it() {
    if !is_root() {
        eprintln!("SKIP: needs root to act as other uids");
        return;
    }
    let d = start();
    let (ok, r, e) = call_as(
        B,
        &d,
        "RequestApproval",
        json!({"actorId": "agent", "workspaceId": "w", "requestedBy": "agent", "toolId": "sh"}),
    );
    assert!(ok, "{e}");
    let id = r["approvalId"].as_str().unwrap().to_string();
    // Another reviewer id from the requesting uid is still a self-review.
    for name in ["boss", "someone-else"] {
        let v = review(B, &d, &id, name);
        assert_eq!(v["message"], "self_review_not_allowed", "{v}");
        assert_eq!(v["currentApprovals"], 0, "{v}");
    }
    let (ok, v, e) = call_as(
        B,
        &d,
        "GrantApproval",
        json!({"approvalId": id, "grantedBy": "boss"}),
    );
    assert!(ok, "{e}");
    assert_eq!(v["message"], "self_review_not_allowed", "{v}");
    // Other uids may.
    assert_eq!(review(0, &d, &id, "boss")["currentApprovals"], 1);
}

#[test]
fn gov_approvals_list_pages_and_escapes_client_text() {
    let d = start();
    let client = d.client();
    for i in 0..120 {
        let r = client
            .request_approval(leasekit::governor::wire::ApprovalRequest {
                actor_id: "agent".into(),
                workspace_id: "w".into(),
                requested_by: format!("user{i}"),
                reason: if i == 0 {
                    "\u{1b}[2Jwipe\nfake line".into()
                } else {
                    "deploy".into()
                },
                ..Default::default()
            })
            .unwrap();
        assert_eq!(r.message, "approval request created");
    }
    let gov = |args: &[&str]| {
        let out = Command::new(daemon::leasekit_bin())
            .arg("gov")
            .arg("--socket")
            .arg(&d.socket)
            .args(args)
            .env("NO_COLOR", "1")
            .output()
            .expect("run leasekit gov");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let first = gov(&["approvals", "list"]);
    let ids: Vec<&str> = first
        .lines()
        .filter(|l| l.contains("  pending  "))
        .map(|l| l.split_whitespace().next().unwrap())
        .collect();
    assert_eq!(ids.len(), 100, "{first}");
    assert!(!first.contains('\u{1b}'), "{first:?}");
    assert!(first.contains("\\u{1b}[2Jwipe\\nfake line"), "{first}");
    assert!(first.contains("single-use"), "{first}");
    let more = first
        .lines()
        .find_map(|l| l.strip_prefix("more: leasekit gov approvals list --after "))
        .unwrap_or_else(|| panic!("no next page: {first}"));
    assert_eq!(more, *ids.last().unwrap());
    let second = gov(&["approvals", "list", "--after", more]);
    let rest = second.lines().filter(|l| l.contains("  pending  ")).count();
    assert_eq!(rest, 20, "{second}");
    assert!(!second.contains("more:"), "{second}");
    let small = gov(&["approvals", "list", "--limit", "3", "--format", "json"]);
    let v: Value = serde_json::from_str(&small).unwrap();
    assert_eq!(v["items"].as_array().unwrap().len(), 3, "{v}");
    assert_eq!(v["nextAfterApprovalId"], v["items"][2]["approvalId"], "{v}");
}
