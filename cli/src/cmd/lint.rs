//! `leasekit lint`: Agentfile diagnostics as `path:line:col: severity[code]: message` or JSON;
//! with `--lease`, lease-writing warnings (`leasekit::lint_lease`) as
//! `path: warning[code]: capability "pattern": message` or JSON.

use leasekit::LeaseWarning;
use leasekit::agentfile::{Diagnostic, Severity, lint};
use serde_json::{Value, json};

use crate::Report;
use crate::args::{Format, LintArgs};
use crate::failure::Failure;
use crate::input::{at_most_one_stdin, display_name, read_agentfile, read_lease};
use crate::style::Style;

/// Runs `lint` over every file; exit 1 when any file has an error diagnostic.
pub fn run(args: &LintArgs, style: &Style) -> Result<Report, Failure> {
    let paths: Vec<&str> = args.files.iter().map(String::as_str).collect();
    at_most_one_stdin(&paths)?;
    if args.lease {
        return run_leases(&paths, args.format, style);
    }
    let mut results = Vec::new();
    for path in &paths {
        let af = read_agentfile(path, args.compat)?;
        results.push((display_name(path), lint(&af)));
    }
    let count = |sev: Severity| -> usize {
        results
            .iter()
            .map(|(_, ds)| ds.iter().filter(|d| d.severity == sev).count())
            .sum()
    };
    let (errors, warnings) = (count(Severity::Error), count(Severity::Warning));
    let stdout = match args.format {
        Format::Json => super::pretty(&to_json(&results, errors, warnings)),
        Format::Text => to_text(&results, errors, warnings, style),
    };
    Ok(Report::new(stdout, u8::from(errors > 0)))
}

/// One diagnostic line, plus an indented hint line when there is a hint.
pub fn diagnostic_line(path: &str, d: &Diagnostic, style: &Style) -> String {
    let severity = match d.severity {
        Severity::Error => style.bad(d.severity.as_str()),
        Severity::Warning => style.warn(d.severity.as_str()),
        Severity::Info => style.dim(d.severity.as_str()),
    };
    let mut line = format!(
        "{path}:{}:{}: {severity}[{}]: {}\n",
        d.line, d.column, d.code, d.message
    );
    if let Some(hint) = &d.hint {
        line.push_str(&format!("  {}: {hint}\n", style.dim("hint")));
    }
    line
}

fn to_text(
    results: &[(&str, Vec<Diagnostic>)],
    errors: usize,
    warnings: usize,
    style: &Style,
) -> String {
    let mut out = String::new();
    for (path, diagnostics) in results {
        for d in diagnostics {
            out.push_str(&diagnostic_line(path, d, style));
        }
    }
    let files = results.len();
    let summary = format!(
        "{files} file{}: {errors} error{}, {warnings} warning{}",
        if files == 1 { "" } else { "s" },
        if errors == 1 { "" } else { "s" },
        if warnings == 1 { "" } else { "s" }
    );
    let summary = if errors > 0 {
        style.bad(&summary)
    } else {
        style.good(&summary)
    };
    out.push_str(&summary);
    out.push('\n');
    out
}

fn to_json(results: &[(&str, Vec<Diagnostic>)], errors: usize, warnings: usize) -> Value {
    let files: Vec<Value> = results
        .iter()
        .map(|(path, diagnostics)| {
            json!({
                "path": path,
                "ok": !diagnostics.iter().any(Diagnostic::is_error),
                "diagnostics": serde_json::to_value(diagnostics).unwrap_or(Value::Null),
            })
        })
        .collect();
    json!({"ok": errors == 0, "errors": errors, "warnings": warnings, "files": files})
}

/// `lint --lease`: the warnings of every lease file; exit 0 (warnings are not errors).
fn run_leases(paths: &[&str], format: Format, style: &Style) -> Result<Report, Failure> {
    let mut results = Vec::new();
    for path in paths {
        let lease = read_lease(path)?;
        results.push((display_name(path), leasekit::lint_lease(&lease)));
    }
    let warnings: usize = results.iter().map(|(_, w)| w.len()).sum();
    let stdout = match format {
        Format::Json => {
            let files: Vec<Value> = results
                .iter()
                .map(|(path, ws)| json!({"path": path, "ok": true, "warnings": ws}))
                .collect();
            super::pretty(&json!({"ok": true, "errors": 0, "warnings": warnings, "files": files}))
        }
        Format::Text => {
            let mut out = String::new();
            for (path, ws) in &results {
                for w in ws {
                    out.push_str(&lease_warning_line(path, w, style));
                }
            }
            let files = results.len();
            let summary = format!(
                "{files} file{}: 0 errors, {warnings} warning{}",
                if files == 1 { "" } else { "s" },
                if warnings == 1 { "" } else { "s" }
            );
            out.push_str(&style.good(&summary));
            out.push('\n');
            out
        }
    };
    Ok(Report::new(stdout, 0))
}

/// One lease warning line and its indented hint line.
pub fn lease_warning_line(path: &str, w: &LeaseWarning, style: &Style) -> String {
    format!(
        "{path}: {}[{}]: {} {:?}: {}\n  {}: {}\n",
        style.warn("warning"),
        w.code,
        w.capability,
        w.pattern,
        w.message,
        style.dim("hint"),
        w.hint
    )
}
