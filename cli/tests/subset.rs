//! `leasekit subset`: subset holds / violation with witness / remaining budget / formats.

mod common;

use common::{json_of, leasekit};
use predicates::prelude::*;

const PARENT: &str = "examples/leases/code-reviewer.json";

#[test]
fn child_within_parent_exits_zero() {
    leasekit()
        .args(["subset", "examples/leases/reviewer-child.json", PARENT])
        .assert()
        .code(0)
        .stdout(predicate::str::starts_with("subset: "));
}

#[test]
fn too_wide_child_exits_one_with_witness() {
    leasekit()
        .args(["subset", "examples/leases/too-wide-child.json", PARENT])
        .assert()
        .code(1)
        .stdout(predicate::str::starts_with("not a subset: "))
        .stdout(predicate::str::contains("LEASE_SUBSET_VIOLATION"))
        .stdout(predicate::str::contains("capability: fs.read"))
        .stdout(predicate::str::contains("pattern: /home/*/.ssh/**"))
        .stdout(predicate::str::contains("witness: "));
}

#[test]
fn json_violation_carries_the_details() {
    let v = json_of(leasekit().args([
        "subset",
        "--format",
        "json",
        "examples/leases/too-wide-child.json",
        PARENT,
    ]));
    assert_eq!(v["subset"], false);
    assert_eq!(v["error"]["code"], "LEASE_SUBSET_VIOLATION");
    assert_eq!(v["error"]["details"]["capability"], "fs.read");
    let witness = v["error"]["details"]["witness"].as_str().expect("witness");
    assert!(
        !witness.starts_with("/workspace"),
        "witness {witness} is covered by the parent"
    );
}

#[test]
fn remaining_budget_is_honoured() {
    let run = |remaining: &str| {
        let mut cmd = leasekit();
        cmd.args([
            "subset",
            "examples/leases/reviewer-child.json",
            PARENT,
            "--remaining",
            remaining,
        ]);
        cmd
    };
    run("USD=1.00").assert().code(0);
    run("USD=0.99")
        .assert()
        .code(1)
        .stdout(predicate::str::contains("LEASE_SUBSET_VIOLATION"));
}

#[test]
fn json_subset_true() {
    let v = json_of(leasekit().args(["subset", "--format", "json", PARENT, PARENT]));
    assert_eq!(v, serde_json::json!({"subset": true}));
}

#[test]
fn child_from_stdin() {
    leasekit()
        .args(["subset", "-", PARENT])
        .write_stdin(r#"{"model.use": ["claude-sonnet-4-5"]}"#)
        .assert()
        .code(0);
}

#[test]
fn bad_remaining_is_a_usage_error() {
    leasekit()
        .args(["subset", PARENT, PARENT, "--remaining", "USD1.00"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("expected CUR=AMOUNT"));
    leasekit()
        .args(["subset", PARENT, PARENT, "--remaining", "USD=-1"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("error[INVALID_REQUEST]"));
}

#[test]
fn invalid_child_is_an_input_error() {
    leasekit()
        .args(["subset", "-", PARENT])
        .write_stdin(r#"{"fs.read": ["relative/path"]}"#)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("error[INVALID_REQUEST]"));
}
