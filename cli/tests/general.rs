//! Global behaviour: --version, --help with examples on every command, usage errors, colour.

mod common;

use common::leasekit;
use predicates::prelude::*;

const COMMANDS: &[&str] = &[
    "check", "subset", "narrow", "explain", "lint", "inspect", "lock", "policy",
];

#[test]
fn version_prints_the_crate_version() {
    leasekit()
        .arg("--version")
        .assert()
        .code(0)
        .stdout(format!("leasekit {}\n", env!("CARGO_PKG_VERSION")));
}

#[test]
fn every_command_has_help_with_examples() {
    for command in COMMANDS {
        leasekit()
            .args([command, "--help"])
            .assert()
            .code(0)
            .stdout(predicate::str::contains("Examples:"))
            .stdout(predicate::str::contains(format!("leasekit {command}")))
            .stdout(predicate::str::contains("Exit status"));
    }
    leasekit()
        .arg("--help")
        .assert()
        .code(0)
        .stdout(predicate::str::contains("Examples:"));
}

#[test]
fn unknown_command_and_option_are_usage_errors() {
    leasekit().arg("frobnicate").assert().code(2);
    leasekit().args(["check", "--bogus"]).assert().code(2);
    leasekit().assert().code(2);
    leasekit()
        .args(["explain", "--format", "yaml", "fs.read", "/a"])
        .assert()
        .code(2);
}

#[test]
fn no_colour_when_stdout_is_not_a_terminal() {
    let mut cmd = assert_cmd::Command::cargo_bin("leasekit").unwrap();
    cmd.current_dir(common::repo_root())
        .env_remove("NO_COLOR")
        .args([
            "check",
            "--lease",
            "examples/leases/code-reviewer.json",
            "fs.read",
            "/etc/passwd",
        ])
        .assert()
        .code(1)
        .stdout(predicate::str::contains("\u{1b}[").not());
}
