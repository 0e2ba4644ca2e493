//! The daemon's logs (`--log-format json --log-level trace`): every line is a JSON object
//! with the expected fields, commands are logged by name, uid and outcome code, denials by
//! reason code, refused connections at warn, and no secret ever appears: not an approval
//! token, a service-account token or an Agentfile's CRED source, at any level.

mod daemon;

use std::io::Write;
use std::os::unix::process::CommandExt;
use std::process::Command;

use daemon::Daemon;
use serde_json::{Value, json};

const SVC_TOKEN: &str = "svc-token-5ecr3t-value";
const CRED_VAR: &str = "LK_TEST_CRED_SECRET_VAR";
const CRED_VALUE: &str = "cred-value-5ecr3t";

fn call(d: &Daemon, command: &str, payload: Value) -> Value {
    call_as(None, d, command, payload)
}

/// As `call`, run as `uid` when given.
fn call_as(uid: Option<u32>, d: &Daemon, command: &str, payload: Value) -> Value {
    let mut cmd = Command::new(daemon::leasekit_bin_for_any_uid());
    if let Some(uid) = uid {
        cmd.uid(uid).gid(uid);
    }
    let out = cmd
        .arg("gov")
        .arg("--socket")
        .arg(&d.socket)
        .args(["call", command, &payload.to_string()])
        .output()
        .unwrap();
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&out.stderr)))
}

fn lines(log: &str) -> Vec<Value> {
    log.lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap_or_else(|e| panic!("{e}: {l:?}")))
        .collect()
}

#[test]
fn json_logs_carry_codes_and_never_a_secret() {
    if leasekit_serve::listener::current_uid() != 0 {
        eprintln!("SKIP: needs root (an approval is requested by one uid and granted by another)");
        return;
    }
    let dir = daemon::temp_dir("logs");
    let agentfile = dir.join("Agentfile");
    std::fs::write(
        &agentfile,
        format!(
            "# syntax=agentrc.agentfile/v0.1\nAGENT a\nFROM scratch\nTOOL mcp:t.x\n\
             CRED api_key env:{CRED_VAR} host:api.example.com\nALLOW invoke mcp:t.x\n"
        ),
    )
    .unwrap();
    // SAFETY: set before the daemon starts; the test's other threads do not read it.
    unsafe { std::env::set_var(CRED_VAR, CRED_VALUE) };
    let mut d = Daemon::start_in(
        &dir,
        vec![
            "--agentfile".into(),
            agentfile.display().to_string(),
            "--store".into(),
            "memory".into(),
            "--log-format".into(),
            "json".into(),
            "--log-level".into(),
            "trace".into(),
            "--socket-mode".into(),
            "666".into(),
        ],
    );

    // An approval token, really issued and used.
    let appr = call_as(
        Some(65534),
        &d,
        "RequestApproval",
        json!({"actorId": "a", "workspaceId": "w", "requestedBy": "a", "toolId": "x"}),
    );
    let id = appr["payload"]["approvalId"].as_str().unwrap().to_string();
    let granted = call(
        &d,
        "GrantApproval",
        json!({"approvalId": id, "grantedBy": "ops"}),
    );
    let token = granted["payload"]["approvalToken"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(token.len() >= 16, "{granted}");
    call(
        &d,
        "Acquire",
        json!({"actorId": "a", "workspaceId": "w", "approvalToken": token,
               "requestedTools": [{"toolId": "x"}]}),
    );
    // A service-account token nobody knows: denied, and the denial logged by its code.
    let svc = call(
        &d,
        "Acquire",
        json!({"actorId": "", "workspaceId": "w", "principalType": "service",
               "authToken": SVC_TOKEN}),
    );
    assert_eq!(svc["payload"]["granted"], false, "{svc}");
    let reason = svc["payload"]["deniedReason"].as_str().unwrap().to_string();
    // A refused connection: an oversized frame.
    let mut raw = std::os::unix::net::UnixStream::connect(&d.socket).unwrap();
    raw.write_all(&(64 * 1024 * 1024i32).to_le_bytes()).unwrap();
    let _ = daemon::read_response(&mut raw);
    assert_eq!(d.stop().code(), Some(0));

    let log = d.log();
    for secret in [token.as_str(), SVC_TOKEN, CRED_VAR, CRED_VALUE] {
        assert!(!log.contains(secret), "{secret} in the log:\n{log}");
    }
    let events = lines(&log);
    for e in &events {
        for field in ["timestamp", "level", "message", "target"] {
            assert!(e.get(field).is_some(), "{field} missing: {e}");
        }
    }
    let has = |f: &dyn Fn(&Value) -> bool| events.iter().any(f);
    assert!(
        has(&|e| e["level"] == "DEBUG"
            && e["command"] == "GrantApproval"
            && e["uid"] == 0
            && e["outcome"] == "ok"),
        "{log}"
    );
    assert!(
        has(&|e| e["level"] == "INFO"
            && e["message"] == "denied"
            && e["command"] == "Acquire"
            && e["reason"] == reason.as_str()),
        "{log}"
    );
    assert!(
        has(&|e| e["level"] == "WARN"
            && e["message"] == "connection refused"
            && e["reason"] == "frame_error"),
        "{log}"
    );
    assert!(has(&|e| e["message"] == "stopped"), "{log}");
}

#[test]
fn the_level_filters_and_a_bad_level_is_refused() {
    let dir = daemon::temp_dir("logs2");
    let mut d = Daemon::start_in(
        &dir,
        vec![
            "--store".into(),
            "memory".into(),
            "--log-level".into(),
            "warn".into(),
        ],
    );
    d.client().status().unwrap();
    assert_eq!(d.stop().code(), Some(0));
    // Nothing at info or debug: no start line, no command line.
    assert!(!d.log().contains("listening on"), "{}", d.log());
    assert!(!d.log().contains("GetStatus"), "{}", d.log());

    let out = Command::new(daemon::leasekit_bin())
        .args(["serve", "--store", "memory", "--log-level", "loud=[x"])
        .arg("--state")
        .arg(dir.join("state2"))
        .arg("--socket")
        .arg(dir.join("s2.sock"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--log-level"), "{err}");
}
