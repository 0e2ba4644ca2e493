//! `leasekit lint`: diagnostic lines, JSON, exit codes, stdin, compat, secret hygiene.

mod common;

use common::{json_of, leasekit};
use predicates::prelude::*;
use std::collections::BTreeSet;

const MISTAKES: &str = "examples/agentfiles/mistakes/Agentfile";
const REVIEWER: &str = "examples/agentfiles/code-reviewer/Agentfile";

#[test]
fn clean_agentfile_exits_zero() {
    leasekit()
        .args(["lint", REVIEWER])
        .assert()
        .code(0)
        .stdout("1 file: 0 errors, 0 warnings\n");
}

#[test]
fn warnings_alone_exit_zero() {
    leasekit()
        .args(["lint", "examples/agentfiles/vault-backed/Agentfile"])
        .assert()
        .code(0)
        .stdout(predicate::str::contains(
            "examples/agentfiles/vault-backed/Agentfile:26:1: warning[placement-directive]: ",
        ))
        .stdout(predicate::str::contains("1 file: 0 errors, 3 warnings"));
}

#[test]
fn every_deliberate_mistake_is_reported_with_position_and_code() {
    let expected = [
        ":4:1: error[lowercase-directive]: ",
        ":5:1: warning[high-risk-tool]: ",
        ":7:1: error[unknown-directive]: ",
        ":8:14: error[cred-literal-secret]: ",
        ":9:1: warning[cred-host-missing]: ",
        ":10:1: warning[extension-directive]: ",
        ":12:1: error[duplicate-directive]: ",
        ":14:1: error[cedar-parse]: ",
        ":19:1: error[unterminated-block]: ",
    ];
    let mut assert = leasekit().args(["lint", MISTAKES]).assert().code(1);
    for line in expected {
        assert = assert.stdout(predicate::str::contains(format!("{MISTAKES}{line}")));
    }
    assert
        .stdout(predicate::str::contains(
            "  hint: Cedar comments start with `//`",
        ))
        .stdout(predicate::str::ends_with("1 file: 6 errors, 3 warnings\n"));
}

#[test]
fn json_lists_codes_per_file() {
    let v = json_of(leasekit().args(["lint", "--format", "json", MISTAKES, REVIEWER]));
    assert_eq!(v["ok"], false);
    assert_eq!(v["errors"], 6);
    assert_eq!(v["files"][0]["path"], MISTAKES);
    assert_eq!(v["files"][0]["ok"], false);
    assert_eq!(v["files"][1]["ok"], true);
    let codes: BTreeSet<&str> = v["files"][0]["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["severity"] == "error")
        .map(|d| d["code"].as_str().unwrap())
        .collect();
    assert_eq!(
        codes,
        BTreeSet::from([
            "lowercase-directive",
            "unknown-directive",
            "cred-literal-secret",
            "duplicate-directive",
            "cedar-parse",
            "unterminated-block"
        ])
    );
    let d = &v["files"][0]["diagnostics"][0];
    assert_eq!(
        (d["line"].as_u64(), d["column"].as_u64()),
        (Some(4), Some(1))
    );
}

#[test]
fn several_files_exit_one_if_any_has_errors() {
    leasekit()
        .args(["lint", REVIEWER, MISTAKES])
        .assert()
        .code(1)
        .stdout(predicate::str::contains("2 files: 6 errors, 3 warnings"));
}

#[test]
fn stdin_is_read_for_dash() {
    leasekit()
        .args(["lint", "-"])
        .write_stdin("AGENT a\nFETCH x\nAUDIT basic\n")
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "<stdin>:2:1: error[unknown-directive]",
        ));
}

#[test]
fn compat_turns_two_argument_bind_into_a_warning() {
    let text = "AGENT a\nBIND ./repo /workspace\nAUDIT basic\n";
    leasekit()
        .args(["lint", "-"])
        .write_stdin(text)
        .assert()
        .code(1)
        .stdout(predicate::str::contains("error[bind-mode-missing]"));
    leasekit()
        .args(["lint", "--compat", "-"])
        .write_stdin(text)
        .assert()
        .code(0)
        .stdout(predicate::str::contains("warning[bind-mode-missing]"));
}

#[test]
fn the_literal_secret_never_appears() {
    for format in ["text", "json"] {
        leasekit()
            .args(["lint", "--format", format, MISTAKES])
            .assert()
            .code(1)
            .stdout(predicate::str::contains("sk-live").not());
    }
}

#[test]
fn usage_and_input_errors_exit_two() {
    leasekit().arg("lint").assert().code(2);
    leasekit()
        .args(["lint", "no/such/Agentfile"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("error: no/such/Agentfile"));
    leasekit()
        .args(["lint", "--format", "xml", REVIEWER])
        .assert()
        .code(2);
}

const LEASE_MISTAKES: &str = "examples/leases/lint-mistakes.json";

#[test]
fn lease_lint_reports_each_mistake_with_its_code() {
    let mut assert = leasekit()
        .args(["lint", "--lease", LEASE_MISTAKES])
        .assert()
        .code(0);
    for line in [
        "warning[host-open-suffix]: net.fetch \"https://api.example.com**\": ",
        "warning[host-label-prefix]: net.fetch \"https://*api.example.com/\": ",
        "warning[scheme-wildcard]: net.fetch \"*://api.example.com/**\": ",
        "warning[host-uppercase]: net.fetch \"https://*.Example.com/**\": ",
        "warning[url-fragment]: net.fetch \"https://api.example.com/v1#section\": ",
        "warning[non-canonical-path]: fs.read \"/data/*/../secret\": ",
    ] {
        assert = assert.stdout(predicate::str::contains(format!(
            "{LEASE_MISTAKES}: {line}"
        )));
    }
    assert
        .stdout(predicate::str::contains("  hint: "))
        .stdout(predicate::str::contains("/workspace/**").not())
        .stdout(predicate::str::ends_with("1 file: 0 errors, 6 warnings\n"));
}

#[test]
fn lease_lint_json_and_clean_leases() {
    let v = json_of(leasekit().args([
        "lint",
        "--lease",
        "--format",
        "json",
        LEASE_MISTAKES,
        "examples/leases/code-reviewer.json",
    ]));
    assert_eq!(v["warnings"], 6);
    // Capabilities in name order: fs.read first.
    assert_eq!(v["files"][0]["warnings"][0]["code"], "non-canonical-path");
    assert_eq!(v["files"][0]["warnings"][0]["capability"], "fs.read");
    assert_eq!(v["files"][0]["warnings"][1]["code"], "host-open-suffix");
    assert_eq!(v["files"][1]["warnings"], serde_json::json!([]));
}

#[test]
fn lease_lint_refuses_an_invalid_lease() {
    leasekit()
        .args(["lint", "--lease", "-"])
        .write_stdin(r#"{"fs.read": ["relative/x"]}"#)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("INVALID_REQUEST"));
}
