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

/// Splits a shell-like example line: whitespace-separated, `'...'` quoting (no escapes).
fn words(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    for c in line.chars() {
        match c {
            '\'' => quoted = !quoted,
            c if c.is_whitespace() && !quoted => {
                if !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
            }
            c => cur.push(c),
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

#[test]
fn help_examples_on_example_files_run() {
    let root = common::repo_root();
    let mut ran = 0;
    for command in COMMANDS {
        let help = leasekit().args([command, "--help"]).output().unwrap();
        let help = String::from_utf8(help.stdout).unwrap();
        for line in help
            .lines()
            .map(str::trim)
            .filter(|l| l.starts_with("leasekit "))
        {
            let args = words(line);
            // Runnable as is: no pipes, continuations, globs, output files or placeholder inputs.
            let runnable = !line.contains(['|', '\\'])
                && !args
                    .iter()
                    .any(|a| a == "-o" || (a.starts_with("examples/") && a.contains('*')))
                && args
                    .iter()
                    .filter(|a| a.ends_with(".json") || a.ends_with("Agentfile"))
                    .all(|a| root.join(a).exists());
            if !runnable {
                continue;
            }
            let output = leasekit().args(&args[1..]).output().unwrap();
            let code = output.status.code();
            assert!(
                matches!(code, Some(0 | 1)),
                "`{line}` exited {code:?}: {}",
                String::from_utf8_lossy(&output.stderr)
            );
            ran += 1;
        }
    }
    eprintln!("{ran} help examples ran");
    assert!(ran >= 12, "only {ran} help examples were runnable");
}
