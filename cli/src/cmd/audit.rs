//! `leasekit audit verify|export`: verify a governor audit chain (SEMANTICS 13.10, 13.16) from a
//! store — a daemon's state directory (its `governor.db`), a SQLite store file, a fleet's
//! PostgreSQL database (13.12) — or from JSONL files; write a store's chain as JSONL. A store
//! is read through a read-only snapshot, page by page: nothing is written and no write lock is
//! taken, so both are safe while the daemon runs and right after a crash. Exit 1 names the
//! first bad line. `audit proof` (signed proof bundles) is in [`super::proof`].

use std::io::Write;
use std::path::Path;

use leasekit::governor::audit::{parse_canonical, verify_audit, verify_snapshot};
use leasekit::governor::store::{AuditSnapshot, open_audit_snapshot};
use serde_json::json;

use crate::Report;
use crate::args::{AuditArgs, AuditTool, Format};
use crate::failure::Failure;
use crate::input::read_text;
use crate::style::Style;

/// The store file inside a daemon's state directory.
const STATE_STORE: &str = "governor.db";

/// What a path names.
enum Source {
    /// A store location for [`open_audit_snapshot`].
    Store(String),
    /// JSONL files, in chain order.
    Jsonl(Vec<String>),
}

/// A SQLite database file (by its header)?
fn is_sqlite_file(p: &Path) -> bool {
    let mut head = [0u8; 16];
    std::fs::File::open(p)
        .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut head))
        .is_ok()
        && &head == b"SQLite format 3\0"
}

fn is_url(path: &str) -> bool {
    let lower = path.get(..13).unwrap_or(path).to_ascii_lowercase();
    lower.starts_with("postgres://") || lower.starts_with("postgresql://")
}

fn source_of(path: &str) -> Result<Source, Failure> {
    if is_url(path) || path.starts_with("sqlite:") {
        return Ok(Source::Store(path.to_string()));
    }
    let p = Path::new(path);
    if p.is_dir() {
        let db = p.join(STATE_STORE);
        if db.is_file() {
            return Ok(Source::Store(db.display().to_string()));
        }
        let mut v: Vec<String> = std::fs::read_dir(p)
            .map_err(|e| Failure::usage(format!("{path}: {e}")))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
            .map(|p| p.display().to_string())
            .collect();
        v.sort();
        if v.is_empty() {
            return Err(Failure::usage(format!(
                "{path}: no {STATE_STORE} (a daemon's state directory) and no *.jsonl files"
            )));
        }
        return Ok(Source::Jsonl(v));
    }
    if is_sqlite_file(p) {
        return Ok(Source::Store(path.to_string()));
    }
    Ok(Source::Jsonl(vec![path.to_string()]))
}

fn open_store(location: &str) -> Result<(Box<dyn AuditSnapshot>, String), Failure> {
    // The URL is never echoed with its password: errors and the shown location omit it.
    open_audit_snapshot(location).map_err(Failure::from)
}

/// Runs `audit`.
pub fn run(args: &AuditArgs, style: &Style) -> Result<Report, Failure> {
    match &args.tool {
        AuditTool::Verify { path, format } => verify(path, *format, style),
        AuditTool::Export {
            store,
            from,
            to,
            file,
        } => export(store, *from, *to, file),
        AuditTool::Proof { tool } => super::proof::run(tool, style),
    }
}

fn verify(path: &str, format: Format, style: &Style) -> Result<Report, Failure> {
    // (verification, the file and line of the first bad line).
    let (v, bad) = match source_of(path)? {
        Source::Store(location) => {
            let (mut snap, shown) = open_store(&location)?;
            let v = verify_snapshot(&mut *snap).map_err(|e| Failure::core(&shown, &e))?;
            let bad = v.first_bad_line.map(|n| (shown, n as usize));
            (v, bad)
        }
        Source::Jsonl(files) => {
            // (file, line in file, text) in chain order.
            let mut lines: Vec<(usize, usize, String)> = Vec::new();
            for (i, f) in files.iter().enumerate() {
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
            (v, bad)
        }
    };
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

/// Lines per page of an export.
const EXPORT_PAGE: usize = 1_000;

fn export(store: &str, from: Option<u64>, to: Option<u64>, file: &str) -> Result<Report, Failure> {
    let location = match source_of(store)? {
        Source::Store(l) => l,
        Source::Jsonl(_) => {
            return Err(Failure::usage(format!(
                "{store}: not a store (a daemon's state directory, sqlite:PATH, a SQLite store \
                 file or a postgres:// URL)"
            )));
        }
    };
    let (from, to) = (from.unwrap_or(1), to.unwrap_or(u64::MAX));
    if from == 0 || to < from {
        return Err(Failure::usage(format!(
            "bad range {from}..{to}: lines are numbered from 1 and --to must be >= --from"
        )));
    }
    let (mut snap, shown) = open_store(&location)?;
    // A file is written beside itself and renamed into place once complete.
    let to_stdout = file == "-";
    let tmp = format!("{file}.partial");
    let mut out: Box<dyn Write> = if to_stdout {
        Box::new(std::io::BufWriter::new(std::io::stdout().lock()))
    } else {
        Box::new(std::io::BufWriter::new(
            std::fs::File::create(&tmp).map_err(|e| Failure::usage(format!("{tmp}: {e}")))?,
        ))
    };
    let io = |e: std::io::Error| Failure::usage(format!("{file}: {e}"));
    let mut written = 0u64;
    let mut after = from - 1;
    let mut bad = None;
    'pages: while after < to {
        let want = (to - after).min(EXPORT_PAGE as u64) as usize;
        let page = snap
            .page(after, want)
            .map_err(|e| Failure::core(&shown, &e))?;
        if page.is_empty() {
            break;
        }
        for (n, text) in page {
            if n > to {
                break 'pages;
            }
            // Each line is the RFC 8785 form of its record; a stored line that is not is not
            // rewritten into one (that would hide it): the export stops there.
            if let Err(m) = parse_canonical(&text) {
                bad = Some((n, m));
                break 'pages;
            }
            out.write_all(text.as_bytes()).map_err(io)?;
            out.write_all(b"\n").map_err(io)?;
            written += 1;
            after = n;
        }
    }
    out.flush().map_err(io)?;
    drop(out);
    if let Some((n, m)) = bad {
        let note = format!("{shown}:{n}: tampered: {m} (see `leasekit audit verify`)\n");
        if to_stdout {
            // The lines before it are on stdout already; the verdict goes to stderr.
            eprint!("{note}");
            return Ok(Report::new(String::new(), 1));
        }
        let _ = std::fs::remove_file(&tmp);
        return Ok(Report::new(format!("{note}nothing written to {file}\n"), 1));
    }
    if to_stdout {
        return Ok(Report::new(String::new(), 0));
    }
    std::fs::File::open(&tmp)
        .and_then(|f| f.sync_all())
        .and_then(|_| std::fs::rename(&tmp, file))
        .map_err(io)?;
    let range = if written == 0 {
        String::new()
    } else {
        format!(" (lines {from}..{after})")
    };
    Ok(Report::new(
        format!("wrote {written} audit records{range} to {file}\n"),
        0,
    ))
}
