//! `leasekit policy lint|hash|sign|compile|keygen` and `leasekit audit verify`.

mod common;

use common::{json_of, leasekit};
use leasekit::governor::wire::{AcquireRequest, PolicyBundle, ReleaseRequest};
use leasekit::governor::{Governor, GovernorOptions, Policy};
use predicates::prelude::*;

const REVIEWER: &str = "examples/agentfiles/code-reviewer/Agentfile";

fn temp(name: &str) -> std::path::PathBuf {
    common::scratch(name)
}

#[test]
fn compile_lint_hash_sign_round_trip() {
    let out = leasekit()
        .args(["policy", "compile", REVIEWER])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let policy_text = String::from_utf8(out.stdout).unwrap();
    let policy: serde_json::Value = serde_json::from_str(&policy_text).unwrap();
    assert_eq!(policy["toolRegistry"][0]["category"], "other");
    assert!(policy["leaseCeiling"]["fs.read"].is_array());
    let p = temp("policy.json");
    std::fs::write(&p, &policy_text).unwrap();
    leasekit()
        .args(["policy", "lint", p.to_str().unwrap()])
        .assert()
        .success();
    let hash = leasekit()
        .args(["policy", "hash", p.to_str().unwrap()])
        .output()
        .unwrap();
    let hash = String::from_utf8(hash.stdout).unwrap();
    assert_eq!(hash.trim(), Policy::from_json(&policy_text).unwrap().hash());
    for alg in ["ed25519", "p256"] {
        let key = json_of(leasekit().args(["policy", "keygen", "--alg", alg]));
        let k = temp(&format!("{alg}.json"));
        std::fs::write(&k, key.to_string()).unwrap();
        let bundle = json_of(leasekit().args([
            "policy",
            "sign",
            "--key",
            k.to_str().unwrap(),
            "--version",
            "v2",
            "--author",
            "ops",
            "--created-at",
            "2026-01-01T00:00:00Z",
            p.to_str().unwrap(),
        ]));
        let b: PolicyBundle = serde_json::from_value(bundle).unwrap();
        let keys = [leasekit::governor::policy::BundleKey::from_spki_base64(
            key["publicKeyBase64"].as_str().unwrap(),
        )
        .unwrap()];
        assert!(
            leasekit::governor::policy::verify_bundle(&b, &keys),
            "{alg}"
        );
    }
}

#[test]
fn lint_refuses_plaintext_tokens_and_trust_settings() {
    let p = temp("bad.json");
    std::fs::write(
        &p,
        r#"{"serviceAccounts": [{"name": "ci", "token": "s3cret"}]}"#,
    )
    .unwrap();
    leasekit()
        .args(["policy", "lint", p.to_str().unwrap()])
        .assert()
        .code(1)
        .stdout(predicate::str::contains("plaintext token"))
        .stdout(predicate::str::contains("s3cret").not());
    std::fs::write(&p, r#"{"requireSignedBundles": true}"#).unwrap();
    leasekit()
        .args(["policy", "lint", p.to_str().unwrap()])
        .assert()
        .code(1);
    std::fs::write(&p, r#"{"maxInFlight": -1}"#).unwrap();
    leasekit()
        .args(["policy", "lint", p.to_str().unwrap()])
        .assert()
        .code(1);
}

fn audit_lines() -> Vec<String> {
    let g =
        Governor::in_memory(Policy::from_json("{}").unwrap(), GovernorOptions::default()).unwrap();
    for i in 0..3 {
        let r = g
            .acquire(AcquireRequest {
                actor_id: format!("a{i}"),
                estimated_cost_cents: 2,
                ..AcquireRequest::default()
            })
            .unwrap();
        g.release(ReleaseRequest {
            lease_id: r.lease_id,
            actual_cost_cents: 1,
            ..ReleaseRequest::default()
        })
        .unwrap();
    }
    g.audit_lines(1, u64::MAX).unwrap()
}

#[test]
fn audit_verify_file_dir_and_tampering() {
    let lines = audit_lines();
    assert_eq!(lines.len(), 6);
    let f = temp("audit.jsonl");
    std::fs::write(&f, lines.join("\n") + "\n").unwrap();
    leasekit()
        .args(["audit", "verify", f.to_str().unwrap()])
        .assert()
        .success()
        .stdout(predicate::str::contains("6 records verify"));
    // A chain split over two files of a directory is one chain.
    let dir = temp("auditdir");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("a-1.jsonl"), lines[..2].join("\n") + "\n").unwrap();
    std::fs::write(dir.join("a-2.jsonl"), lines[2..].join("\n") + "\n").unwrap();
    leasekit()
        .args(["audit", "verify", dir.to_str().unwrap()])
        .assert()
        .success();
    // One changed field on line 4: exit 1 and the line.
    let mut bad = lines.clone();
    bad[3] = bad[3].replacen("\"actualCostCents\":1", "\"actualCostCents\":0", 1);
    assert_ne!(bad[3], lines[3]);
    std::fs::write(&f, bad.join("\n") + "\n").unwrap();
    leasekit()
        .args(["audit", "verify", f.to_str().unwrap()])
        .assert()
        .code(1)
        .stdout(predicate::str::contains("audit.jsonl:4:"));
    // A deleted line breaks the link of the next one.
    let mut gap = lines.clone();
    gap.remove(2);
    std::fs::write(&f, gap.join("\n") + "\n").unwrap();
    let v = json_of(leasekit().args(["audit", "verify", "--format", "json", f.to_str().unwrap()]));
    assert_eq!(v["ok"], false);
    assert_eq!(v["line"], 3);
}

#[test]
fn the_cedar_form_of_policy_still_works() {
    leasekit()
        .args([
            "policy",
            REVIEWER,
            "--principal",
            r#"AgentRC::Agent::"code-reviewer""#,
            "--action",
            r#"AgentRC::Action::"tool.invoke""#,
            "--resource",
            r#"AgentRC::Tool::"utcp:git_diff""#,
        ])
        .assert()
        .success();
    leasekit().args(["policy", REVIEWER]).assert().code(2);
}
