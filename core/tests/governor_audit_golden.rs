//! The audit chain format is pinned: a deterministic command sequence (manual clock,
//! deterministic ids, escapes and non-ASCII in the values) yields exactly the entry hashes the
//! audit writer produced before the governor's hot path was rebuilt (taken through the Python
//! binding of that earlier writer). Any change to the record fields, their JCS form or the chain
//! changes these hashes.

use leasekit::governor::EmbeddedGovernor;

const POLICY: &str = r#"{"policyVersion": "p1", "maxInFlight": 4, "dailyBudgetCents": 1000,
    "allowedModels": ["m1", "m2"], "toolRegistry": [{"toolId": "fs.read", "category": "fileRead"}],
    "approvalReviewersByToolCategory": {"fileWrite": 2}, "orgDailyBudgetCents": 900}"#;

const STEPS: &str = r#"[["Acquire", {"actorId": "a0", "workspaceId": "w", "modelId": "m1", "estimatedCostCents": 5, "requestedTools": [{"toolId": "fs.read", "category": "fileRead"}], "requestedCapabilities": ["x\"y"], "riskFlags": ["é\n"], "idempotencyKey": "k1"}],
 ["Release", {"leaseId": "lease-1", "actualCostCents": 4, "toolCalls": [{"toolId": "fs.read", "outcome": "success", "durationMs": 12}]}],
 ["Acquire", {"actorId": "a1", "workspaceId": "w", "modelId": "bad", "estimatedCostCents": 5}],
 ["RequestApproval", {"actorId": "a0", "workspaceId": "w", "reason": "write", "requestedBy": "a0", "toolCategory": "fileWrite"}],
 ["ReviewApproval", {"approvalId": "approval-1", "reviewerId": "r1", "approve": true, "comment": "ok"}],
 ["ReviewApproval", {"approvalId": "approval-1", "reviewerId": "r2", "approve": true}],
 ["Acquire", {"actorId": "a2", "workspaceId": "w2", "orgId": "o", "modelId": "m2", "estimatedCostCents": 950}],
 ["Acquire", {"actorId": "a2", "workspaceId": "w2", "modelId": "m2", "estimatedCostCents": 7, "estimatedPromptTokens": 100, "maxOutputTokens": 50}],
 ["RequestToolSubLease", {"leaseId": "lease-2", "toolId": "fs.read", "category": "fileRead"}]
]"#;

const EXPECTED: [(&str, &str); 8] = [
    (
        "lease_acquired",
        "80246c6268cbb1083599257128cab13d7ba432d17f7d3986a02e407caf800a84",
    ),
    (
        "lease_released",
        "ed1e3a113addb556d8cab6f875b6c485c4bdf668ea9386edcc527faf258cb2c3",
    ),
    (
        "lease_denied",
        "018bc9303922ad64d1e14860f699c2468a50967ae303df6ced845b6b383eff9b",
    ),
    (
        "approval_requested",
        "a5a01f5c4be4f544f8713259addeeaaaa051521dad142233b56ff153a2d013df",
    ),
    (
        "approval_reviewed",
        "8b81b43ce84009ca009b5ba0f1e08aa62a64138e6526290b290d08aa065340dd",
    ),
    (
        "approval_reviewed",
        "98a04f9c357d84c12701c68f4c14a90e9171a12316e5890d008dba86f3c60c2c",
    ),
    (
        "lease_denied",
        "11231b4974f5d6dee1db469adb5a99f002b10a2441a2b530e33607c7cea23255",
    ),
    (
        "lease_acquired",
        "a150e578de90c2ed8fc0229c14df1775fca810a43aeb7d77103c43d0b9172af7",
    ),
];

#[test]
fn entry_hashes_are_unchanged() {
    let g = EmbeddedGovernor::open(
        "memory",
        POLICY,
        r#"{"manualClock": "2026-03-01T12:00:00Z", "ids": "deterministic"}"#,
    )
    .unwrap();
    let steps: Vec<(String, serde_json::Value)> = serde_json::from_str(STEPS).unwrap();
    for (command, payload) in steps {
        let answer = g.governor().handle(&command, &payload.to_string());
        assert!(answer.contains("\"success\":true"), "{command}: {answer}");
    }
    let lines = g.governor().audit_lines(1, u64::MAX).unwrap();
    let got: Vec<(String, String)> = lines
        .iter()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            (
                v["eventType"].as_str().unwrap().to_string(),
                v["entryHash"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let want: Vec<(String, String)> = EXPECTED
        .iter()
        .map(|(e, h)| (e.to_string(), h.to_string()))
        .collect();
    assert_eq!(got, want);
    assert!(leasekit::governor::verify_audit(lines.iter().map(String::as_str)).ok);
}
