//! Approvals under attack (SEMANTICS 13.6, 13.16 "Approval quorum at use", "Approval
//! limits", "Reviewers"): the quorum comes from the active policy, never from the requester;
//! reviewer ids compare normalized; TTL, queue and text sizes are bounded; the queue pages.

use leasekit::ErrorCode;
use leasekit::governor::open::EmbeddedGovernor;
use serde_json::{Value, json};

/// A memory governor with deterministic ids and a manual clock on `policy`.
fn gov(policy: Value) -> EmbeddedGovernor {
    EmbeddedGovernor::open(
        "memory",
        &policy.to_string(),
        r#"{"manualClock": "2026-03-01T12:00:00Z", "ids": "deterministic"}"#,
    )
    .unwrap()
}

/// `command` with `payload`: the response payload (panics on a refused call).
fn call(g: &EmbeddedGovernor, command: &str, payload: Value) -> Value {
    let text = g
        .governor()
        .call_json(command, &payload.to_string())
        .unwrap_or_else(|e| panic!("{command} {payload}: {e}"));
    serde_json::from_str(&text).unwrap()
}

/// `command` with `payload`, expected to be refused with `INVALID_REQUEST`: the message.
fn refused(g: &EmbeddedGovernor, command: &str, payload: Value) -> String {
    match g.governor().call_json(command, &payload.to_string()) {
        Ok(v) => panic!("{command} {payload}: accepted: {v}"),
        Err(e) => {
            assert_eq!(e.code(), ErrorCode::InvalidRequest, "{e}");
            e.message().to_string()
        }
    }
}

/// exec quorum 3, fileWrite quorum 2, both need approval.
fn quorum_policy() -> Value {
    json!({
        "toolRegistry": [
            {"toolId": "sh", "category": "exec"},
            {"toolId": "fw", "category": "fileWrite"},
            {"toolId": "fr", "category": "fileRead"},
            {"toolId": "misc", "category": "other"}
        ],
        "approvalRequiredToolCategories": ["exec", "fileWrite"],
        "approvalReviewersByToolCategory": {"exec": 3, "fileWrite": 2},
        "maxInFlight": 100, "maxComputeUnits": 100, "dailyBudgetCents": 100000
    })
}

fn acquire(g: &EmbeddedGovernor, tool: &str, category: &str, token: &str) -> Value {
    call(
        g,
        "Acquire",
        json!({"actorId": "alice", "workspaceId": "ws1", "modelId": "m", "estimatedCostCents": 1,
               "requestedTools": [{"toolId": tool, "category": category}],
               "approvalToken": token}),
    )
}

fn review(g: &EmbeddedGovernor, id: &str, reviewer: &str) -> Value {
    call(
        g,
        "ReviewApproval",
        json!({"approvalId": id, "reviewerId": reviewer, "approve": true}),
    )
}

fn request(g: &EmbeddedGovernor, extra: Value) -> Value {
    let mut p = json!({"actorId": "alice", "workspaceId": "ws1", "requestedBy": "alice",
                       "reason": "deploy"});
    for (k, v) in extra.as_object().unwrap() {
        p[k] = v.clone();
    }
    call(g, "RequestApproval", p)
}

#[test]
fn an_unscoped_approval_needs_the_largest_quorum_of_the_policy() {
    let g = gov(quorum_policy());
    let r = request(&g, json!({"singleUse": false, "ttlSeconds": 3600}));
    assert_eq!(r["requiredReviewers"], 3, "{r}");
    let id = r["approvalId"].as_str().unwrap();
    let one = review(&g, id, "rev1");
    assert_eq!(one["status"], "pending", "{one}");
    assert_eq!(one["approvalToken"], "", "{one}");
    review(&g, id, "rev2");
    let three = review(&g, id, "rev3");
    assert_eq!(three["status"], "granted", "{three}");
    let token = three["approvalToken"].as_str().unwrap();
    for _ in 0..2 {
        assert_eq!(acquire(&g, "sh", "exec", token)["granted"], true);
        assert_eq!(acquire(&g, "fw", "fileWrite", token)["granted"], true);
    }
}

#[test]
fn a_token_of_a_low_quorum_category_never_admits_a_higher_one() {
    let g = gov(quorum_policy());
    // The requester names a category with quorum 1 and has it approved by one reviewer.
    let r = request(&g, json!({"toolCategory": "other", "singleUse": false}));
    assert_eq!(r["requiredReviewers"], 1, "{r}");
    let t = review(&g, r["approvalId"].as_str().unwrap(), "rev1");
    let token = t["approvalToken"].as_str().unwrap();
    let exec = acquire(&g, "sh", "exec", token);
    assert_eq!(exec["granted"], false, "{exec}");
    assert_eq!(exec["deniedReason"], "approval_required");
    let fw = acquire(&g, "fw", "fileWrite", token);
    assert_eq!(fw["granted"], false, "{fw}");
    // A tool-scoped approval takes its quorum from the registry's category of the tool.
    let r = request(&g, json!({"toolId": "fw", "singleUse": false}));
    assert_eq!(r["requiredReviewers"], 2, "{r}");
    let id = r["approvalId"].as_str().unwrap();
    assert_eq!(review(&g, id, "rev1")["status"], "pending");
    let t = review(&g, id, "rev2");
    let token = t["approvalToken"].as_str().unwrap();
    assert_eq!(acquire(&g, "fw", "fileWrite", token)["granted"], true);
    // ... and covers only that tool.
    assert_eq!(acquire(&g, "sh", "exec", token)["granted"], false);
}

#[test]
fn a_category_that_contradicts_the_registry_is_refused() {
    let g = gov(quorum_policy());
    let r = request(&g, json!({"toolId": "sh", "toolCategory": "other"}));
    assert_eq!(r["message"], "tool_category_mismatch", "{r}");
    assert_eq!(r["approvalId"], "", "{r}");
    let q = call(&g, "ListPendingApprovals", json!({}));
    assert_eq!(q["items"].as_array().unwrap().len(), 0, "{q}");
    // The registry's own category is accepted.
    let r = request(&g, json!({"toolId": "SH", "toolCategory": "exec"}));
    assert_eq!(r["status"], "pending", "{r}");
    assert_eq!(r["requiredReviewers"], 3, "{r}");
}

#[test]
fn the_quorum_is_checked_again_at_use_for_a_sub_lease() {
    let g = gov(quorum_policy());
    // Approved for fileWrite by two reviewers, used for a sub-lease of an exec tool.
    let r = request(&g, json!({"toolCategory": "fileWrite", "singleUse": false}));
    let id = r["approvalId"].as_str().unwrap();
    review(&g, id, "rev1");
    let t = review(&g, id, "rev2");
    let fw_token = t["approvalToken"].as_str().unwrap().to_string();
    // An exec approval with three reviewers gets the lease.
    let r = request(&g, json!({"toolId": "sh"}));
    let id = r["approvalId"].as_str().unwrap();
    review(&g, id, "rev1");
    review(&g, id, "rev2");
    let t = review(&g, id, "rev3");
    let exec_token = t["approvalToken"].as_str().unwrap().to_string();
    let lease = acquire(&g, "sh", "exec", &exec_token);
    assert_eq!(lease["granted"], true, "{lease}");
    let sub = call(
        &g,
        "RequestToolSubLease",
        json!({"leaseId": lease["leaseId"], "toolId": "sh", "category": "exec",
               "approvalToken": fw_token}),
    );
    assert_eq!(sub["granted"], false, "{sub}");
    assert_eq!(sub["deniedReason"], "approval_required", "{sub}");
}

#[test]
fn reviewer_ids_compare_after_nfkc_case_folding_and_trimming() {
    let g = gov(quorum_policy());
    let r = request(&g, json!({"requestedBy": "Straße", "toolId": "fw"}));
    let id = r["approvalId"].as_str().unwrap();
    for me in [
        "Straße ",
        " STRASSE",
        "strasse",
        "\u{ff33}traße",
        "Stra\u{df}e\u{3000}",
    ] {
        let v = review(&g, id, me);
        assert_eq!(v["message"], "self_review_not_allowed", "{me:?}: {v}");
    }
    // One reviewer under several spellings counts once.
    assert_eq!(review(&g, id, "bob")["currentApprovals"], 1);
    let v = review(&g, id, " BOB ");
    assert_eq!(v["currentApprovals"], 1, "{v}");
    assert_eq!(v["status"], "pending", "{v}");
    let v = review(&g, id, "\u{ff42}\u{ff4f}\u{ff42}");
    assert_eq!(v["status"], "pending", "{v}");
    let v = review(&g, id, "carol");
    assert_eq!(v["status"], "granted", "{v}");
    // A reviewer id that is only white space is no reviewer.
    let r = request(&g, json!({"toolId": "fw"}));
    let v = review(&g, r["approvalId"].as_str().unwrap(), " \u{3000}\t");
    assert_eq!(v["message"], "reviewer required", "{v}");
}

#[test]
fn ttl_seconds_is_30_to_the_policys_maximum() {
    let g = gov(quorum_policy());
    for ttl in [0, 29, 86_401, 315_360_000] {
        let m = refused(
            &g,
            "RequestApproval",
            json!({"requestedBy": "a", "ttlSeconds": ttl}),
        );
        assert!(m.contains("ttlSeconds"), "{ttl}: {m}");
    }
    for ttl in [30, 86_400] {
        let r = request(&g, json!({"ttlSeconds": ttl}));
        assert_eq!(r["status"], "pending", "{ttl}: {r}");
    }
    let mut p = quorum_policy();
    p["maxApprovalTtlSeconds"] = json!(600);
    let g = gov(p);
    let m = refused(
        &g,
        "RequestApproval",
        json!({"requestedBy": "a", "ttlSeconds": 601}),
    );
    assert!(m.contains("ttlSeconds"), "{m}");
    assert_eq!(request(&g, json!({"ttlSeconds": 600}))["status"], "pending");
    // Nothing was stored by the refusals.
    let q = call(&g, "ListPendingApprovals", json!({}));
    assert_eq!(q["items"].as_array().unwrap().len(), 1, "{q}");
}

#[test]
fn reason_and_comment_are_at_most_4096_bytes() {
    let g = gov(quorum_policy());
    let big = "é".repeat(2049);
    let m = refused(
        &g,
        "RequestApproval",
        json!({"requestedBy": "a", "reason": big}),
    );
    assert!(m.contains("reason"), "{m}");
    let r = request(&g, json!({"reason": "x".repeat(4096)}));
    let id = r["approvalId"].as_str().unwrap();
    for (cmd, who) in [
        ("ReviewApproval", "reviewerId"),
        ("GrantApproval", "grantedBy"),
        ("DenyApproval", "deniedBy"),
    ] {
        let mut p = json!({"approvalId": id, "comment": big});
        p[who] = json!("rev1");
        let m = refused(&g, cmd, p);
        assert!(m.contains("comment"), "{cmd}: {m}");
    }
    let q = call(&g, "ListPendingApprovals", json!({}));
    assert_eq!(q["items"][0]["currentApprovals"], 0, "{q}");
}

#[test]
fn the_pending_queue_is_capped_in_all_and_per_requester() {
    let mut p = quorum_policy();
    p["maxPendingApprovals"] = json!(150);
    let g = gov(p);
    for i in 0..100 {
        let r = request(&g, json!({"requestedBy": "alice"}));
        assert_eq!(r["status"], "pending", "{i}: {r}");
    }
    // The 101st of one requester (under any spelling) is refused.
    for who in ["alice", " ALICE"] {
        let r = request(&g, json!({"requestedBy": who}));
        assert_eq!(r["message"], "approval_queue_full", "{r}");
        assert_eq!(r["approvalId"], "", "{r}");
    }
    for i in 0..50 {
        let r = request(&g, json!({"requestedBy": format!("bob{i}")}));
        assert_eq!(r["status"], "pending", "{i}: {r}");
    }
    let r = request(&g, json!({"requestedBy": "carol"}));
    assert_eq!(r["message"], "approval_queue_full", "{r}");
    // A decided approval leaves the queue and frees a place.
    let first = "approval-1";
    call(
        &g,
        "DenyApproval",
        json!({"approvalId": first, "deniedBy": "rev1"}),
    );
    assert_eq!(
        request(&g, json!({"requestedBy": "carol"}))["status"],
        "pending"
    );
    // Expired approvals leave it too.
    g.advance_millis(300_000).unwrap();
    assert_eq!(
        request(&g, json!({"requestedBy": "alice"}))["status"],
        "pending"
    );
    let s = call(&g, "GetStatus", json!({}));
    assert_eq!(s["pendingApprovals"], 1, "{s}");
}

#[test]
fn every_answer_and_queue_item_shows_single_use_expiry_and_quorum() {
    let g = gov(quorum_policy());
    let r = request(
        &g,
        json!({"toolId": "fw", "singleUse": false, "ttlSeconds": 60}),
    );
    assert_eq!(r["singleUse"], false, "{r}");
    assert_eq!(r["expiresAtUtc"], "2026-03-01T12:01:00.000Z", "{r}");
    assert_eq!(r["requiredReviewers"], 2, "{r}");
    let q = call(&g, "ListPendingApprovals", json!({}));
    let item = &q["items"][0];
    assert_eq!(item["singleUse"], false, "{item}");
    assert_eq!(item["expiresAtUtc"], "2026-03-01T12:01:00.000Z", "{item}");
    assert_eq!(item["requiredReviewers"], 2, "{item}");
    let v = review(&g, "approval-1", "rev1");
    assert_eq!(v["singleUse"], false, "{v}");
    assert_eq!(v["expiresAtUtc"], "2026-03-01T12:01:00.000Z", "{v}");
    assert_eq!(v["requiredReviewers"], 2, "{v}");
    let v = call(
        &g,
        "GrantApproval",
        json!({"approvalId": "approval-1", "grantedBy": "rev2"}),
    );
    assert_eq!(v["singleUse"], false, "{v}");
    assert_eq!(v["expiresAtUtc"], "2026-03-01T12:01:00.000Z", "{v}");
    assert_eq!(v["requiredReviewers"], 2, "{v}");
    let v = call(
        &g,
        "DenyApproval",
        json!({"approvalId": "approval-1", "deniedBy": "rev3"}),
    );
    assert_eq!(v["singleUse"], false, "{v}");
    assert_eq!(v["expiresAtUtc"], "2026-03-01T12:01:00.000Z", "{v}");
    assert_eq!(v["requiredReviewers"], 2, "{v}");
}

#[test]
fn the_queue_pages_oldest_first() {
    let g = gov(quorum_policy());
    for i in 0..230 {
        request(&g, json!({"requestedBy": format!("u{i}")}));
        g.advance_millis(1).unwrap();
    }
    let mut seen = Vec::new();
    let mut after: Option<String> = None;
    let mut pages = 0;
    loop {
        let mut p = json!({});
        if let Some(a) = &after {
            p["afterApprovalId"] = json!(a);
        }
        let q = call(&g, "ListPendingApprovals", p);
        let items = q["items"].as_array().unwrap();
        assert!(items.len() <= 100, "{}", items.len());
        seen.extend(
            items
                .iter()
                .map(|i| i["requestedBy"].as_str().unwrap().to_string()),
        );
        pages += 1;
        match q.get("nextAfterApprovalId").and_then(Value::as_str) {
            Some(next) => {
                assert_eq!(next, items.last().unwrap()["approvalId"]);
                after = Some(next.to_string());
            }
            None => break,
        }
        assert!(pages < 10);
    }
    assert_eq!(pages, 3);
    let want: Vec<String> = (0..230).map(|i| format!("u{i}")).collect();
    assert_eq!(seen, want);
    // `limit` pages smaller, never larger than 100.
    let q = call(&g, "ListPendingApprovals", json!({"limit": 7}));
    assert_eq!(q["items"].as_array().unwrap().len(), 7);
    assert_eq!(q["nextAfterApprovalId"], "approval-7");
    let q = call(&g, "ListPendingApprovals", json!({"limit": 1000}));
    assert_eq!(q["items"].as_array().unwrap().len(), 100);
    // An unknown cursor is refused, naming it.
    let m = refused(
        &g,
        "ListPendingApprovals",
        json!({"afterApprovalId": "approval-999"}),
    );
    assert!(m.contains("afterApprovalId"), "{m}");
}
