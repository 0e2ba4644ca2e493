//! The audit chain (SEMANTICS 13.10): JSON Lines, one record per event, each with `prevHash`
//! and `entryHash` = SHA-256 hex of the RFC 8785 form of the record without `entryHash`. The
//! first record has 64 `0`s as `prevHash`; the chain continues across restarts.
//! Verification recomputes every hash and link and names the first bad line.

pub mod jcs;
pub mod proof;

use std::collections::BTreeMap;

use serde_json::Value;
use sha2::{Digest, Sha256};

pub use jcs::AVal;
pub use proof::{
    ProofAnchor, ProofBundle, ProofVerification, export_proof, export_proof_from_jsonl,
    read_jsonl_chain, verify_proof,
};

/// The `prevHash` of the first record.
pub const GENESIS_HASH: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// An audit record being built: field name -> value (sorted, so the JCS order).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AuditRecord {
    fields: BTreeMap<&'static str, AVal>,
}

impl AuditRecord {
    /// A record of `event_type` at `timestamp_utc`.
    pub fn new(event_type: &str, timestamp_utc: String) -> AuditRecord {
        let mut r = AuditRecord::default();
        r.s("eventType", event_type);
        r.fields.insert("timestampUtc", AVal::Str(timestamp_utc));
        r.s("protocolVersion", crate::governor::wire::PROTOCOL_VERSION);
        r
    }

    /// Sets a string field.
    pub fn s(&mut self, key: &'static str, v: &str) -> &mut Self {
        self.fields.insert(key, AVal::Str(v.to_string()));
        self
    }

    /// Sets an integer field.
    pub fn i(&mut self, key: &'static str, v: i64) -> &mut Self {
        self.fields.insert(key, AVal::Int(v));
        self
    }

    /// Sets a boolean field.
    pub fn b(&mut self, key: &'static str, v: bool) -> &mut Self {
        self.fields.insert(key, AVal::Bool(v));
        self
    }

    /// Sets a string-list field.
    pub fn list(&mut self, key: &'static str, v: Vec<String>) -> &mut Self {
        self.fields.insert(key, AVal::Strs(v));
        self
    }

    /// The event type.
    pub fn event_type(&self) -> &str {
        match self.fields.get("eventType") {
            Some(AVal::Str(s)) => s,
            _ => "",
        }
    }

    /// Chains the record after `prev_hash`: returns the JSON line (JCS, `entryHash`
    /// included) and its `entryHash`.
    pub fn seal(mut self, prev_hash: &str) -> (String, String) {
        self.fields.remove("entryHash");
        self.fields
            .insert("prevHash", AVal::Str(prev_hash.to_string()));
        // One canonical pass; `entryHash` is then spliced in at its sorted place.
        let (mut body, at) = self.canonical();
        let hash = hex::encode(Sha256::digest(body.as_bytes()));
        let member = match at {
            Some(_) => format!("\"entryHash\":\"{hash}\","),
            None if self.fields.is_empty() => format!("\"entryHash\":\"{hash}\""),
            None => format!(",\"entryHash\":\"{hash}\""),
        };
        body.insert_str(at.unwrap_or(body.len() - 1), &member);
        (body, hash)
    }

    /// The JCS text and the byte offset of the first member whose key sorts after
    /// `entryHash` (where that member belongs), if any.
    fn canonical(&self) -> (String, Option<usize>) {
        let mut out = String::with_capacity(768);
        out.push('{');
        let mut at = None;
        for (i, (k, v)) in self.fields.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            if at.is_none() && *k > "entryHash" {
                at = Some(out.len());
            }
            jcs::write_str(&mut out, k);
            out.push(':');
            jcs::write_val(&mut out, v);
        }
        out.push('}');
        (out, at)
    }
}

/// The result of verifying a chain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditVerification {
    /// Every record recomputes and links.
    pub ok: bool,
    /// Records checked (all of them when ok; up to the bad one otherwise).
    pub records: u64,
    /// First bad line (1-based).
    pub first_bad_line: Option<u64>,
    /// What is wrong.
    pub message: String,
}

/// Recomputes the `entryHash` of one record (given as a JSON object).
pub fn compute_entry_hash(record: &Value) -> Result<String, String> {
    let Value::Object(map) = record else {
        return Err("record is not a JSON object".to_string());
    };
    let mut m = map.clone();
    m.remove("entryHash");
    let canon = serde_json_canonicalizer::to_string(&Value::Object(m))
        .map_err(|e| format!("cannot canonicalize: {e}"))?;
    Ok(hex::encode(Sha256::digest(canon.as_bytes())))
}

/// Verifies records in chain order (the first must have the genesis `prevHash` unless
/// `start_prev` says otherwise). Blank lines are errors.
pub fn verify_records<'a>(
    lines: impl IntoIterator<Item = &'a str>,
    start_prev: &str,
) -> AuditVerification {
    let mut prev = start_prev.to_string();
    let mut n = 0u64;
    for line in lines {
        n += 1;
        let bad = |message: String| AuditVerification {
            ok: false,
            records: n - 1,
            first_bad_line: Some(n),
            message,
        };
        let v: Value = match serde_json::from_str(line) {
            Ok(v) => v,
            Err(e) => return bad(format!("line {n}: not JSON: {e}")),
        };
        let stored = v.get("entryHash").and_then(Value::as_str).unwrap_or("");
        let link = v.get("prevHash").and_then(Value::as_str).unwrap_or("");
        if link != prev {
            return bad(format!(
                "line {n}: prevHash does not link to the previous entry"
            ));
        }
        match compute_entry_hash(&v) {
            Ok(h) if h == stored => prev = h,
            Ok(_) => return bad(format!("line {n}: entryHash does not recompute")),
            Err(e) => return bad(format!("line {n}: {e}")),
        }
    }
    AuditVerification {
        ok: true,
        records: n,
        first_bad_line: None,
        message: String::new(),
    }
}

/// Verifies a whole chain from its genesis.
pub fn verify_audit<'a>(lines: impl IntoIterator<Item = &'a str>) -> AuditVerification {
    verify_records(lines, GENESIS_HASH)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seal_verify_and_tamper() {
        let mut r = AuditRecord::new("lease_acquired", "2026-01-01T00:00:00.000Z".into());
        r.s("leaseId", "lease-1")
            .i("estimatedCostCents", 5)
            .list("requestedTools", vec!["a:Exec".into()]);
        let (l1, h1) = r.clone().seal(GENESIS_HASH);
        let (l2, _) = r.seal(&h1);
        let v: Value = serde_json::from_str(&l1).unwrap();
        assert_eq!(compute_entry_hash(&v).unwrap(), h1);
        assert_eq!(
            serde_json_canonicalizer::to_string(&v).unwrap(),
            l1,
            "the line is JCS"
        );
        let (only, _) = AuditRecord::default().seal(GENESIS_HASH);
        let v: Value = serde_json::from_str(&only).unwrap();
        assert_eq!(serde_json_canonicalizer::to_string(&v).unwrap(), only);
        assert!(verify_audit([l1.as_str(), l2.as_str()]).ok);
        let tampered = l2.replace("\"estimatedCostCents\":5", "\"estimatedCostCents\":6");
        let out = verify_audit([l1.as_str(), tampered.as_str()]);
        assert_eq!(out.first_bad_line, Some(2));
        assert!(!verify_audit([l2.as_str()]).ok);
    }
}
