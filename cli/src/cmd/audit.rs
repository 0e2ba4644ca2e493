//! `leasekit audit verify FILE|DIR|postgres://...`: recompute every entry hash and link of a
//! governor audit chain (SEMANTICS 13.10), from JSONL files or from the shared chain of a fleet's
//! PostgreSQL database (13.12); exit 1 with the first bad line on tampering. `audit proof`
//! (signed proof bundles) is in [`super::proof`].

use std::path::Path;

use leasekit::governor::audit::verify_audit;
use serde_json::json;

use crate::Report;
use crate::args::{AuditArgs, AuditTool, Format};
use crate::failure::Failure;
use crate::input::read_text;
use crate::style::Style;

/// Runs `audit`.
pub fn run(args: &AuditArgs, style: &Style) -> Result<Report, Failure> {
    let (path, format) = match &args.tool {
        AuditTool::Verify { path, format } => (path, format),
        AuditTool::Proof { tool } => return super::proof::run(tool, style),
    };
    let is_db = path.starts_with("postgres://") || path.starts_with("postgresql://");
    let mut db_lines = None;
    let files: Vec<String> = if is_db {
        // The store's own connection and queries (core), the URL never echoed with a password.
        let store = leasekit::governor::store::open_location(path).map_err(Failure::from)?;
        db_lines = Some(store.read_audit(1, u64::MAX).map_err(Failure::from)?);
        vec![store.path()]
    } else if Path::new(path).is_dir() {
        let mut v: Vec<String> = std::fs::read_dir(path)
            .map_err(|e| Failure::usage(format!("{path}: {e}")))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
            .map(|p| p.display().to_string())
            .collect();
        v.sort();
        if v.is_empty() {
            return Err(Failure::usage(format!("{path}: no *.jsonl files")));
        }
        v
    } else {
        vec![path.clone()]
    };
    // (file, line in file, text) in chain order.
    let mut lines: Vec<(usize, usize, String)> = Vec::new();
    if let Some(db) = db_lines {
        lines.extend(db.into_iter().enumerate().map(|(n, l)| (0, n + 1, l)));
    }
    for (i, f) in files.iter().enumerate().filter(|_| !is_db) {
        let text = read_text(f)?;
        let body = text.strip_suffix('\n').unwrap_or(&text);
        if body.is_empty() {
            continue;
        }
        for (n, l) in body.split('\n').enumerate() {
            lines.push((i, n + 1, l.strip_suffix('\r').unwrap_or(l).to_string()));
        }
    }
    let v = verify_audit(lines.iter().map(|(_, _, l)| l.as_str()));
    let bad = v.first_bad_line.map(|n| {
        let (f, line, _) = &lines[(n - 1) as usize];
        (files[*f].clone(), *line)
    });
    let stdout = match format {
        Format::Json => super::pretty(&json!({
            "ok": v.ok,
            "records": v.records,
            "file": bad.as_ref().map(|b| b.0.clone()),
            "line": bad.as_ref().map(|b| b.1),
            "message": v.message,
        })),
        Format::Text => match &bad {
            None => format!("{}: {} records verify\n", style.good("ok"), v.records),
            Some((f, line)) => format!(
                "{f}:{line}: {}: {}\n",
                style.bad("tampered"),
                v.message
                    .split_once(": ")
                    .map_or(v.message.as_str(), |(_, m)| m)
            ),
        },
    };
    Ok(Report::new(stdout, u8::from(!v.ok)))
}
