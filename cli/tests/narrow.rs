//! `leasekit narrow`: effective lease and reductions, text and JSON.

mod common;

use common::{json_of, leasekit};
use predicates::prelude::*;
use std::collections::BTreeSet;

const REQUESTED: &str = "examples/leases/triager-request.json";
const CEILING: &str = "examples/leases/org-ceiling.json";

fn set(v: &serde_json::Value) -> BTreeSet<String> {
    v.as_array()
        .expect("array")
        .iter()
        .map(|s| s.as_str().expect("string").to_string())
        .collect()
}

#[test]
fn json_effective_lease_is_narrowed() {
    let v = json_of(leasekit().args(["narrow", "--format", "json", REQUESTED, CEILING]));
    let lease = &v["lease"];
    // fs.write is not in the ceiling: dropped. model.use is not requested: absent.
    assert!(lease.get("fs.write").is_none());
    assert!(lease.get("model.use").is_none());
    // The wide request is replaced by the ceiling patterns it contains.
    assert_eq!(
        set(&lease["net.fetch"]),
        BTreeSet::from([
            "https://api.github.com/repos/acme/**".to_string(),
            "https://api.github.com/orgs/acme".to_string()
        ])
    );
    // utcp:shell overlaps nothing: dropped; mcp:github.* is replaced by the three tools.
    assert_eq!(
        set(&lease["tool.call"]),
        BTreeSet::from([
            "mcp:github.get_issue".to_string(),
            "mcp:github.list_issues".to_string(),
            "mcp:github.add_labels".to_string()
        ])
    );
    assert!(!v["reductions"].as_array().expect("reductions").is_empty());
    let caps: BTreeSet<&str> = v["reductions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["capability"].as_str().unwrap())
        .collect();
    assert!(caps.contains("fs.write") && caps.contains("tool.call") && caps.contains("net.fetch"));
}

#[test]
fn text_lists_reductions_then_lease() {
    leasekit()
        .args(["narrow", REQUESTED, CEILING])
        .assert()
        .code(0)
        .stdout(predicate::str::starts_with("reductions:\n"))
        .stdout(predicate::str::contains("fs.write"))
        .stdout(predicate::str::contains("effective lease:\n{"));
}

#[test]
fn request_within_ceiling_has_no_reductions() {
    leasekit()
        .args(["narrow", CEILING, CEILING])
        .assert()
        .code(0)
        .stdout(predicate::str::starts_with("no reductions"));
}

#[test]
fn invalid_ceiling_is_an_input_error() {
    leasekit()
        .args(["narrow", REQUESTED, "-"])
        .write_stdin("not json")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("error[INVALID_REQUEST]: <stdin>"));
}
