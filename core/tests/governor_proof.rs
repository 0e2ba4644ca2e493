//! Signed audit proof bundles (SEMANTICS 13.10, LeaseGate's `ExportProof`): a bundle over a
//! range of a governor's real audit chain verifies with P-256 and Ed25519 keys and with an
//! ephemeral key; an edited line whose hash fields were kept is rejected (LeaseGate's proof
//! accepts it), as are a tampered signature, a wrong key, a swapped key, an out-of-range
//! request, a shortened chain, an altered summary; no token or private key is in a bundle.

use std::sync::Arc;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as B64;
use leasekit::governor::audit::proof::{
    PROOF_FORMAT, ProofBundle, export_proof, export_proof_from_jsonl, proof_range,
    proof_signed_text, read_jsonl_chain, verify_proof,
};
use leasekit::governor::engine::IdSource;
use leasekit::governor::policy::{KeyAlgorithm, PrivateKey, generate_key};
use leasekit::governor::store::MemoryStore;
use leasekit::governor::wire::*;
use leasekit::governor::{Governor, GovernorOptions, Policy};
use leasekit::{ManualClock, Timestamp};
use serde_json::{Value, json};

const START_MS: i64 = 1_772_366_400_000; // 2026-03-01T12:00:00Z

/// A governor with a chain of grants, releases, a two-reviewer approval and a denial; answers
/// the approval token too (it must never reach a bundle).
fn governor() -> (Governor, String) {
    let policy = Policy::from_value(json!({
        "policyVersion": "p1", "maxInFlight": 4, "dailyBudgetCents": 1000,
        "allowedModels": ["m1", "m2"],
        "toolRegistry": [{"toolId": "fs.read", "category": "fileRead"}],
        "approvalReviewersByToolCategory": {"fileWrite": 2}
    }))
    .unwrap();
    let clock = Arc::new(ManualClock::new(Timestamp::from_unix_millis(START_MS)));
    let g = Governor::new(
        policy,
        GovernorOptions::default(),
        Arc::new(MemoryStore::new()),
        clock,
        IdSource::Deterministic,
    )
    .unwrap();
    for (i, model) in ["m1", "m2", "m1"].iter().enumerate() {
        let r = g
            .acquire(AcquireRequest {
                actor_id: format!("a{i}"),
                workspace_id: "w".into(),
                model_id: (*model).into(),
                estimated_cost_cents: 5,
                requested_tools: vec![ToolIntent {
                    tool_id: "fs.read".into(),
                    category: ToolCategory::FileRead,
                }],
                ..AcquireRequest::default()
            })
            .unwrap();
        assert!(r.granted, "{}", r.denied_reason);
        g.release(ReleaseRequest {
            lease_id: r.lease_id,
            actual_cost_cents: 4,
            ..ReleaseRequest::default()
        })
        .unwrap();
    }
    let a = g
        .request_approval(ApprovalRequest {
            actor_id: "a0".into(),
            workspace_id: "w".into(),
            reason: "write".into(),
            requested_by: "a0".into(),
            tool_category: Some(ToolCategory::FileWrite),
            ..ApprovalRequest::default()
        })
        .unwrap();
    let mut token = String::new();
    for reviewer in ["rev-1", "rev-2"] {
        let r = g
            .review_approval(ReviewApprovalRequest {
                approval_id: a.approval_id.clone(),
                reviewer_id: reviewer.into(),
                approve: true,
                ..ReviewApprovalRequest::default()
            })
            .unwrap();
        token = r.approval_token;
    }
    assert!(!token.is_empty(), "the approval was granted");
    let denied = g
        .acquire(AcquireRequest {
            actor_id: "a9".into(),
            workspace_id: "w".into(),
            model_id: "not-allowed".into(),
            ..AcquireRequest::default()
        })
        .unwrap();
    assert!(!denied.granted);
    (g, token)
}

fn chain(g: &Governor) -> Vec<String> {
    g.audit_lines(1, u64::MAX).unwrap()
}

/// Replaces `old` by `new` in line `n` (1-based) and keeps its hash fields.
fn edit(chain: &[String], n: usize, old: &str, new: &str) -> Vec<String> {
    let mut c = chain.to_vec();
    assert!(c[n - 1].contains(old), "{} has no {old}", c[n - 1]);
    c[n - 1] = c[n - 1].replacen(old, new, 1);
    c
}

#[test]
fn given_keys_verify_and_name_the_signer() {
    let (g, _) = governor();
    let c = chain(&g);
    assert!(c.len() >= 10, "{} lines", c.len());
    for alg in [KeyAlgorithm::P256, KeyAlgorithm::Ed25519] {
        let (private, public) = generate_key(alg).unwrap();
        let b = g.export_proof(2, 9, Some(&private)).unwrap();
        assert_eq!(b.format, PROOF_FORMAT);
        assert_eq!((b.from_line, b.to_line, b.anchors.len()), (2, 9, 8));
        assert!(!b.ephemeral_key);
        assert_eq!(b.public_key_base64, public);
        // Anchors are the records' own fields.
        for a in &b.anchors {
            let v: Value = serde_json::from_str(&c[(a.line - 1) as usize]).unwrap();
            assert_eq!(a.entry_hash, v["entryHash"].as_str().unwrap());
            assert_eq!(a.prev_hash, v["prevHash"].as_str().unwrap());
            assert_eq!(a.event_type, v["eventType"].as_str().unwrap());
        }
        assert_eq!(b.first_prev_hash, b.anchors[0].prev_hash);
        assert_eq!(b.last_entry_hash, b.anchors[7].entry_hash);
        let v = verify_proof(&b, &c, std::slice::from_ref(&public));
        assert!(v.ok, "{}", v.message);
        assert_eq!(v.records, 8);
        assert!(g.verify_proof(&b, &[]).unwrap().ok);
        // A different trusted key: refused before anything else.
        let (_, other) = generate_key(alg).unwrap();
        let v = verify_proof(&b, &c, &[other]);
        assert!(!v.ok);
        assert!(v.message.contains("trusted"), "{}", v.message);
    }
}

#[test]
fn summary_counts_releases_reviewers_models_and_tools() {
    let (g, _) = governor();
    let n = chain(&g).len() as u64;
    let b = g.export_proof(1, n, None).unwrap();
    assert!(b.ephemeral_key);
    assert_eq!(b.released_entry_hashes.len(), 3);
    assert_eq!(b.reviewer_ids, vec!["rev-1", "rev-2"]);
    assert_eq!(b.model_counts["m1"], 4, "two grants and two releases");
    assert_eq!(b.model_counts["m2"], 2);
    assert_eq!(b.model_counts["not-allowed"], 1);
    assert_eq!(b.tool_counts["fs.read"], 6);
    assert_eq!(
        b.first_prev_hash,
        leasekit::governor::audit::GENESIS_HASH,
        "line 1 links to genesis"
    );
    assert!(verify_proof(&b, &chain(&g), &[]).ok);
}

#[test]
fn edited_content_with_kept_hash_fields_is_rejected() {
    let (g, _) = governor();
    let c = chain(&g);
    let (private, _) = generate_key(KeyAlgorithm::Ed25519).unwrap();
    let b = g.export_proof(1, c.len() as u64, Some(&private)).unwrap();
    // Line 2 is the first release: change its actual cost, keep prevHash and entryHash.
    let tampered = edit(&c, 2, "\"actualCostCents\":4", "\"actualCostCents\":0");
    let v = verify_proof(&b, &tampered, &[]);
    assert!(!v.ok);
    assert_eq!(v.first_bad_line, Some(2));
    assert!(v.message.contains("does not recompute"), "{}", v.message);
    assert_eq!(v.records, 1);
    // A field LeaseGate's hash never covered (reason) is covered here.
    let last = c.len();
    let tampered = edit(&c, last, "\"reason\":\"", "\"reason\":\"x");
    assert_eq!(
        verify_proof(&b, &tampered, &[]).first_bad_line,
        Some(last as u64)
    );
    // Outside the range: no effect on a proof of lines 3..5.
    let b35 = g.export_proof(3, 5, Some(&private)).unwrap();
    let outside = edit(&c, 2, "\"actualCostCents\":4", "\"actualCostCents\":0");
    assert!(verify_proof(&b35, &outside, &[]).ok);
    // A line dropped from the range breaks its link.
    let mut dropped = c.clone();
    dropped.remove(3);
    let v = verify_proof(&b, &dropped, &[]);
    assert_eq!(v.first_bad_line, Some(4));
    // The chain shorter than the proof.
    let v = verify_proof(&b, &c[..c.len() - 1], &[]);
    assert_eq!(v.first_bad_line, Some(c.len() as u64));
    assert!(v.message.contains("missing"), "{}", v.message);
}

#[test]
fn rewritten_chain_with_recomputed_hashes_fails_the_anchors() {
    // An attacker who edits a line and recomputes every later hash gets a chain that
    // verifies on its own, but not against the signed anchors.
    let (g, _) = governor();
    let c = chain(&g);
    let b = g.export_proof(1, c.len() as u64, None).unwrap();
    let mut prev = leasekit::governor::audit::GENESIS_HASH.to_string();
    let mut forged = Vec::new();
    for (i, line) in c.iter().enumerate() {
        let mut v: Value = serde_json::from_str(line).unwrap();
        if i == 1 {
            v["actualCostCents"] = json!(0);
        }
        v["prevHash"] = json!(prev);
        let h = leasekit::governor::audit::compute_entry_hash(&v).unwrap();
        v["entryHash"] = json!(h);
        prev = h;
        forged.push(serde_json::to_string(&v).unwrap());
    }
    assert!(leasekit::governor::audit::verify_audit(forged.iter().map(String::as_str)).ok);
    let v = verify_proof(&b, &forged, &[]);
    assert_eq!(v.first_bad_line, Some(2));
    assert!(v.message.contains("anchor"), "{}", v.message);
}

#[test]
fn tampered_bundles_are_rejected() {
    let (g, _) = governor();
    let c = chain(&g);
    let (private, public) = generate_key(KeyAlgorithm::P256).unwrap();
    let b = g.export_proof(1, 6, Some(&private)).unwrap();
    assert!(verify_proof(&b, &c, &[]).ok);
    // A flipped signature bit.
    let mut t = b.clone();
    let mut sig = B64.decode(&t.signature_base64).unwrap();
    sig[5] ^= 1;
    t.signature_base64 = B64.encode(sig);
    let v = verify_proof(&t, &c, &[]);
    assert!(!v.ok);
    assert!(v.message.contains("signature"), "{}", v.message);
    // A changed count, an extra reviewer, a dropped anchor, a moved range.
    let mut t = b.clone();
    t.model_counts.insert("m1".into(), 99);
    assert!(!verify_proof(&t, &c, &[]).ok);
    let mut t = b.clone();
    t.reviewer_ids.push("mallory".into());
    assert!(!verify_proof(&t, &c, &[]).ok);
    let mut t = b.clone();
    t.anchors.pop();
    assert!(!verify_proof(&t, &c, &[]).ok);
    let mut t = b.clone();
    t.from_line = 2;
    assert!(!verify_proof(&t, &c, &[]).ok);
    // Another key swapped in and the bundle re-signed by it: fine on its own, refused
    // when the original signer is required.
    let (mallory, _) = generate_key(KeyAlgorithm::Ed25519).unwrap();
    let key = PrivateKey::from_pkcs8_base64(&mallory).unwrap();
    let mut t = b.clone();
    t.algorithm = "ed25519".into();
    t.public_key_base64 = key.public_spki_base64().unwrap();
    t.signature_base64 = B64.encode(key.sign(proof_signed_text(&t).unwrap().as_bytes()));
    assert!(verify_proof(&t, &c, &[]).ok);
    assert!(!verify_proof(&t, &c, std::slice::from_ref(&public)).ok);
    assert!(verify_proof(&b, &c, &[public]).ok);
    // Swapping the key without re-signing fails the signature.
    let mut t = b.clone();
    t.public_key_base64 = key.public_spki_base64().unwrap();
    t.algorithm = "ed25519".into();
    assert!(!verify_proof(&t, &c, &[]).ok);
    // A bundle with unknown fields does not parse.
    let mut v = serde_json::to_value(&b).unwrap();
    v["extra"] = json!(1);
    assert!(serde_json::from_value::<ProofBundle>(v).is_err());
}

#[test]
fn out_of_range_and_broken_chains_are_not_signed() {
    let (g, _) = governor();
    let c = chain(&g);
    let n = c.len() as u64;
    for (from, to) in [(0, 3), (4, 3), (1, n + 1), (n + 1, n + 2)] {
        let e = g.export_proof(from, to, None).unwrap_err();
        assert_eq!(
            e.code(),
            leasekit::ErrorCode::InvalidRequest,
            "{from}..{to}"
        );
    }
    assert!(proof_range(&c, 2, n + 1).is_err());
    let tampered = edit(&c, 3, "\"m2\"", "\"m1\"");
    let e = export_proof(1, proof_range(&tampered, 1, 5).unwrap(), None).unwrap_err();
    assert!(e.message().contains("audit line 3"), "{}", e.message());
    // A bad key is refused, not replaced by an ephemeral one.
    assert!(g.export_proof(1, 2, Some("bm90IGEga2V5")).is_err());
}

#[test]
fn jsonl_files_and_directories() {
    let (g, _) = governor();
    let c = chain(&g);
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    let file = dir.join("a.jsonl");
    std::fs::write(&file, c[..4].join("\n") + "\n").unwrap();
    std::fs::write(dir.join("b.jsonl"), c[4..].join("\n")).unwrap();
    std::fs::write(dir.join("notes.txt"), "not audit").unwrap();
    let lines = read_jsonl_chain(&dir).unwrap();
    assert_eq!(lines.len(), c.len());
    assert_eq!(
        (lines[4].line_in_file, lines[4].file.clone()),
        (1, dir.join("b.jsonl"))
    );
    let b = export_proof_from_jsonl(&dir, 3, 7, None).unwrap();
    let texts: Vec<&str> = lines.iter().map(|l| l.text.as_str()).collect();
    assert!(verify_proof(&b, &texts, &[]).ok);
    // The same range from the store's chain: the same anchors.
    let s = g.export_proof(3, 7, None).unwrap();
    assert_eq!(s.anchors, b.anchors);
    assert!(
        export_proof_from_jsonl(&file, 3, 7, None).is_err(),
        "file has 4 lines"
    );
}

#[test]
fn no_secret_reaches_a_bundle() {
    let (g, token) = governor();
    let (private, _) = generate_key(KeyAlgorithm::P256).unwrap();
    let n = chain(&g).len() as u64;
    let text = serde_json::to_string(&g.export_proof(1, n, Some(&private)).unwrap()).unwrap();
    assert!(!text.contains(&token), "approval token in the bundle");
    assert!(!text.contains(&private), "private key in the bundle");
    let ephemeral = serde_json::to_string(&g.export_proof(1, n, None).unwrap()).unwrap();
    assert!(!ephemeral.contains("appr-"));
    assert!(!ephemeral.contains("privateKey"));
    assert!(!format!("{:?}", PrivateKey::from_pkcs8_base64(&private).unwrap()).contains(&private));
}
