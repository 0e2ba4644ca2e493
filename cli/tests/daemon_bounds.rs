//! Bounded state through a real `leasekit serve` (SEMANTICS 13.16): an oversized field is
//! refused with `success: false` naming it and stores nothing, denials with distinct tool ids
//! count under one reason code (also after a restart), and a tool call's host must be a host
//! name or an IP literal.

mod daemon;

use std::io::Write;
use std::os::unix::net::UnixStream;

use daemon::{Daemon, envelope, frame, read_response};
use serde_json::{Value, json};

/// Sends one raw request (the daemon client would refuse an oversized one before sending).
fn raw(d: &Daemon, command: &str, payload: Value) -> Value {
    let mut s = UnixStream::connect(&d.socket).unwrap();
    s.write_all(&frame(&envelope(command, &payload))).unwrap();
    read_response(&mut s).expect("an answer")
}

fn ok(d: &Daemon, command: &str, payload: Value) -> Value {
    let env = raw(d, command, payload);
    assert_eq!(env["success"], true, "{command}: {env}");
    serde_json::from_str(env["payloadJson"].as_str().unwrap()).unwrap()
}

#[test]
fn oversized_tool_ids_are_refused_and_denials_count_by_code() {
    let dir = daemon::temp_dir("bounds");
    let policy = dir.join("policy.json");
    std::fs::write(
        &policy,
        json!({"toolRegistry": [{"toolId": "t", "category": "other"}]}).to_string(),
    )
    .unwrap();
    let mut d = Daemon::start_in(
        &dir,
        vec!["--policy".into(), policy.to_string_lossy().into_owned()],
    );
    // 1 MiB tool ids: refused, naming the field; nothing stored.
    for i in 0..3 {
        let tool = format!("{i}{}", "x".repeat(1 << 20));
        let env = raw(
            &d,
            "Acquire",
            json!({"actorId": "a", "workspaceId": "w", "requestedTools": [{"toolId": tool}]}),
        );
        assert_eq!(env["success"], false, "{}", &env.to_string()[..200]);
        let error = env["error"].as_str().unwrap();
        assert!(error.contains("requestedTools[0].toolId"), "{error}");
        assert!(error.len() < 200);
    }
    let status = ok(&d, "GetStatus", json!({}));
    assert_eq!(status["auditRecords"], 0, "{status}");
    // Distinct tool ids under the limit: denied, counted under one code.
    for i in 0..20 {
        let tool = format!("{i:03}{}", "y".repeat(250));
        let r = ok(
            &d,
            "Acquire",
            json!({"actorId": "a", "workspaceId": format!("w{i}"),
                   "requestedTools": [{"toolId": tool}]}),
        );
        assert_eq!(r["deniedReason"], format!("tool_not_registered:{tool}"));
    }
    let want = json!({"tool_not_registered": 20});
    assert_eq!(ok(&d, "GetMetrics", json!({}))["deniesByReason"], want);
    d.kill9();
    d.restart();
    assert_eq!(ok(&d, "GetMetrics", json!({}))["deniesByReason"], want);
}

#[test]
fn tool_call_hosts_are_checked_and_answered_canonical() {
    let dir = daemon::temp_dir("hosts");
    let policy = dir.join("policy.json");
    std::fs::write(
        &policy,
        json!({"toolRegistry": [{"toolId": "web.get", "category": "networkRead"}],
               "allowedNetworkHosts": ["*.example.com"], "toolLoopThreshold": 0})
        .to_string(),
    )
    .unwrap();
    let d = Daemon::start_in(
        &dir,
        vec!["--policy".into(), policy.to_string_lossy().into_owned()],
    );
    let tools = json!([{"toolId": "web.get", "category": "networkRead"}]);
    let grant = ok(
        &d,
        "Acquire",
        json!({"actorId": "a", "workspaceId": "w", "requestedTools": tools}),
    );
    let lease = grant["leaseId"].as_str().unwrap().to_string();
    let sub = ok(
        &d,
        "RequestToolSubLease",
        json!({"leaseId": lease, "toolId": "web.get", "category": "networkRead",
               "requestedCalls": 5}),
    );
    let sub = sub["toolSubLeaseId"].as_str().unwrap().to_string();
    let exec = |host: &str, cmd: &str| {
        ok(
            &d,
            "ExecuteToolCall",
            json!({"leaseId": lease, "toolSubLeaseId": sub, "toolId": "web.get",
                   "category": "networkRead", "targetHost": host, "commandText": cmd}),
        )
    };
    for host in ["localhost:6379#.example.com", "2852039166/.example.com"] {
        assert_eq!(exec(host, "get")["deniedReason"], "host_invalid", "{host}");
    }
    assert_eq!(
        exec("api.example.com", "ls /work\nrm -rf /")["deniedReason"],
        "tool_command_rejected"
    );
    let x = exec("API.Example.com.", "get");
    assert_eq!(x["allowed"], true, "{x}");
    assert_eq!(x["canonicalHost"], "api.example.com", "{x}");
}
