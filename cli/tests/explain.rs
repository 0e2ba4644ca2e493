//! `leasekit explain`: words and examples derived from the core matcher.

mod common;

use common::{json_of, leasekit};
use predicates::prelude::*;

fn explain_json(cap: &str, pattern: &str) -> serde_json::Value {
    json_of(leasekit().args(["explain", "--format", "json", cap, pattern]))
}

fn targets(v: &serde_json::Value, key: &str) -> Vec<String> {
    v[key]
        .as_array()
        .expect("list")
        .iter()
        .map(|e| e["target"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn single_star_stops_at_separators() {
    let v = explain_json("tool.call", "web.*");
    let w = &v["wildcards"][0];
    assert_eq!(w["token"], "*");
    assert_eq!(w["matches_dot"], false, "tool.call splits at '.'");
    assert_eq!(w["matches_slash"], false);
    assert!(targets(&v, "matches").contains(&"web.x".to_string()));
    assert!(targets(&v, "does_not_match").contains(&"web.x.y".to_string()));
}

#[test]
fn single_star_in_a_path_may_contain_dots() {
    let v = explain_json("fs.read", "/workspace/*.rs");
    let w = &v["wildcards"][0];
    assert_eq!(w["matches_dot"], true);
    assert_eq!(w["matches_slash"], false);
    assert_eq!(w["words"], "any text without '/' (may be empty)");
}

#[test]
fn double_star_crosses_separators_and_matches_the_directory() {
    let v = explain_json("fs.read", "/workspace/**");
    assert_eq!(v["wildcards"][0]["matches_slash"], true);
    let canonical: Vec<&str> = v["matches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["canonical"].as_str().unwrap())
        .collect();
    assert!(canonical.contains(&"/workspace"), "{canonical:?}");
    let m = targets(&v, "matches");
    assert!(m.iter().any(|t| t.contains("x/y")), "{m:?}");
    assert!(
        targets(&v, "does_not_match")
            .iter()
            .any(|t| t.starts_with("/other"))
    );
}

#[test]
fn literal_pattern_matches_exactly_and_shows_stored_form() {
    leasekit()
        .args(["explain", "net.fetch", "HTTPS://API.example.com:443"])
        .assert()
        .code(0)
        .stdout(predicate::str::contains(
            "stored as: https://api.example.com/",
        ))
        .stdout(predicate::str::contains(
            "matches exactly the target `https://api.example.com/`",
        ));
}

#[test]
fn relative_fs_target_is_reported_invalid() {
    let v = explain_json("fs.read", "*");
    assert!(
        v["summary"].as_str().unwrap().contains("may match nothing"),
        "{v}"
    );
    assert!(
        v["invalid_targets"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["error"] == "INVALID_REQUEST")
    );
}

#[test]
fn text_has_sections() {
    leasekit()
        .args(["explain", "net.fetch", "https://*.example.com/**"])
        .assert()
        .code(0)
        .stdout(predicate::str::contains(
            "wildcards\n  A `*`: any text without '/'",
        ))
        .stdout(predicate::str::contains("matches\n"))
        .stdout(predicate::str::contains("does not match\n"));
}

#[test]
fn invalid_pattern_exits_two() {
    leasekit()
        .args(["explain", "fs.read", "/a/***"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("error[INVALID_REQUEST]"));
    leasekit()
        .args(["explain", "acme.cap", "x"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("error[INVALID_REQUEST]"));
}
