//! The guard with a governor: every decision is a record of the governor's own chain, and an
//! approval token given in `_meta` reaches the governor's `Acquire` but never the server, the
//! log or an audit record.

use std::sync::Arc;

use serde_json::{Value, json};

use super::*;
use crate::governor::{Governor, GovernorOptions, Policy};
use crate::{Lease, LeaseConstraints, LeaseGuard, SystemClock};

fn tmpdir(tag: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("leasekit-mcp-chain-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(d.join("out")).unwrap();
    std::fs::canonicalize(&d).unwrap()
}

fn governed(root: &str) -> (Session, Governor) {
    let policy = Policy::from_value(json!({
        "toolRegistry": [
            {"toolId": "mcp:fs.read_text_file", "category": "fileRead"},
            {"toolId": "mcp:fs.write_file", "category": "fileWrite"}
        ],
        "approvalRequiredToolCategories": ["fileWrite"]
    }))
    .unwrap();
    let gov = Governor::in_memory(policy, GovernorOptions::default()).unwrap();
    let lease = Lease::from_value(&json!({
        "tool.call": ["mcp:fs.read_text_file", "mcp:fs.write_file"],
        "fs.read": [root, format!("{root}/**")],
        "fs.write": [format!("{root}/out/**")],
    }))
    .unwrap();
    let g = LeaseGuard::new(lease, LeaseConstraints::none(), Arc::new(SystemClock));
    let who = CallIdentity {
        actor_id: "agent".into(),
        workspace_id: "w".into(),
        ..CallIdentity::default()
    };
    let session = Session::new(
        McpGuard::new(g, ArgMap::builtin(), McpOptions::new("fs")),
        Some(CallGovernor::new(Box::new(gov.clone()), who)),
        None,
        Arc::new(SystemClock),
    );
    (session, gov)
}

fn records(gov: &Governor) -> Vec<Value> {
    let env: Value = serde_json::from_str(&gov.handle("ExportAudit", "{}")).unwrap();
    let p: Value = serde_json::from_str(env["payloadJson"].as_str().unwrap()).unwrap();
    p["records"].as_array().unwrap().clone()
}

fn guard_records(gov: &Governor) -> Vec<Value> {
    records(gov)
        .into_iter()
        .filter(|r| r["eventType"] == "guard_decision")
        .collect()
}

fn call(id: u64, tool: &str, args: Value, meta: Option<Value>) -> String {
    let mut params = json!({"name": tool, "arguments": args});
    if let Some(m) = meta {
        params["_meta"] = m;
    }
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params}).to_string()
}

#[test]
fn every_decision_is_a_record_of_the_governors_chain() {
    let d = tmpdir("records");
    let root = d.to_str().unwrap();
    let (mut s, gov) = governed(root);

    // A denial that never reaches an Acquire.
    let out = s.from_client(&call(
        1,
        "read_text_file",
        json!({"path": "/etc/passwd"}),
        None,
    ));
    assert!(out.to_server.is_empty(), "{out:?}");
    // A malformed call.
    let out = s.from_client(&call(2, "read_text_file", json!("x"), None));
    assert!(out.to_server.is_empty(), "{out:?}");
    // An allowed call and its answer.
    let out = s.from_client(&call(
        3,
        "read_text_file",
        json!({"path": format!("{root}/a.txt")}),
        None,
    ));
    assert_eq!(out.to_server.len(), 1, "{out:?}");
    let out = s.from_server(r#"{"jsonrpc":"2.0","id":3,"result":{"content":[]}}"#);
    assert!(out.log.is_empty(), "{out:?}");

    let recs = guard_records(&gov);
    let summary: Vec<(String, String)> = recs
        .iter()
        .map(|r| {
            (
                r["decision"].as_str().unwrap().to_string(),
                r["rule"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let pairs: Vec<(&str, &str)> = summary
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    assert_eq!(
        pairs,
        [
            ("deny", "argument"),
            ("deny", "malformed"),
            ("allow", "mapped"),
            ("success", "result"),
        ]
    );
    assert!(recs.iter().all(|r| r["source"] == "mcp"
        && r["server"] == "fs"
        && r["actorId"] == "agent"
        && r["workspaceId"] == "w"));
    assert_eq!(recs[0]["code"], "PERMISSION_DENIED");
    assert_eq!(recs[0]["requestId"], "1");
    // The allowed call's records name the governor lease it was charged to.
    let all = records(&gov);
    let lease = all
        .iter()
        .find(|r| r["eventType"] == "lease_acquired")
        .unwrap()["leaseId"]
        .clone();
    assert_eq!(recs[2]["leaseId"], lease);
    assert_eq!(recs[3]["leaseId"], lease);
    assert_eq!(recs[2]["targets"], json!([format!("fs.read {root}/a.txt")]));
    let lines: Vec<String> = all.iter().map(Value::to_string).collect();
    assert!(crate::governor::audit::verify_audit(lines.iter().map(String::as_str)).ok);
}

#[test]
fn an_approval_token_in_meta_reaches_the_acquire_and_nothing_else() {
    let d = tmpdir("token");
    let root = d.to_str().unwrap();
    let (mut s, gov) = governed(root);
    let write = |id: u64, meta: Option<Value>| {
        call(
            id,
            "write_file",
            json!({"path": format!("{root}/out/w.txt"), "content": "x"}),
            meta,
        )
    };

    // Without a token: held by the governor.
    let out = s.from_client(&write(1, None));
    assert!(out.to_server.is_empty(), "{out:?}");
    assert!(out.to_client[0].contains("approval_required"), "{out:?}");

    // A reviewed token.
    let asked = gov.handle(
        "RequestApproval",
        &json!({"actorId": "agent", "workspaceId": "w", "requestedBy": "agent",
                "toolId": "mcp:fs.write_file", "toolCategory": "fileWrite"})
        .to_string(),
    );
    let asked: Value = serde_json::from_str(&asked).unwrap();
    let asked: Value = serde_json::from_str(asked["payloadJson"].as_str().unwrap()).unwrap();
    let granted = gov.handle(
        "GrantApproval",
        &json!({"approvalId": asked["approvalId"], "grantedBy": "boss"}).to_string(),
    );
    let granted: Value = serde_json::from_str(&granted).unwrap();
    let granted: Value = serde_json::from_str(granted["payloadJson"].as_str().unwrap()).unwrap();
    let token = granted["approvalToken"].as_str().unwrap().to_string();
    assert!(token.starts_with("appr-"), "{granted}");

    let meta = json!({"leasekit/approvalToken": token, "progressToken": 5});
    let out = s.from_client(&write(2, Some(meta)));
    assert_eq!(out.to_server.len(), 1, "{out:?}");
    let fwd: Value = serde_json::from_str(&out.to_server[0]).unwrap();
    assert_eq!(fwd["params"]["_meta"], json!({"progressToken": 5}));
    assert!(!out.to_server[0].contains(&token));
    assert!(!out.log.iter().any(|l| l.contains(&token)), "{:?}", out.log);
    s.from_server(r#"{"jsonrpc":"2.0","id":2,"result":{"content":[]}}"#);

    // A single-use token is spent: the next write is held again; `_meta` with only the token
    // is removed whole.
    let out = s.from_client(&write(3, Some(json!({"leasekit/approvalToken": token}))));
    assert!(out.to_server.is_empty(), "{out:?}");
    // A token that is not a string is a malformed call.
    let out = s.from_client(&write(4, Some(json!({"leasekit/approvalToken": 42}))));
    assert!(out.to_server.is_empty());
    let v: Value = serde_json::from_str(&out.to_client[0]).unwrap();
    assert_eq!(v["error"]["code"], -32602, "{v}");

    let text: String = records(&gov).iter().map(Value::to_string).collect();
    assert!(!text.contains(&token), "the token is in the audit chain");

    // Without a governor the token is still stripped before the server.
    let lease = Lease::from_value(&json!({"tool.call": ["mcp:fs.write_file"],
        "fs.write": [format!("{root}/out/**")]}))
    .unwrap();
    let g = LeaseGuard::new(lease, LeaseConstraints::none(), Arc::new(SystemClock));
    let mut plain = Session::new(
        McpGuard::new(g, ArgMap::builtin(), McpOptions::new("fs")),
        None,
        None,
        Arc::new(SystemClock),
    );
    let out = plain.from_client(&write(1, Some(json!({"leasekit/approvalToken": "appr-x"}))));
    assert_eq!(out.to_server.len(), 1);
    assert!(!out.to_server[0].contains("appr-x"));
    assert!(!out.to_server[0].contains("_meta"));
}
