//! A local audit chain of guard decisions: JSON Lines in the governor's chain format
//! (SEMANTICS 13.10), so `leasekit audit verify FILE` accepts it. Opening an existing file
//! verifies it and continues its chain; a file that does not verify is refused.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::Path;

use crate::governor::audit::{AuditRecord, GENESIS_HASH, verify_audit};
use crate::{Error, ErrorCode, Result};

/// An append-only audit chain file.
#[derive(Debug)]
pub struct AuditLog {
    file: File,
    prev: String,
}

fn io_err(path: &Path, e: std::io::Error) -> Error {
    Error::new(
        ErrorCode::InternalError,
        format!("audit file {}: {e}", path.display()),
    )
}

impl AuditLog {
    /// Opens (or creates) `path`, verifying the chain it already holds.
    pub fn open(path: &Path) -> Result<AuditLog> {
        let prev = match std::fs::read_to_string(path) {
            Ok(text) => {
                let body = text.strip_suffix('\n').unwrap_or(&text);
                if body.is_empty() {
                    GENESIS_HASH.to_string()
                } else {
                    let lines: Vec<&str> = body.split('\n').collect();
                    let v = verify_audit(lines.iter().copied());
                    if !v.ok {
                        return Err(Error::invalid(format!(
                            "audit file {} does not verify ({}); refusing to extend it",
                            path.display(),
                            v.message
                        )));
                    }
                    let last: serde_json::Value = serde_json::from_str(lines[lines.len() - 1])
                        .map_err(|e| {
                            Error::invalid(format!("audit file {}: {e}", path.display()))
                        })?;
                    last["entryHash"]
                        .as_str()
                        .unwrap_or(GENESIS_HASH)
                        .to_string()
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => GENESIS_HASH.to_string(),
            Err(e) => return Err(io_err(path, e)),
        };
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|e| io_err(path, e))?;
        Ok(AuditLog { file, prev })
    }

    /// Appends one record (sealed after the last) and flushes it to the file.
    pub fn append(&mut self, record: AuditRecord) -> Result<()> {
        let (line, hash) = record.seal(&self.prev);
        self.file
            .write_all(format!("{line}\n").as_bytes())
            .and_then(|_| self.file.flush())
            .map_err(|e| Error::new(ErrorCode::InternalError, format!("audit write: {e}")))?;
        self.prev = hash;
        Ok(())
    }
}
