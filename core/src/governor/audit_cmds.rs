//! The audit commands of a [`Governor`] (SEMANTICS 13.10, 13.16): `VerifyAudit`, `ExportAudit`
//! and proof bundles over the store's chain.
//!
//! `VerifyAudit` and `ExportAudit` read the chain through the store's [`AuditSnapshot`], in
//! pages: their memory is bounded by a page (and `ExportAudit`'s answer by
//! [`EXPORT_AUDIT_MAX_RECORDS`] and [`EXPORT_AUDIT_MAX_BYTES`]), never by the chain's length,
//! and a durable store serves the snapshot from its own read-only connection, so a long read
//! holds up no other command (it waits only for the commands before it to commit).

use serde_json::Value;

use super::Governor;
use super::audit::{
    AuditVerification, ProofBundle, ProofVerification, export_proof, verify_audit, verify_proof,
    verify_snapshot,
};
use super::store::AuditSnapshot;
use super::wire::{
    ExportAuditRequest, ExportAuditResponse, VerifyAuditRequest, VerifyAuditResponse,
};
use crate::{Error, ErrorCode};

/// The most records one `ExportAudit` answers (SEMANTICS 13.16); `nextLine` says where the
/// next call starts.
pub const EXPORT_AUDIT_MAX_RECORDS: usize = 10_000;

/// The most bytes the records of one `ExportAudit` answer may take in its response frame (at
/// least one record is answered): their text as it appears inside the response envelope,
/// escaped twice (`payloadJson` is a JSON string inside the envelope). With the envelope's
/// own few bytes the answer stays within one 16 MiB frame (SEMANTICS 13.1).
pub const EXPORT_AUDIT_MAX_BYTES: usize = 15 << 20;

/// The bytes a record's text takes inside the response envelope: every `"` and `\` becomes
/// 4 bytes once escaped twice.
fn framed_len(text: &str) -> usize {
    let escaped = text.bytes().filter(|b| *b == b'"' || *b == b'\\').count();
    text.len() + 3 * escaped + 1
}

/// Lines per page of an export.
const EXPORT_PAGE: usize = 1_000;

fn internal(msg: impl Into<String>) -> Error {
    Error::new(ErrorCode::InternalError, msg)
}

/// Lines `from..=to` of a snapshot for one `ExportAudit` answer: at most
/// [`EXPORT_AUDIT_MAX_RECORDS`] records taking at most [`EXPORT_AUDIT_MAX_BYTES`] of the
/// response frame (always at least one record), and the line the next call starts at when more
/// remain in the range.
pub fn export_page(
    snap: &mut dyn AuditSnapshot,
    from: u64,
    to: u64,
) -> crate::Result<ExportAuditResponse> {
    let mut records = Vec::new();
    let mut bytes = 0usize;
    let mut after = from.max(1) - 1;
    while after < to {
        let want = (to - after).min(EXPORT_PAGE as u64) as usize;
        let page = snap.page(after, want)?;
        if page.is_empty() {
            break;
        }
        for (n, text) in page {
            if n > to {
                break;
            }
            let cost = framed_len(&text);
            let full = records.len() >= EXPORT_AUDIT_MAX_RECORDS
                || (!records.is_empty() && bytes + cost > EXPORT_AUDIT_MAX_BYTES);
            if full {
                return Ok(ExportAuditResponse {
                    records,
                    next_line: Some(n),
                });
            }
            bytes += cost;
            let v: Value = serde_json::from_str(&text)
                .map_err(|e| internal(format!("stored audit line {n} is not JSON: {e}")))?;
            records.push(v);
            after = n;
        }
    }
    Ok(ExportAuditResponse {
        records,
        next_line: None,
    })
}

impl Governor {
    /// The audit lines `from..=to` (1-based), after every earlier command committed.
    pub fn audit_lines(&self, from: u64, to: u64) -> crate::Result<Vec<String>> {
        self.run(|_| Ok(()))?;
        self.store().read_audit(from, to)
    }

    /// `ExportAudit`: the records of lines `fromLine..=toLine` in chain order, at most
    /// [`EXPORT_AUDIT_MAX_RECORDS`] (and what fits one response frame) per call, with
    /// `nextLine` when more of the range remain.
    pub fn export_audit(&self, req: ExportAuditRequest) -> crate::Result<ExportAuditResponse> {
        self.run(|_| Ok(()))?;
        let mut snap = self.store().audit_snapshot()?;
        export_page(
            &mut *snap,
            req.from_line.unwrap_or(1),
            req.to_line.unwrap_or(u64::MAX),
        )
    }

    /// A signed proof bundle over the store's audit lines `from..=to` (SEMANTICS 13.10;
    /// [`crate::governor::audit::proof`]). `private_key_base64` is a PKCS#8 DER P-256 or
    /// Ed25519 key; `None` signs with an ephemeral key (integrity, not authorship). A range
    /// past the end of the chain, or one with a line that does not recompute, is refused.
    pub fn export_proof(
        &self,
        from: u64,
        to: u64,
        private_key_base64: Option<&str>,
    ) -> crate::Result<ProofBundle> {
        if from == 0 || to < from {
            return Err(crate::Error::invalid(format!(
                "bad range {from}..{to}: lines are numbered from 1 and toLine must be >= fromLine"
            )));
        }
        let lines = self.audit_lines(from, to)?;
        if (lines.len() as u64) < to - from + 1 {
            return Err(crate::Error::invalid(format!(
                "range {from}..{to} is out of range: the chain has {} lines",
                (from - 1) + lines.len() as u64
            )));
        }
        export_proof(from, &lines, private_key_base64)
    }

    /// Verifies a proof bundle against the store's audit chain: every line of its range is
    /// recomputed and linked, and the signature checked (`trusted`: see
    /// [`crate::governor::audit::verify_proof`]).
    pub fn verify_proof(
        &self,
        bundle: &ProofBundle,
        trusted: &[String],
    ) -> crate::Result<ProofVerification> {
        let lines = self.audit_lines(1, bundle.to_line.max(1))?;
        Ok(verify_proof(bundle, &lines, trusted))
    }

    /// Verifies the store's whole audit chain (`VerifyAudit`): every line, page by page from
    /// a read-only snapshot, then its last `entryHash` and line count against the head and
    /// count the store records.
    pub fn verify_audit(&self) -> crate::Result<AuditVerification> {
        self.run(|_| Ok(()))?;
        let mut snap = self.store().audit_snapshot()?;
        verify_snapshot(&mut *snap)
    }

    /// `VerifyAudit {records?}`: the store's chain, or the given records (JSON values, each
    /// taken as its RFC 8785 form) as a chain from the genesis.
    pub fn verify_audit_request(
        &self,
        req: VerifyAuditRequest,
    ) -> crate::Result<VerifyAuditResponse> {
        let v = match req.records {
            Some(records) => {
                self.run(|_| Ok(()))?;
                let lines = records
                    .iter()
                    .map(|r| {
                        serde_json_canonicalizer::to_string(r)
                            .map_err(|e| Error::invalid(format!("invalid payload: {e}")))
                    })
                    .collect::<crate::Result<Vec<_>>>()?;
                verify_audit(lines.iter().map(String::as_str))
            }
            None => self.verify_audit()?,
        };
        Ok(VerifyAuditResponse {
            ok: v.ok,
            records: v.records,
            first_bad_line: v.first_bad_line,
            message: v.message,
        })
    }
}
