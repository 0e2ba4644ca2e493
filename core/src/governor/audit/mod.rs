//! The audit chain (SEMANTICS 13.10): JSON Lines, one record per event, each with `prevHash`
//! and `entryHash` = SHA-256 hex of the RFC 8785 form of the record without `entryHash`. The
//! first record has 64 `0`s as `prevHash`; the chain continues across restarts.
//! Verification recomputes every hash and link, requires every line to be the RFC 8785 form of
//! its record, and names the first bad line; a store's chain must also end at the head and
//! count the store records (SEMANTICS 13.16).

pub mod jcs;
pub mod proof;

use serde_json::Value;
use sha2::{Digest, Sha256};

pub use jcs::AVal;
pub use proof::{
    ProofAnchor, ProofBundle, ProofVerification, export_proof, export_proof_from_jsonl,
    read_jsonl_chain, verify_proof,
};

/// The `prevHash` of the first record.
pub const GENESIS_HASH: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// A value of a record under construction: string data lives in the record's one buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Val {
    /// `buf[start..end]`.
    Str(u32, u32),
    /// An integer.
    Int(i64),
    /// A boolean.
    Bool(bool),
    /// `items[start..end]`, each a `buf` range.
    Strs(u32, u32),
}

/// An audit record being built: fields in the order set (a later set of a key wins), their
/// string data in one buffer, sorted into JCS order once, when sealed. Building a record
/// allocates a few buffers, not one string per field.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AuditRecord {
    buf: String,
    items: Vec<(u32, u32)>,
    /// (key's first 8 bytes as an integer, key, value).
    fields: Vec<(u64, &'static str, Val)>,
}

impl AuditRecord {
    /// A record of `event_type` at `timestamp_utc`.
    pub fn new(event_type: &str, timestamp_utc: String) -> AuditRecord {
        let mut r = AuditRecord {
            buf: String::with_capacity(640),
            items: Vec::new(),
            fields: Vec::with_capacity(32),
        };
        r.s("eventType", event_type);
        r.s("timestampUtc", &timestamp_utc);
        r.s("protocolVersion", crate::governor::wire::PROTOCOL_VERSION);
        r
    }

    fn put(&mut self, key: &'static str, v: Val) {
        self.fields.push((key_prefix(key), key, v));
    }

    fn span(&mut self, parts: &[&str]) -> (u32, u32) {
        let start = self.buf.len() as u32;
        for p in parts {
            self.buf.push_str(p);
        }
        (start, self.buf.len() as u32)
    }

    /// Sets a string field.
    pub fn s(&mut self, key: &'static str, v: &str) -> &mut Self {
        let (a, b) = self.span(&[v]);
        self.put(key, Val::Str(a, b));
        self
    }

    /// Sets an integer field.
    pub fn i(&mut self, key: &'static str, v: i64) -> &mut Self {
        self.put(key, Val::Int(v));
        self
    }

    /// Sets a boolean field.
    pub fn b(&mut self, key: &'static str, v: bool) -> &mut Self {
        self.put(key, Val::Bool(v));
        self
    }

    /// Sets a string-list field.
    pub fn list(&mut self, key: &'static str, v: Vec<String>) -> &mut Self {
        self.list_parts(key, v.iter().map(|s| [s.as_str()]))
    }

    /// Sets a string-list field whose items are each the concatenation of `N` parts (e.g.
    /// `[toolId, ":", category]`), without building the item strings first.
    pub fn list_parts<'p, const N: usize>(
        &mut self,
        key: &'static str,
        items: impl IntoIterator<Item = [&'p str; N]>,
    ) -> &mut Self {
        let first = self.items.len() as u32;
        for parts in items {
            let span = self.span(&parts);
            self.items.push(span);
        }
        let last = self.items.len() as u32;
        self.put(key, Val::Strs(first, last));
        self
    }

    fn text(&self, (a, b): (u32, u32)) -> &str {
        &self.buf[a as usize..b as usize]
    }

    /// The event type.
    pub fn event_type(&self) -> &str {
        match self.fields.iter().rev().find(|(_, k, _)| *k == "eventType") {
            Some((_, _, Val::Str(a, b))) => self.text((*a, *b)),
            _ => "",
        }
    }

    /// Chains the record after `prev_hash`: returns the JSON line (JCS, `entryHash`
    /// included) and its `entryHash`.
    pub fn seal(mut self, prev_hash: &str) -> (String, String) {
        self.s("prevHash", prev_hash);
        // Stable: of equal keys the one set last comes last and wins. The first 8 bytes of a
        // key, big-endian, order like the key itself, so most comparisons are one integer's.
        self.fields
            .sort_by(|x, y| x.0.cmp(&y.0).then_with(|| x.1.cmp(y.1)));
        // One canonical pass; `entryHash` is then spliced in at its sorted place.
        let (mut body, at) = self.canonical();
        let digest = Sha256::digest(body.as_bytes());
        let mut hex_buf = [0u8; 64];
        hex::encode_to_slice(digest, &mut hex_buf).expect("64 hex digits");
        let hash = std::str::from_utf8(&hex_buf).expect("hex is ASCII");
        let pos = at.unwrap_or(body.len() - 1);
        let empty = body.len() == 2;
        let mut line = String::with_capacity(body.len() + 80);
        line.push_str(&body[..pos]);
        if at.is_none() && !empty {
            line.push(',');
        }
        line.push_str("\"entryHash\":\"");
        line.push_str(hash);
        line.push('"');
        if at.is_some() {
            line.push(',');
        }
        line.push_str(&body[pos..]);
        body.clear();
        (line, hash.to_string())
    }

    /// The JCS text (fields sorted, the last of equal keys kept, `entryHash` left out) and
    /// the byte offset of the first member whose key sorts after `entryHash`, if any.
    fn canonical(&self) -> (String, Option<usize>) {
        let mut out = String::with_capacity(self.buf.len() + self.fields.len() * 24 + 96);
        out.push('{');
        let mut at = None;
        let mut first = true;
        for (i, (_, k, v)) in self.fields.iter().enumerate() {
            if *k == "entryHash" || self.fields.get(i + 1).is_some_and(|(_, n, _)| n == k) {
                continue;
            }
            if !first {
                out.push(',');
            }
            first = false;
            if at.is_none() && *k > "entryHash" {
                at = Some(out.len());
            }
            // Keys are the engine's own identifiers: nothing to escape.
            debug_assert!(k.bytes().all(|b| b.is_ascii_alphanumeric()), "{k}");
            out.push('"');
            out.push_str(k);
            out.push_str("\":");
            match *v {
                Val::Str(a, b) => jcs::write_str(&mut out, self.text((a, b))),
                Val::Int(n) => jcs::write_int(&mut out, n),
                Val::Bool(b) => out.push_str(if b { "true" } else { "false" }),
                Val::Strs(a, b) => {
                    out.push('[');
                    for (j, span) in self.items[a as usize..b as usize].iter().enumerate() {
                        if j > 0 {
                            out.push(',');
                        }
                        jcs::write_str(&mut out, self.text(*span));
                    }
                    out.push(']');
                }
            }
        }
        out.push('}');
        (out, at)
    }
}

/// The first 8 bytes of `k` (zero-padded) as a big-endian integer: orders as `k` does up to
/// ties, which the full key then breaks.
fn key_prefix(k: &str) -> u64 {
    let mut b = [0u8; 8];
    let n = k.len().min(8);
    b[..n].copy_from_slice(&k.as_bytes()[..n]);
    u64::from_be_bytes(b)
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

/// The RFC 8785 text of a record: the form a chain line must have (e.g. to write the records
/// of `ExportAudit` as a JSONL file that verifies).
pub fn canonical_text(record: &Value) -> Result<String, String> {
    serde_json_canonicalizer::to_string(record).map_err(|e| format!("cannot canonicalize: {e}"))
}

/// Parses one chain line: a JSON object whose text is byte-identical to the RFC 8785 form of
/// its value (the hash is not checked: see [`check_line`]).
pub fn parse_canonical(text: &str) -> Result<Value, String> {
    let v: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    if !v.is_object() {
        return Err("record is not a JSON object".to_string());
    }
    if canonical_text(&v)? != text {
        return Err(
            "the line is not the RFC 8785 form of its record (a duplicated key, \
                    other spacing, key order, escapes or number forms)"
                .to_string(),
        );
    }
    Ok(v)
}

/// Checks one chain line on its own: a JSON object, byte-identical to the RFC 8785 form of its
/// value (SEMANTICS 13.16: a duplicated key, other spacing, key order, escapes or number forms
/// are bad lines, so every reader of the line sees the value that was hashed), whose
/// `entryHash` recomputes. Answers the record and its `entryHash`.
pub fn check_line(text: &str) -> Result<(Value, String), String> {
    let v = parse_canonical(text)?;
    let stored = v.get("entryHash").and_then(Value::as_str).unwrap_or("");
    let h = compute_entry_hash(&v)?;
    if h != stored {
        return Err("entryHash does not recompute".to_string());
    }
    Ok((v, h))
}

/// Verifies a chain one line at a time, holding only the last hash: the memory of a
/// verification does not grow with the chain.
#[derive(Debug, Clone)]
pub struct ChainVerifier {
    prev: String,
    n: u64,
}

impl ChainVerifier {
    /// A verifier whose first line must have `start_prev` as its `prevHash` (a whole chain:
    /// [`GENESIS_HASH`]).
    pub fn new(start_prev: &str) -> ChainVerifier {
        ChainVerifier {
            prev: start_prev.to_string(),
            n: 0,
        }
    }

    /// Lines checked and found good.
    pub fn records(&self) -> u64 {
        self.n
    }

    /// The `entryHash` of the last good line (the start `prevHash` before any).
    pub fn head(&self) -> &str {
        &self.prev
    }

    /// Checks the next line; the answer at the first bad one names it.
    pub fn push(&mut self, line: &str) -> Result<(), AuditVerification> {
        let n = self.n + 1;
        let bad = |message: String| AuditVerification {
            ok: false,
            records: n - 1,
            first_bad_line: Some(n),
            message: format!("line {n}: {message}"),
        };
        let link_ok = |v: &Value| v.get("prevHash").and_then(Value::as_str) == Some(&self.prev);
        let hash = match check_line(line) {
            Ok((v, _)) if !link_ok(&v) => {
                return Err(bad("prevHash does not link to the previous entry".into()));
            }
            Ok((_, h)) => h,
            Err(m) => return Err(bad(m)),
        };
        self.prev = hash;
        self.n = n;
        Ok(())
    }

    /// The answer when every line pushed was good.
    pub fn ok(&self) -> AuditVerification {
        AuditVerification {
            ok: true,
            records: self.n,
            first_bad_line: None,
            message: String::new(),
        }
    }

    /// After the last line of a store's chain: the chain must end at the head and count the
    /// store records (SEMANTICS 13.16); a deleted or an added last line fails here.
    pub fn finish_at(&self, head: &str, count: u64) -> AuditVerification {
        let n = self.n;
        let bad = |line: u64, message: String| AuditVerification {
            ok: false,
            records: n.min(line.saturating_sub(1)),
            first_bad_line: Some(line),
            message: format!("line {line}: {message}"),
        };
        if n < count {
            return bad(
                n + 1,
                format!("missing: the store records {count} lines, its chain ends at line {n}"),
            );
        }
        if n > count {
            return bad(
                count + 1,
                format!("past the end: the store records {count} lines, its chain has {n}"),
            );
        }
        if self.prev != head {
            return bad(
                n.max(1),
                "the last entryHash is not the chain head the store records".to_string(),
            );
        }
        self.ok()
    }
}

/// Verifies records in chain order (the first must have the genesis `prevHash` unless
/// `start_prev` says otherwise). Blank lines are errors.
pub fn verify_records<'a>(
    lines: impl IntoIterator<Item = &'a str>,
    start_prev: &str,
) -> AuditVerification {
    let mut v = ChainVerifier::new(start_prev);
    for line in lines {
        if let Err(bad) = v.push(line) {
            return bad;
        }
    }
    v.ok()
}

/// Verifies a whole chain from its genesis.
pub fn verify_audit<'a>(lines: impl IntoIterator<Item = &'a str>) -> AuditVerification {
    verify_records(lines, GENESIS_HASH)
}

/// Lines per page of a store verification.
const VERIFY_PAGE: usize = 256;

/// Verifies a store's whole chain from a snapshot, page by page (memory: one page), then,
/// when the store records a head and count, that the chain ends there (SEMANTICS 13.16). A
/// line number missing from the store is a bad line. An error is a failure to read, not a
/// verdict.
pub fn verify_snapshot(
    snap: &mut dyn crate::governor::store::AuditSnapshot,
) -> crate::Result<AuditVerification> {
    let mut v = ChainVerifier::new(GENESIS_HASH);
    let mut after = 0;
    loop {
        let page = snap.page(after, VERIFY_PAGE)?;
        if page.is_empty() {
            break;
        }
        for (n, text) in page {
            let want = v.records() + 1;
            if n != want {
                return Ok(AuditVerification {
                    ok: false,
                    records: v.records(),
                    first_bad_line: Some(want),
                    message: format!(
                        "line {want}: missing from the store (the next stored line is {n})"
                    ),
                });
            }
            if let Err(bad) = v.push(&text) {
                return Ok(bad);
            }
            after = n;
        }
    }
    Ok(match snap.recorded() {
        Some((head, count)) => v.finish_at(&head, count),
        None => v.ok(),
    })
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
        // A key set twice: the last value wins, as one member.
        let mut twice = AuditRecord::new("x", "t".into());
        twice.s("reason", "a").i("n", -12).s("reason", "b");
        let (line, h) = twice.seal(GENESIS_HASH);
        let v: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(v["reason"], "b");
        assert_eq!(v["n"], -12);
        assert_eq!(line.matches("\"reason\"").count(), 1);
        assert_eq!(compute_entry_hash(&v).unwrap(), h);
        assert_eq!(serde_json_canonicalizer::to_string(&v).unwrap(), line);
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
