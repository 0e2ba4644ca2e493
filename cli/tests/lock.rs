//! `leasekit lock`: deterministic lockfile on stdout or in a file; refuses files with errors.

mod common;

use common::{json_of, leasekit};
use predicates::prelude::*;

const TRIAGER: &str = "examples/agentfiles/github-triager/Agentfile";

#[test]
fn lockfile_on_stdout() {
    let v = json_of(leasekit().args(["lock", TRIAGER]));
    assert_eq!(v["version"], "1");
    assert!(v["agentfile_hash"].as_str().unwrap().starts_with("sha256:"));
    assert_eq!(v["credential_names"], serde_json::json!(["github_token"]));
    assert_eq!(v["base_image"]["name"], "python");
    assert_eq!(v["tools"].as_array().unwrap().len(), 3);
    assert_eq!(v["sops"][0]["source"], "inline");
}

#[test]
fn lockfile_is_deterministic_and_written_with_o() {
    let first = leasekit().args(["lock", TRIAGER]).output().unwrap();
    let second = leasekit().args(["lock", TRIAGER]).output().unwrap();
    assert_eq!(first.stdout, second.stdout);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("agentrc.lock");
    leasekit()
        .args(["lock", TRIAGER, "-o"])
        .arg(&out)
        .assert()
        .code(0)
        .stdout(predicate::str::starts_with("wrote "));
    assert_eq!(std::fs::read(&out).unwrap(), first.stdout);
}

#[test]
fn agentfile_with_errors_is_not_locked() {
    leasekit()
        .args(["lock", "examples/agentfiles/mistakes/Agentfile"])
        .assert()
        .code(1)
        .stdout(predicate::str::is_empty())
        .stderr(predicate::str::contains("error[cedar-parse]"))
        .stderr(predicate::str::contains("error[INVALID_REQUEST]"))
        .stderr(predicate::str::contains("sk-live").not());
}

#[test]
fn unwritable_output_is_an_input_error() {
    leasekit()
        .args(["lock", TRIAGER, "-o", "no/such/dir/agentrc.lock"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no/such/dir/agentrc.lock"));
}
