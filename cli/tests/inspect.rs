//! `leasekit inspect`: the review summary and derived lease, text and JSON.

mod common;

use common::{json_of, leasekit};
use predicates::prelude::*;

const VAULT: &str = "examples/agentfiles/vault-backed/Agentfile";
const MISTAKES: &str = "examples/agentfiles/mistakes/Agentfile";

#[test]
fn text_summary_shows_what_a_reviewer_needs() {
    leasekit()
        .args(["inspect", VAULT])
        .assert()
        .code(0)
        .stdout(predicate::str::contains("agent      billing-reporter"))
        .stdout(predicate::str::contains(
            "command    python -m reporter.nightly",
        ))
        .stdout(predicate::str::contains(
            "tools      utcp:sql_query, utcp:render_pdf",
        ))
        .stdout(predicate::str::contains("read       /data, /reports"))
        .stdout(predicate::str::contains("write      /reports\n"))
        .stdout(predicate::str::contains(
            "db_password  only to db.internal.example",
        ))
        .stdout(predicate::str::contains(
            "ALLOW invoke utcp:sql_query  (line 18)",
        ))
        .stdout(predicate::str::contains(
            "FROM ghcr.io/acme/agents/base-reporter@sha256:4f1c",
        ))
        .stdout(predicate::str::contains("ISOLATION microvm  (line 26)"))
        .stdout(predicate::str::contains("\"/reports/**\""))
        // Secrets by name only: not even the Vault path is shown.
        .stdout(predicate::str::contains("vault://").not());
}

#[test]
fn json_summary_and_lease() {
    let v = json_of(leasekit().args(["inspect", "--format", "json", VAULT]));
    assert_eq!(v["agentfile"], VAULT);
    assert_eq!(v["agent"], "billing-reporter");
    assert_eq!(v["audit"], "compliance");
    assert_eq!(v["paths"]["write"], serde_json::json!(["/reports"]));
    assert_eq!(
        v["lease"]["fs.write"],
        serde_json::json!(["/reports", "/reports/**"])
    );
    assert_eq!(
        v["lease"]["tool.call"],
        serde_json::json!(["utcp:sql_query", "utcp:render_pdf"])
    );
    let names: Vec<&str> = v["secrets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["db_password", "stripe_key"]);
    let placement: Vec<&str> = v["placement"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["directive"].as_str().unwrap())
        .collect();
    assert_eq!(placement, ["BROKER", "IMAGE", "ISOLATION"]);
    assert_eq!(v["pinned_digests"].as_array().unwrap().len(), 2);
    assert!(v["package_digest"].as_str().unwrap().starts_with("sha256:"));
    assert_eq!(v["diagnostics"]["errors"], 0);
    assert!(!v.to_string().contains("vault://"));
}

#[test]
fn unpinned_base_is_flagged() {
    leasekit()
        .args(["inspect", "examples/agentfiles/github-triager/Agentfile"])
        .assert()
        .code(0)
        .stdout(predicate::str::contains(
            "FROM python:3.11-slim (not pinned by digest)",
        ))
        .stdout(predicate::str::contains(
            "servers    github https://api.github.com",
        ))
        .stdout(predicate::str::contains("sops       triage (inline)"));
}

#[test]
fn agentfile_with_errors_exits_one_without_lease_or_secret() {
    let v = json_of(leasekit().args(["inspect", "--format", "json", MISTAKES]));
    assert!(v["lease"].is_null());
    assert_eq!(v["lease_error"]["code"], "INVALID_REQUEST");
    assert_eq!(v["diagnostics"]["errors"], 6);
    assert!(!v.to_string().contains("sk-live"));
    leasekit()
        .args(["inspect", MISTAKES])
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "INVALID_REQUEST: the Agentfile has errors",
        ))
        .stdout(predicate::str::contains("openai_key  no host binding"))
        .stdout(predicate::str::contains("sk-live").not());
}

#[test]
fn stdin_and_missing_file() {
    leasekit()
        .args(["inspect", "-"])
        .write_stdin("AGENT tiny\nTOOL utcp:echo\nAUDIT basic\nALLOW invoke utcp:echo\n")
        .assert()
        .code(0)
        .stdout(predicate::str::contains("Agentfile <stdin>"))
        .stdout(predicate::str::contains("\"utcp:echo\""));
    leasekit()
        .args(["inspect", "nope/Agentfile"])
        .assert()
        .code(2);
}

#[test]
fn lease_warnings_for_the_derived_lease() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("Agentfile");
    std::fs::write(
        &path,
        "AGENT lint-demo\nAUDIT basic\nURL https://*.example.com\nMOUNT /data/../etc ro\nALLOW invoke web:fetch\n",
    )
    .unwrap();
    let path = path.to_str().unwrap();
    leasekit()
        .args(["inspect", path])
        .assert()
        .stdout(predicate::str::contains("lease warnings"))
        .stdout(predicate::str::contains(
            "warning[url-no-path]: net.fetch \"https://*.example.com\"",
        ))
        .stdout(predicate::str::contains(
            "warning[non-canonical-path]: fs.read \"/data/../etc\"",
        ));
    let v = json_of(leasekit().args(["inspect", "--format", "json", path]));
    let codes: Vec<&str> = v["lease_warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["code"].as_str().unwrap())
        .collect();
    assert!(
        codes.contains(&"url-no-path") && codes.contains(&"non-canonical-path"),
        "{codes:?}"
    );
    let clean = json_of(leasekit().args(["inspect", "--format", "json", VAULT]));
    assert_eq!(clean["lease_warnings"], serde_json::json!([]));
}
