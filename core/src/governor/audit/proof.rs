//! Signed proof bundles over a range of the audit chain (SEMANTICS 13.10; LeaseGate's
//! `ExportProof`). A bundle holds, for lines `fromLine..=toLine`, the per-line anchors (line,
//! eventType, policyHash, prevHash, entryHash, leaseId, tools), the first `prevHash`, the last
//! `entryHash`, the entry hashes of `lease_released` records, the reviewer ids and the model
//! and tool counts, signed with ECDSA P-256 or Ed25519 (the keys of signed policy bundles).
//!
//! Unlike LeaseGate's, verification does not trust the stored hash fields: it recomputes the
//! `entryHash` of every record in the range from its content and checks every link, then
//! compares the anchors and the summary with what it derived, then checks the signature. A
//! line whose content was edited but whose hash fields were kept is rejected, and so is a line
//! that is not byte-identical to the RFC 8785 form of its record (a duplicated key, other
//! spacing or key order).
//!
//! The signed message is `leasekit-audit-proof/1\n` followed by the RFC 8785 form of the
//! bundle without `signatureBase64`. Without a given key, the bundle is signed with a fresh
//! (ephemeral) Ed25519 key whose private half is dropped: such a bundle proves the range's
//! integrity as of signing, not who signed it (`ephemeralKey: true`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as B64;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::check_line;
use crate::governor::policy::{BundleKey, KeyAlgorithm, PrivateKey, generate_key};
use crate::{Error, ErrorCode};

/// The bundle format tag (also the first line of the signed message).
pub const PROOF_FORMAT: &str = "leasekit-audit-proof/1";

/// One audit line's anchors.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProofAnchor {
    /// Line number in the chain (1-based).
    pub line: u64,
    /// `eventType` of the record.
    pub event_type: String,
    /// `policyHash` of the record (empty when it has none).
    pub policy_hash: String,
    /// `prevHash` of the record.
    pub prev_hash: String,
    /// `entryHash` of the record (recomputed on verification).
    pub entry_hash: String,
    /// `leaseId` of the record (empty when it has none).
    pub lease_id: String,
    /// The record's `requestedTools` (`toolId:Category`), then its `toolId` when it has one.
    pub tools: Vec<String>,
}

/// A signed proof bundle over audit lines `from_line..=to_line`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProofBundle {
    /// [`PROOF_FORMAT`].
    pub format: String,
    /// First line of the range (1-based).
    pub from_line: u64,
    /// Last line of the range (inclusive).
    pub to_line: u64,
    /// `prevHash` of the first line (links the range to the chain before it).
    pub first_prev_hash: String,
    /// `entryHash` of the last line.
    pub last_entry_hash: String,
    /// Entry hashes of the `lease_released` records in the range, in chain order.
    pub released_entry_hashes: Vec<String>,
    /// Distinct `reviewerId`s in the range, sorted.
    pub reviewer_ids: Vec<String>,
    /// Records per `modelId` (records with a non-empty `modelId`).
    pub model_counts: BTreeMap<String, u64>,
    /// Anchors per tool id (the part of each anchor tool before `:`).
    pub tool_counts: BTreeMap<String, u64>,
    /// Per-line anchors, `from_line` first.
    pub anchors: Vec<ProofAnchor>,
    /// `ed25519` or `p256`.
    pub algorithm: String,
    /// The signer's public key, SPKI DER in base64.
    pub public_key_base64: String,
    /// True when no key was given and a throwaway key signed (integrity, not authorship).
    pub ephemeral_key: bool,
    /// The signature (P-256: P1363 `r||s`; Ed25519: 64 bytes), base64.
    pub signature_base64: String,
}

/// The outcome of [`verify_proof`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProofVerification {
    /// The bundle is signed by an accepted key and every line in its range recomputes,
    /// links and matches its anchors.
    pub ok: bool,
    /// Lines of the range checked and found good.
    pub records: u64,
    /// First bad chain line (1-based), when a line is at fault.
    pub first_bad_line: Option<u64>,
    /// What is wrong (empty when ok).
    pub message: String,
}

impl ProofVerification {
    fn bad(records: u64, line: Option<u64>, message: String) -> ProofVerification {
        ProofVerification {
            ok: false,
            records,
            first_bad_line: line,
            message,
        }
    }
}

fn str_field<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

/// The anchors of one record, or why the record is bad.
fn anchor_of(line: u64, text: &str) -> Result<(ProofAnchor, Value), String> {
    // Byte-identical to its RFC 8785 form, and its entryHash recomputes (SEMANTICS 13.16).
    let (v, recomputed) = check_line(text)?;
    let mut tools: Vec<String> = v
        .get("requestedTools")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    let tool_id = str_field(&v, "toolId");
    if !tool_id.is_empty() {
        tools.push(tool_id.to_string());
    }
    let anchor = ProofAnchor {
        line,
        event_type: str_field(&v, "eventType").to_string(),
        policy_hash: str_field(&v, "policyHash").to_string(),
        prev_hash: str_field(&v, "prevHash").to_string(),
        entry_hash: recomputed,
        lease_id: str_field(&v, "leaseId").to_string(),
        tools,
    };
    Ok((anchor, v))
}

/// The unsigned content derived from a range: recomputes and links every line.
/// `Err((line, message))` names the first bad line.
fn derive<S: AsRef<str>>(from: u64, lines: &[S]) -> Result<ProofBundle, (u64, String)> {
    let mut anchors = Vec::with_capacity(lines.len());
    let mut released = Vec::new();
    let mut reviewers = BTreeSet::new();
    let mut models: BTreeMap<String, u64> = BTreeMap::new();
    let mut tool_counts: BTreeMap<String, u64> = BTreeMap::new();
    let mut prev: Option<String> = None;
    for (i, text) in lines.iter().enumerate() {
        let line = from + i as u64;
        let (anchor, v) = anchor_of(line, text.as_ref()).map_err(|m| (line, m))?;
        if let Some(p) = &prev
            && anchor.prev_hash != *p
        {
            return Err((line, "prevHash does not link to the previous entry".into()));
        }
        prev = Some(anchor.entry_hash.clone());
        if anchor.event_type == "lease_released" {
            released.push(anchor.entry_hash.clone());
        }
        let reviewer = str_field(&v, "reviewerId");
        if !reviewer.is_empty() {
            reviewers.insert(reviewer.to_string());
        }
        let model = str_field(&v, "modelId");
        if !model.is_empty() {
            *models.entry(model.to_string()).or_default() += 1;
        }
        for t in &anchor.tools {
            let id = t.split_once(':').map_or(t.as_str(), |(id, _)| id);
            *tool_counts.entry(id.to_string()).or_default() += 1;
        }
        anchors.push(anchor);
    }
    let (Some(first), Some(last)) = (anchors.first(), anchors.last()) else {
        return Err((from, "empty range".into()));
    };
    Ok(ProofBundle {
        format: PROOF_FORMAT.into(),
        from_line: from,
        to_line: last.line,
        first_prev_hash: first.prev_hash.clone(),
        last_entry_hash: last.entry_hash.clone(),
        released_entry_hashes: released,
        reviewer_ids: reviewers.into_iter().collect(),
        model_counts: models,
        tool_counts,
        anchors,
        algorithm: String::new(),
        public_key_base64: String::new(),
        ephemeral_key: false,
        signature_base64: String::new(),
    })
}

/// The signed message of a bundle: the format line and the RFC 8785 form of the bundle
/// without `signatureBase64`.
pub fn proof_signed_text(b: &ProofBundle) -> crate::Result<String> {
    let mut v = serde_json::to_value(b)
        .map_err(|e| Error::new(ErrorCode::InternalError, format!("bundle: {e}")))?;
    if let Value::Object(m) = &mut v {
        m.remove("signatureBase64");
    }
    let canon = serde_json_canonicalizer::to_string(&v)
        .map_err(|e| Error::new(ErrorCode::InternalError, format!("bundle: {e}")))?;
    Ok(format!("{PROOF_FORMAT}\n{canon}"))
}

fn alg_name(a: KeyAlgorithm) -> &'static str {
    match a {
        KeyAlgorithm::P256 => "p256",
        KeyAlgorithm::Ed25519 => "ed25519",
    }
}

/// Builds and signs a proof over `range`, the audit lines `from..` of a chain in order
/// (`range[0]` is line `from`). `private_key_base64` is a PKCS#8 DER key (P-256 or Ed25519,
/// as `leasekit policy keygen` writes); `None` signs with an ephemeral Ed25519 key.
/// Refuses (`INVALID_REQUEST`) an empty range, `from` = 0, and a range with a line that does
/// not recompute or link: a proof is never signed over a broken chain.
pub fn export_proof<S: AsRef<str>>(
    from: u64,
    range: &[S],
    private_key_base64: Option<&str>,
) -> crate::Result<ProofBundle> {
    if from == 0 {
        return Err(Error::invalid("fromLine starts at 1"));
    }
    if range.is_empty() {
        return Err(Error::invalid(format!(
            "no audit lines from line {from}: the range is empty or out of range"
        )));
    }
    let mut b = derive(from, range)
        .map_err(|(line, m)| Error::invalid(format!("audit line {line}: {m}; not signed")))?;
    let (key, ephemeral) = match private_key_base64 {
        Some(k) => (PrivateKey::from_pkcs8_base64(k)?, false),
        None => {
            let (private, _) = generate_key(KeyAlgorithm::Ed25519)?;
            (PrivateKey::from_pkcs8_base64(&private)?, true)
        }
    };
    b.algorithm = alg_name(key.algorithm()).into();
    b.public_key_base64 = key.public_spki_base64()?;
    b.ephemeral_key = ephemeral;
    b.signature_base64 = B64.encode(key.sign(proof_signed_text(&b)?.as_bytes()));
    Ok(b)
}

/// Verifies a bundle against the chain it covers: `chain[n - 1]` is audit line `n` (the
/// whole chain, or at least its lines up to `toLine`). `trusted` are SPKI DER keys in base64:
/// when non-empty the bundle's key must be one of them (an ephemeral bundle then fails);
/// when empty any key whose signature verifies is accepted (integrity only).
///
/// Order: format, range bounds, key and signature, then every line of the range is
/// recomputed and linked and compared with its anchor (the first bad line is named), then
/// the summary.
pub fn verify_proof<S: AsRef<str>>(
    bundle: &ProofBundle,
    chain: &[S],
    trusted: &[String],
) -> ProofVerification {
    let b = bundle;
    if b.format != PROOF_FORMAT {
        return ProofVerification::bad(0, None, format!("not a {PROOF_FORMAT} bundle"));
    }
    let (from, to) = (b.from_line, b.to_line);
    if from == 0 || to < from {
        return ProofVerification::bad(0, None, format!("bad range {from}..{to}"));
    }
    let span = to - from + 1;
    if b.anchors.len() as u64 != span || b.anchors.iter().zip(from..).any(|(a, n)| a.line != n) {
        return ProofVerification::bad(
            0,
            None,
            "anchors do not cover the range line by line".into(),
        );
    }
    // The key and the signature.
    let Ok(der) = B64.decode(b.public_key_base64.trim()) else {
        return ProofVerification::bad(0, None, "public key is not base64".into());
    };
    let key = match BundleKey::from_spki_base64(&b.public_key_base64) {
        Ok(k) => k,
        Err(e) => return ProofVerification::bad(0, None, e.message().to_string()),
    };
    let alg_ok = matches!(
        (&key, b.algorithm.as_str()),
        (BundleKey::P256(_), "p256") | (BundleKey::Ed25519(_), "ed25519")
    );
    if !alg_ok {
        return ProofVerification::bad(0, None, "algorithm does not match the key".into());
    }
    if !trusted.is_empty()
        && !trusted
            .iter()
            .any(|t| B64.decode(t.trim()).is_ok_and(|d| d == der))
    {
        return ProofVerification::bad(0, None, "the bundle is not signed by a trusted key".into());
    }
    let sig_ok = B64
        .decode(b.signature_base64.trim())
        .is_ok_and(|sig| proof_signed_text(b).is_ok_and(|msg| key.verify(msg.as_bytes(), &sig)));
    if !sig_ok {
        return ProofVerification::bad(0, None, "signature does not verify".into());
    }
    // The range, recomputed.
    let have = chain.len() as u64;
    let end = to.min(have);
    let range: &[S] = if from <= have {
        &chain[(from - 1) as usize..end as usize]
    } else {
        &[]
    };
    let mut prev = b.first_prev_hash.clone();
    for (i, text) in range.iter().enumerate() {
        let line = from + i as u64;
        let good = i as u64;
        let (anchor, _) = match anchor_of(line, text.as_ref()) {
            Ok(a) => a,
            Err(m) => return ProofVerification::bad(good, Some(line), format!("line {line}: {m}")),
        };
        if anchor.prev_hash != prev {
            let what = if i == 0 {
                "prevHash is not the bundle's firstPrevHash"
            } else {
                "prevHash does not link to the previous entry"
            };
            return ProofVerification::bad(good, Some(line), format!("line {line}: {what}"));
        }
        if anchor != b.anchors[i] {
            return ProofVerification::bad(
                good,
                Some(line),
                format!("line {line}: the record does not match its anchor"),
            );
        }
        prev = anchor.entry_hash;
    }
    if end < to {
        return ProofVerification::bad(
            end.saturating_sub(from - 1),
            Some(end + 1),
            format!(
                "line {}: missing (the chain has {have} lines; the proof covers {from}..{to})",
                end + 1
            ),
        );
    }
    // The summary, derived again from the (now known good) lines.
    match derive(from, range) {
        Ok(mut d) => {
            d.algorithm.clone_from(&b.algorithm);
            d.public_key_base64.clone_from(&b.public_key_base64);
            d.ephemeral_key = b.ephemeral_key;
            d.signature_base64.clone_from(&b.signature_base64);
            if d != *b {
                return ProofVerification::bad(
                    span,
                    None,
                    "the summary (released hashes, reviewers, counts) does not match the records"
                        .into(),
                );
            }
        }
        Err((line, m)) => {
            return ProofVerification::bad(0, Some(line), format!("line {line}: {m}"));
        }
    }
    ProofVerification {
        ok: true,
        records: span,
        first_bad_line: None,
        message: String::new(),
    }
}

/// One line of a JSONL chain read from disk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChainLine {
    /// The file it came from.
    pub file: PathBuf,
    /// Its line number in that file (1-based).
    pub line_in_file: u64,
    /// The record text (without the line end).
    pub text: String,
}

/// Reads a JSONL audit chain: a file, or every `*.jsonl` file of a directory in name order
/// (the order `leasekit audit verify DIR` uses). A trailing newline ends the last line; an
/// empty file contributes nothing.
pub fn read_jsonl_chain(path: &Path) -> crate::Result<Vec<ChainLine>> {
    let io = |p: &Path, e: std::io::Error| Error::invalid(format!("{}: {e}", p.display()));
    let files: Vec<PathBuf> = if path.is_dir() {
        let mut v: Vec<PathBuf> = std::fs::read_dir(path)
            .map_err(|e| io(path, e))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
            .collect();
        v.sort();
        if v.is_empty() {
            return Err(Error::invalid(format!(
                "{}: no *.jsonl files",
                path.display()
            )));
        }
        v
    } else {
        vec![path.to_path_buf()]
    };
    let mut out = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).map_err(|e| io(&f, e))?;
        let body = text.strip_suffix('\n').unwrap_or(&text);
        if body.is_empty() {
            continue;
        }
        for (n, l) in body.split('\n').enumerate() {
            out.push(ChainLine {
                file: f.clone(),
                line_in_file: n as u64 + 1,
                text: l.strip_suffix('\r').unwrap_or(l).to_string(),
            });
        }
    }
    Ok(out)
}

/// [`export_proof`] over lines `from..=to` of a JSONL chain on disk ([`read_jsonl_chain`]).
/// A range past the end of the chain is refused.
pub fn export_proof_from_jsonl(
    path: &Path,
    from: u64,
    to: u64,
    private_key_base64: Option<&str>,
) -> crate::Result<ProofBundle> {
    let chain = read_jsonl_chain(path)?;
    let lines: Vec<&str> = chain.iter().map(|l| l.text.as_str()).collect();
    proof_range(&lines, from, to).and_then(|range| export_proof(from, range, private_key_base64))
}

/// `chain[from - 1 ..= to - 1]`, refusing an empty or out-of-range request.
pub fn proof_range<S>(chain: &[S], from: u64, to: u64) -> crate::Result<&[S]> {
    let have = chain.len() as u64;
    if from == 0 || to < from {
        return Err(Error::invalid(format!(
            "bad range {from}..{to}: lines are numbered from 1 and --to must be >= --from"
        )));
    }
    if to > have {
        return Err(Error::invalid(format!(
            "range {from}..{to} is out of range: the chain has {have} lines"
        )));
    }
    Ok(&chain[(from - 1) as usize..to as usize])
}

#[cfg(test)]
mod tests {
    use super::super::{AuditRecord, GENESIS_HASH};
    use super::*;

    fn chain(n: usize) -> Vec<String> {
        let mut prev = GENESIS_HASH.to_string();
        let mut out = Vec::new();
        for i in 0..n {
            let ev = if i % 2 == 0 {
                "lease_acquired"
            } else {
                "lease_released"
            };
            let mut r = AuditRecord::new(ev, format!("2026-01-01T00:00:0{i}.000Z"));
            r.s("leaseId", &format!("lease-{}", i / 2 + 1))
                .s("modelId", "m1")
                .s("policyHash", "ph")
                .list("requestedTools", vec!["fs.read:FileRead".into()]);
            let (line, h) = r.seal(&prev);
            prev = h;
            out.push(line);
        }
        out
    }

    #[test]
    fn ephemeral_roundtrip_and_range() {
        let c = chain(6);
        let b = export_proof(2, proof_range(&c, 2, 5).unwrap(), None).unwrap();
        assert!(b.ephemeral_key);
        assert_eq!(b.anchors.len(), 4);
        assert_eq!(b.released_entry_hashes.len(), 2);
        assert_eq!(b.model_counts["m1"], 4);
        assert_eq!(b.tool_counts["fs.read"], 4);
        let v = verify_proof(&b, &c, &[]);
        assert!(v.ok, "{}", v.message);
        assert_eq!(v.records, 4);
        // An ephemeral bundle is refused when a signer is required.
        let (_, other) = generate_key(KeyAlgorithm::P256).unwrap();
        assert!(!verify_proof(&b, &c, &[other]).ok);
        assert!(proof_range(&c, 0, 1).is_err());
        assert!(proof_range(&c, 3, 7).is_err());
        assert!(proof_range(&c, 3, 2).is_err());
        // A chain shorter than the proof: the first missing line.
        let v = verify_proof(&b, &c[..3], &[]);
        assert_eq!(v.first_bad_line, Some(4));
    }
}
