//! Lint rules from the spec's review questions (quickstart, section 21, core profile).

use std::collections::HashSet;

use super::ast::Agentfile;
use super::diagnostics::{Diagnostic, Severity, codes, sort_by_position};
use super::lease::directive_patterns;
use super::refs::is_mutable_ref;

/// Tool names (the part after `ns:`, split on `.`, `_`, `-`) that make a tool high-risk.
const HIGH_RISK: &[&str] = &["shell", "exec", "browser", "bash", "terminal", "computer"];

/// Directives that declare a capability (so a boundary statement is expected).
const CAPABILITY_DIRECTIVES: &[&str] = &[
    "TOOL", "TOOLSET", "FUNCTION", "SKILL", "SERVER", "MCP", "URL", "CRED", "MOUNT", "MEMORY",
];

/// Parse diagnostics plus every lint rule, sorted by position.
///
/// A file recognised as the later grammar reports only its `newer-grammar` diagnostic.
pub fn lint(af: &Agentfile) -> Vec<Diagnostic> {
    let mut out = af.diagnostics().to_vec();
    if af.is_newer_grammar() {
        return out;
    }
    let warn = |code: &str, line: usize, col: usize, msg: String, hint: &str| {
        Diagnostic::new(code, Severity::Warning, line, col, msg).with_hint(hint)
    };
    match af.directives_named("AGENT").next() {
        None => out.push(warn(
            codes::AGENT_MISSING,
            0,
            0,
            "no `AGENT` directive".into(),
            "published packages SHOULD declare `AGENT <lowercase-dns-label>`",
        )),
        Some(d) => {
            if let Some(a) = d.arg(0).filter(|a| !is_dns_label(a)) {
                out.push(warn(
                    codes::AGENT_NAME,
                    d.line,
                    d.column,
                    format!("agent id `{a}` is not a lower-case DNS label"),
                    "use [a-z0-9-], at most 63 characters, no leading or trailing `-`",
                ));
            }
        }
    }
    if af.directives_named("AUDIT").next().is_none() {
        out.push(warn(
            codes::AUDIT_MISSING,
            0,
            0,
            "no `AUDIT` directive".into(),
            "state the audit level, e.g. `AUDIT basic`",
        ));
    }
    let declares = af
        .directives()
        .iter()
        .find(|d| CAPABILITY_DIRECTIVES.contains(&d.name.as_ref()));
    let states_boundary = af
        .directives()
        .iter()
        .any(|d| matches!(d.name.as_ref(), "POLICY" | "ALLOW" | "DENY"));
    if let (Some(d), false) = (declares, states_boundary) {
        out.push(warn(
            codes::BOUNDARIES_IMPLICIT,
            d.line,
            d.column,
            "capabilities are declared but no POLICY, ALLOW or DENY states the boundary".into(),
            "under deny-by-default nothing is permitted; add a POLICY block or ALLOW/DENY lines",
        ));
    }
    let error_lines: HashSet<usize> = af
        .diagnostics()
        .iter()
        .filter(|d| d.is_error())
        .map(|d| d.line)
        .collect();
    for d in af.directives() {
        match d.name.as_ref() {
            _ if d.is_placement() => out.push(warn(
                codes::PLACEMENT_DIRECTIVE,
                d.line,
                d.column,
                format!("`{}` is a placement directive", d.name),
                "move it to the operator's run manifest; it is left out of the package digest",
            )),
            "FROM" => {
                if let Some(r) = d.arg(0).filter(|r| is_mutable_ref(r)) {
                    out.push(warn(
                        codes::FROM_MUTABLE_TAG,
                        d.line,
                        d.column,
                        format!("`FROM {r}` uses a mutable tag"),
                        "pin a version tag or a digest (`@sha256:...`)",
                    ));
                }
            }
            "TOOL" => {
                if let Some(t) = d.arg(0).filter(|t| is_high_risk(t)) {
                    out.push(warn(
                        codes::HIGH_RISK_TOOL,
                        d.line,
                        d.column,
                        format!("`{t}` is a high-risk tool"),
                        "reviewers should confirm it is needed and bounded by policy",
                    ));
                }
            }
            "POLICY" if d.arg(0).is_none_or(|p| p == "cedar") => {
                if let Some(b) = &d.block {
                    check_cedar(&mut out, d.line, d.column, &b.body);
                }
            }
            _ => {}
        }
        // A directive that already has an argument error is not reported twice.
        if error_lines.contains(&d.line) {
            continue;
        }
        if let Err(e) = directive_patterns(d).and_then(|pats| {
            pats.iter()
                .try_for_each(|(cap, p)| crate::validate_pattern(cap, p).map(drop))
        }) {
            out.push(
                Diagnostic::new(
                    codes::LEASE_PATTERN,
                    Severity::Error,
                    d.line,
                    d.column,
                    format!(
                        "`{}` does not yield a valid lease pattern: {}",
                        d.name,
                        e.message()
                    ),
                )
                .with_hint("see docs/semantics.md sections 2 and 5"),
            );
        }
    }
    sort_by_position(&mut out);
    out
}

#[cfg(feature = "cedar")]
fn check_cedar(out: &mut Vec<Diagnostic>, line: usize, column: usize, body: &str) {
    if let Err(e) = super::policy::check_block(body) {
        let mut d = Diagnostic::new(
            codes::CEDAR_PARSE,
            Severity::Error,
            line,
            column,
            format!("POLICY block is not valid Cedar, so every request is denied: {e}"),
        );
        if let Some(h) = super::policy::cedar_hint(body) {
            d = d.with_hint(h);
        }
        out.push(d);
    }
}

#[cfg(not(feature = "cedar"))]
fn check_cedar(out: &mut Vec<Diagnostic>, line: usize, column: usize, _body: &str) {
    out.push(
        Diagnostic::new(
            codes::CEDAR_UNAVAILABLE,
            Severity::Warning,
            line,
            column,
            "built without the `cedar` feature: POLICY blocks are not checked and every request is denied",
        )
        .with_hint("build leasekit with the default `cedar` feature"),
    );
}

/// A lower-case DNS label (RFC 1123).
fn is_dns_label(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 63
        && !s.starts_with('-')
        && !s.ends_with('-')
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

fn is_high_risk(tool: &str) -> bool {
    let name = tool.split_once(':').map_or(tool, |(_, n)| n);
    name.to_ascii_lowercase()
        .split(['.', '_', '-', '/'])
        .any(|w| HIGH_RISK.contains(&w))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn risk() {
        assert!(
            is_high_risk("utcp:shell")
                && is_high_risk("mcp:browser.open")
                && is_high_risk("x:code_exec")
        );
        assert!(!is_high_risk("utcp:file_read") && !is_high_risk("utcp:shellfish"));
        assert!(is_dns_label("code-reviewer") && !is_dns_label("Code") && !is_dns_label("-a"));
    }
}
