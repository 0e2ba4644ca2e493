//! `leasekit audit proof export|verify`: a bundle signed with `policy keygen` keys (P-256 and
//! Ed25519) verifies against the file and a directory; an edited line with its hash fields
//! kept exits 1 naming the file and line; a tampered signature, a wrong `--key`, a shortened
//! file and an out-of-range export are refused; the private key never reaches the bundle.

mod common;

use common::{json_of, leasekit};
use leasekit::governor::wire::{AcquireRequest, ReleaseRequest};
use leasekit::governor::{Governor, GovernorOptions, Policy};
use predicates::prelude::*;

fn temp(name: &str) -> std::path::PathBuf {
    common::scratch(name)
}

fn audit_lines() -> Vec<String> {
    let g =
        Governor::in_memory(Policy::from_json("{}").unwrap(), GovernorOptions::default()).unwrap();
    for i in 0..4 {
        let r = g
            .acquire(AcquireRequest {
                actor_id: format!("a{i}"),
                model_id: "m1".into(),
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

fn keygen(alg: &str) -> (std::path::PathBuf, serde_json::Value) {
    let key = json_of(leasekit().args(["policy", "keygen", "--alg", alg]));
    let k = temp(&format!("{alg}.json"));
    std::fs::write(&k, key.to_string()).unwrap();
    (k, key)
}

fn s(p: &std::path::Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn export_and_verify_with_keygen_keys() {
    let lines = audit_lines();
    let f = temp("audit.jsonl");
    std::fs::write(&f, lines.join("\n") + "\n").unwrap();
    for alg in ["p256", "ed25519"] {
        let (k, key) = keygen(alg);
        let out = leasekit()
            .args([
                "audit",
                "proof",
                "export",
                s(&f),
                "--from",
                "2",
                "--to",
                "7",
            ])
            .args(["--key", s(&k)])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(!text.contains(key["privateKeyBase64"].as_str().unwrap()));
        let bundle: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(bundle["algorithm"], alg);
        assert_eq!(bundle["anchors"].as_array().unwrap().len(), 6);
        assert_eq!(bundle["ephemeralKey"], false);
        let b = temp(&format!("proof-{alg}.json"));
        std::fs::write(&b, &text).unwrap();
        leasekit()
            .args(["audit", "proof", "verify", s(&b), s(&f), "--key", s(&k)])
            .assert()
            .code(0)
            .stdout(predicate::str::contains(
                "verifies (6 records recomputed; signed by a trusted key)",
            ));
        // Another key required: refused (exit 1), no line at fault.
        let (other, _) = keygen(if alg == "p256" { "ed25519" } else { "p256" });
        let v = json_of(leasekit().args([
            "audit",
            "proof",
            "verify",
            "--json",
            s(&b),
            s(&f),
            "--key",
            s(&other),
        ]));
        assert_eq!(v["ok"], false);
        assert!(v["line"].is_null());
        assert!(v["message"].as_str().unwrap().contains("trusted"), "{v}");
        leasekit()
            .args(["audit", "proof", "verify", s(&b), s(&f), "--key", s(&other)])
            .assert()
            .code(1);
    }
}

#[test]
fn edited_line_with_kept_hashes_exits_1_with_its_place() {
    let lines = audit_lines();
    let dir = temp("chain");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("1.jsonl"), lines[..3].join("\n") + "\n").unwrap();
    std::fs::write(dir.join("2.jsonl"), lines[3..].join("\n") + "\n").unwrap();
    let b = temp("proof-dir.json");
    let summary = json_of(leasekit().args([
        "audit",
        "proof",
        "export",
        s(&dir),
        "--from",
        "1",
        "--to",
        "8",
        "-o",
        s(&b),
        "--json",
    ]));
    assert_eq!(summary["ephemeralKey"], true);
    leasekit()
        .args(["audit", "proof", "verify", s(&b), s(&dir)])
        .assert()
        .code(0)
        .stdout(predicate::str::contains("ephemeral key: integrity only"));
    // Line 6 of the chain is line 3 of 2.jsonl: a release whose cost is edited, hashes kept.
    let mut edited = lines.clone();
    assert!(edited[5].contains("\"actualCostCents\":1"), "{}", edited[5]);
    edited[5] = edited[5].replacen("\"actualCostCents\":1", "\"actualCostCents\":0", 1);
    std::fs::write(dir.join("2.jsonl"), edited[3..].join("\n") + "\n").unwrap();
    leasekit()
        .args(["audit", "proof", "verify", s(&b), s(&dir)])
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "2.jsonl:3: tampered: entryHash does not recompute",
        ));
    let v = json_of(leasekit().args(["audit", "proof", "verify", "--json", s(&b), s(&dir)]));
    assert_eq!(
        (v["ok"].clone(), v["line"].clone(), v["lineInFile"].clone()),
        (false.into(), 6.into(), 3.into())
    );
    // Exporting over the edited line is refused (nothing signed), naming it.
    leasekit()
        .args([
            "audit",
            "proof",
            "export",
            s(&dir),
            "--from",
            "5",
            "--to",
            "7",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("2.jsonl:3"));
}

#[test]
fn tampered_signature_short_file_and_bad_ranges() {
    let lines = audit_lines();
    let f = temp("audit2.jsonl");
    std::fs::write(&f, lines.join("\n") + "\n").unwrap();
    let (k, _) = keygen("p256");
    let mut bundle = json_of(leasekit().args([
        "audit",
        "proof",
        "export",
        s(&f),
        "--from",
        "1",
        "--to",
        "8",
        "--key",
        s(&k),
    ]));
    // Flip one character of the signature.
    let sig = bundle["signatureBase64"].as_str().unwrap().to_string();
    let flipped = match sig.strip_prefix('A') {
        Some(rest) => format!("B{rest}"),
        None => format!("A{}", &sig[1..]),
    };
    bundle["signatureBase64"] = flipped.into();
    let b = temp("proof-bad-sig.json");
    std::fs::write(&b, bundle.to_string()).unwrap();
    leasekit()
        .args(["audit", "proof", "verify", s(&b), s(&f)])
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "rejected: signature does not verify",
        ));
    // The file cut short: the first missing line is named.
    let good = temp("proof-good.json");
    let out = leasekit()
        .args([
            "audit",
            "proof",
            "export",
            s(&f),
            "--from",
            "1",
            "--to",
            "8",
            "--key",
            s(&k),
        ])
        .output()
        .unwrap();
    std::fs::write(&good, out.stdout).unwrap();
    let short = temp("short.jsonl");
    std::fs::write(&short, lines[..6].join("\n") + "\n").unwrap();
    leasekit()
        .args(["audit", "proof", "verify", s(&good), s(&short)])
        .assert()
        .code(1)
        .stdout(predicate::str::contains("short.jsonl:7: tampered: missing"));
    // Out of range, reversed, zero: usage errors (exit 2), nothing printed on stdout.
    for (from, to) in [("1", "9"), ("5", "4"), ("0", "2")] {
        leasekit()
            .args([
                "audit",
                "proof",
                "export",
                s(&f),
                "--from",
                from,
                "--to",
                to,
            ])
            .assert()
            .code(2)
            .stdout(predicate::str::is_empty());
    }
    // Not a bundle.
    leasekit()
        .args(["audit", "proof", "verify", s(&f), s(&f)])
        .assert()
        .code(2);
}
