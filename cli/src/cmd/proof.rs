//! `leasekit audit proof export|verify`: signed proof bundles over a line range of a JSONL
//! audit chain (SEMANTICS 13.10, LeaseGate's `ExportProof`). The bundle and its verification
//! are core's (`leasekit::governor::audit::proof`); verification recomputes every entry hash
//! in the range. Keys are those of `leasekit policy keygen`.

use std::path::Path;

use leasekit::governor::audit::proof::{
    ChainLine, ProofBundle, export_proof, proof_range, read_jsonl_chain, verify_proof,
};
use serde_json::{Value, json};

use crate::Report;
use crate::args::ProofTool;
use crate::failure::Failure;
use crate::input::read_text;
use crate::style::Style;

/// A key from a file: the `field` of a `policy keygen` JSON document, or the bare base64 text.
fn key_from_file(file: &str, field: &str) -> Result<String, Failure> {
    let text = read_text(file)?;
    match serde_json::from_str::<Value>(&text) {
        Ok(v) => v[field]
            .as_str()
            .map(str::to_string)
            .ok_or_else(|| Failure::usage(format!("{file}: no {field}"))),
        Err(_) => Ok(text.trim().to_string()),
    }
}

fn chain(path: &str) -> Result<Vec<ChainLine>, Failure> {
    read_jsonl_chain(Path::new(path)).map_err(|e| Failure::usage(e.message().to_string()))
}

/// Runs `audit proof`.
pub fn run(tool: &ProofTool, style: &Style) -> Result<Report, Failure> {
    match tool {
        ProofTool::Export {
            path,
            from,
            to,
            key,
            output,
            json,
        } => {
            let private = key
                .as_deref()
                .map(|k| key_from_file(k, "privateKeyBase64"))
                .transpose()?;
            let lines = chain(path)?;
            let texts: Vec<&str> = lines.iter().map(|l| l.text.as_str()).collect();
            let range = proof_range(&texts, *from, *to).map_err(|e| Failure::core(path, &e))?;
            let bundle = export_proof(*from, range, private.as_deref()).map_err(|e| {
                // Name the file and line of a line that does not recompute.
                let m = e.message();
                let place = m
                    .strip_prefix("audit line ")
                    .and_then(|r| r.split_once(':'))
                    .and_then(|(n, _)| n.parse::<usize>().ok())
                    .and_then(|n| lines.get(n.wrapping_sub(1)))
                    .map(|l| format!("{}:{}", l.file.display(), l.line_in_file));
                Failure::core(place.as_deref().unwrap_or(path), &e)
            })?;
            let text = super::pretty(&serde_json::to_value(&bundle).expect("bundle"));
            let Some(out) = output else {
                return Ok(Report::new(text, 0));
            };
            std::fs::write(out, &text).map_err(|e| Failure::usage(format!("{out}: {e}")))?;
            let summary = json!({
                "bundle": out,
                "fromLine": bundle.from_line,
                "toLine": bundle.to_line,
                "algorithm": bundle.algorithm,
                "ephemeralKey": bundle.ephemeral_key,
                "lastEntryHash": bundle.last_entry_hash,
            });
            let stdout = if *json {
                super::pretty(&summary)
            } else {
                format!(
                    "wrote a proof of lines {}..{} to {out} (signed {}{})\n",
                    bundle.from_line,
                    bundle.to_line,
                    bundle.algorithm,
                    if bundle.ephemeral_key {
                        ", ephemeral key: integrity only"
                    } else {
                        ""
                    }
                )
            };
            Ok(Report::new(stdout, 0))
        }
        ProofTool::Verify {
            bundle,
            path,
            key,
            json,
        } => {
            let text = read_text(bundle)?;
            let b: ProofBundle = serde_json::from_str(&text)
                .map_err(|e| Failure::usage(format!("{bundle}: not a proof bundle: {e}")))?;
            let trusted = key
                .iter()
                .map(|k| key_from_file(k, "publicKeyBase64"))
                .collect::<Result<Vec<_>, _>>()?;
            let lines = chain(path)?;
            let texts: Vec<&str> = lines.iter().map(|l| l.text.as_str()).collect();
            let v = verify_proof(&b, &texts, &trusted);
            // The file and line of the first bad chain line (a missing line: past the end).
            let place = v.first_bad_line.map(|n| match lines.get((n - 1) as usize) {
                Some(l) => (l.file.display().to_string(), l.line_in_file),
                None => match lines.last() {
                    Some(l) => (
                        l.file.display().to_string(),
                        l.line_in_file + (n - lines.len() as u64),
                    ),
                    None => (path.clone(), n),
                },
            });
            let detail = v
                .message
                .split_once(": ")
                .filter(|_| v.first_bad_line.is_some())
                .map_or(v.message.as_str(), |(_, m)| m);
            let stdout = if *json {
                super::pretty(&json!({
                    "ok": v.ok,
                    "records": v.records,
                    "fromLine": b.from_line,
                    "toLine": b.to_line,
                    "ephemeralKey": b.ephemeral_key,
                    "signerTrusted": v.ok && !trusted.is_empty(),
                    "line": v.first_bad_line,
                    "file": place.as_ref().map(|p| p.0.clone()),
                    "lineInFile": place.as_ref().map(|p| p.1),
                    "message": v.message,
                }))
            } else if v.ok {
                let who = if !trusted.is_empty() {
                    "signed by a trusted key"
                } else if b.ephemeral_key {
                    "ephemeral key: integrity only"
                } else {
                    "signer not checked: pass --key to require one"
                };
                format!(
                    "{}: proof of lines {}..{} verifies ({} records recomputed; {who})\n",
                    style.good("ok"),
                    b.from_line,
                    b.to_line,
                    v.records
                )
            } else {
                match &place {
                    Some((f, line)) => {
                        format!("{f}:{line}: {}: {detail}\n", style.bad("tampered"))
                    }
                    None => format!("{bundle}: {}: {detail}\n", style.bad("rejected")),
                }
            };
            Ok(Report::new(stdout, u8::from(!v.ok)))
        }
    }
}
