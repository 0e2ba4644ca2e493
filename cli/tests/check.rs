//! `leasekit check`: allow/deny per target, codes, canonical targets, formats, exit codes.

mod common;

use common::{json_of, leasekit};
use predicates::prelude::*;

const LEASE: &str = "examples/leases/code-reviewer.json";

#[test]
fn allowed_targets_exit_zero() {
    leasekit()
        .args([
            "check",
            "--lease",
            LEASE,
            "fs.read",
            "/workspace/src/main.rs",
            "/workspace",
        ])
        .assert()
        .code(0)
        .stdout(predicate::str::contains(
            "allow  fs.read /workspace/src/main.rs",
        ))
        .stdout(predicate::str::contains("deny").not());
}

#[test]
fn a_denied_target_exits_one_with_its_code() {
    leasekit()
        .args([
            "check",
            "--lease",
            LEASE,
            "fs.read",
            "/workspace/README.md",
            "/etc/passwd",
        ])
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "allow  fs.read /workspace/README.md",
        ))
        .stdout(predicate::str::contains("deny   fs.read /etc/passwd"))
        .stdout(predicate::str::contains("PERMISSION_DENIED"));
}

#[test]
fn dot_dot_escape_is_denied_and_shows_the_canonical_target() {
    leasekit()
        .args([
            "check",
            "--lease",
            LEASE,
            "fs.read",
            "/workspace/../etc/shadow",
        ])
        .assert()
        .code(1)
        .stdout(predicate::str::contains("(canonical: /etc/shadow)"))
        .stdout(predicate::str::contains("PERMISSION_DENIED"));
}

#[test]
fn json_format_has_code_and_canonical_target() {
    let v = json_of(leasekit().args([
        "check",
        "--format",
        "json",
        "--lease",
        LEASE,
        "net.fetch",
        "HTTPS://API.GITHUB.COM:443/repos/acme/widgets#readme",
        "https://api.github.com/repos/other/x",
        "ftp:nope",
    ]));
    assert_eq!(v["capability"], "net.fetch");
    assert_eq!(v["allowed"], false);
    let r = v["results"].as_array().unwrap();
    assert_eq!(r.len(), 3);
    assert_eq!(r[0]["allowed"], true);
    assert_eq!(
        r[0]["canonical"],
        "https://api.github.com/repos/acme/widgets"
    );
    assert_eq!(r[1]["allowed"], false);
    assert_eq!(r[1]["error"]["code"], "PERMISSION_DENIED");
    assert_eq!(r[1]["canonical"], "https://api.github.com/repos/other/x");
    assert_eq!(r[2]["error"]["code"], "INVALID_REQUEST");
    assert!(r[2]["canonical"].is_null());
}

#[test]
fn tool_call_star_stops_at_dot() {
    let v = json_of(leasekit().args([
        "check",
        "--format=json",
        "--lease",
        LEASE,
        "tool.call",
        "mcp:github.get_issue",
        "mcp:github.get_issue.raw",
    ]));
    assert_eq!(v["results"][0]["allowed"], true);
    assert_eq!(v["results"][1]["allowed"], false);
}

#[test]
fn model_use_goes_through_authorize_model() {
    leasekit()
        .args([
            "check",
            "--lease",
            LEASE,
            "model.use",
            "claude-sonnet-4.5",
            "gpt-4o",
        ])
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "allow  model.use claude-sonnet-4.5",
        ))
        .stdout(predicate::str::contains("deny   model.use gpt-4o"));
}

#[test]
fn lease_from_stdin() {
    leasekit()
        .args([
            "check",
            "--lease",
            "-",
            "tool.call",
            "web.search",
            "web.search.advanced",
        ])
        .write_stdin(r#"{"tool.call": ["web.*"]}"#)
        .assert()
        .code(1)
        .stdout(predicate::str::contains("allow  tool.call web.search\n"))
        .stdout(predicate::str::contains(
            "deny   tool.call web.search.advanced",
        ));
}

#[test]
fn expiry_is_checked_at_now() {
    let args = |now: &str| {
        vec![
            "check".to_string(),
            "--lease".into(),
            LEASE.into(),
            "--constraints".into(),
            "examples/leases/expires-2030.json".into(),
            "--now".into(),
            now.into(),
            "fs.read".into(),
            "/workspace/a".into(),
        ]
    };
    leasekit()
        .args(args("2029-12-31T23:59:59Z"))
        .assert()
        .code(0);
    leasekit()
        .args(args("2030-01-01T00:00:00Z"))
        .assert()
        .code(1)
        .stdout(predicate::str::contains("LEASE_EXPIRED"));
}

#[test]
fn zero_budget_is_exhausted() {
    leasekit()
        .args(["check", "--lease", "-", "fs.read", "/a"])
        .write_stdin(r#"{"fs.read": ["/**"], "cost.budget": ["USD:0"]}"#)
        .assert()
        .code(1)
        .stdout(predicate::str::contains("BUDGET_EXHAUSTED"));
}

#[test]
fn invalid_lease_is_an_input_error() {
    leasekit()
        .args(["check", "--lease", "-", "fs.read", "/a"])
        .write_stdin(r#"{"fs.read": "/a"}"#)
        .assert()
        .code(2)
        .stdout(predicate::str::is_empty())
        .stderr(predicate::str::contains("error[INVALID_REQUEST]: <stdin>"));
}

#[test]
fn bad_now_is_an_input_error() {
    leasekit()
        .args([
            "check",
            "--lease",
            LEASE,
            "--now",
            "2026-01-01T00:00:00+00:00",
            "fs.read",
            "/a",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("error[INVALID_REQUEST]: --now"));
}

#[test]
fn missing_file_is_an_input_error() {
    leasekit()
        .args(["check", "--lease", "no/such/lease.json", "fs.read", "/a"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("error: no/such/lease.json"));
}

#[test]
fn missing_target_is_a_usage_error() {
    leasekit()
        .args(["check", "--lease", LEASE, "fs.read"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("TARGETS"));
}

#[test]
fn two_stdin_inputs_are_refused() {
    leasekit()
        .args([
            "check",
            "--lease",
            "-",
            "--constraints",
            "-",
            "fs.read",
            "/a",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("only one input may be `-`"));
}

#[test]
fn lease_from_an_agentfile() {
    leasekit()
        .args([
            "check",
            "--agentfile",
            "examples/agentfiles/code-reviewer/Agentfile",
            "fs.read",
            "/workspace/src/lib.rs",
        ])
        .assert()
        .code(0);
    leasekit()
        .args([
            "check",
            "--agentfile",
            "examples/agentfiles/code-reviewer/Agentfile",
            "fs.write",
            "/workspace/src/lib.rs",
        ])
        .assert()
        .code(1)
        .stdout(predicate::str::contains("PERMISSION_DENIED"));
}

#[test]
fn agentfile_with_errors_gives_no_lease() {
    leasekit()
        .args([
            "check",
            "--agentfile",
            "examples/agentfiles/mistakes/Agentfile",
            "fs.read",
            "/a",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("error[INVALID_REQUEST]"));
}

#[test]
fn lease_and_agentfile_conflict() {
    leasekit()
        .args([
            "check",
            "--lease",
            LEASE,
            "--agentfile",
            "x",
            "fs.read",
            "/a",
        ])
        .assert()
        .code(2);
}
