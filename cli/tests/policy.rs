//! `leasekit policy`: Cedar evaluation of an Agentfile's policy set.

mod common;

use common::{json_of, leasekit};
use predicates::prelude::*;

const REVIEWER: &str = "examples/agentfiles/code-reviewer/Agentfile";
const AGENT: &str = r#"AgentRC::Agent::"code-reviewer""#;
const INVOKE: &str = r#"AgentRC::Action::"tool.invoke""#;
const FILE_READ: &str = r#"AgentRC::Tool::"file_read""#;

fn policy(resource: &str, context: Option<&str>) -> assert_cmd::Command {
    let mut cmd = leasekit();
    cmd.args([
        "policy",
        REVIEWER,
        "--principal",
        AGENT,
        "--action",
        INVOKE,
        "--resource",
        resource,
    ]);
    if let Some(c) = context {
        cmd.args(["--context", c]);
    }
    cmd
}

#[test]
fn permit_with_matching_context_allows() {
    policy(FILE_READ, Some(r#"{"path": "/workspace/src/main.rs"}"#))
        .assert()
        .code(0)
        .stdout(predicate::str::starts_with("allow\n"))
        .stdout(predicate::str::contains("determined by: policy@L"));
}

#[test]
fn context_outside_the_condition_denies() {
    policy(FILE_READ, Some(r#"{"path": "/etc/passwd"}"#))
        .assert()
        .code(1)
        .stdout(predicate::str::starts_with("deny\n"));
}

#[test]
fn deny_shorthand_wins() {
    policy(r#"AgentRC::Tool::"utcp:shell""#, None)
        .assert()
        .code(1)
        .stdout(predicate::str::contains("determined by: deny@L"));
}

#[test]
fn missing_context_attribute_is_an_error_and_denies() {
    let v = json_of(policy(FILE_READ, None).args(["--format", "json"]));
    assert_eq!(v["allowed"], false);
    assert_eq!(v["resource"], FILE_READ);
    let errors = v["errors"].as_array().unwrap();
    assert!(
        errors.iter().any(|e| e.as_str().unwrap().contains("path")),
        "{errors:?}"
    );
}

#[test]
fn json_allow() {
    let v =
        json_of(policy(FILE_READ, Some(r#"{"path": "/workspace/a"}"#)).args(["--format", "json"]));
    assert_eq!(v["allowed"], true);
    assert!(v["errors"].as_array().unwrap().is_empty());
    assert!(!v["determining"].as_array().unwrap().is_empty());
}

#[test]
fn agentfile_with_errors_denies_with_errors() {
    leasekit()
        .args([
            "policy",
            "examples/agentfiles/mistakes/Agentfile",
            "--principal",
            AGENT,
            "--action",
            INVOKE,
            "--resource",
            FILE_READ,
        ])
        .assert()
        .code(1)
        .stdout(predicate::str::contains("error: "));
}

#[test]
fn usage_errors_exit_two() {
    policy(FILE_READ, Some("{not json"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--context is not JSON"));
    leasekit()
        .args([
            "policy",
            REVIEWER,
            "--action",
            INVOKE,
            "--resource",
            FILE_READ,
        ])
        .assert()
        .code(2);
}
