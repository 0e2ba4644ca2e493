//! Argument checking of every directive (spec section 9; the table is in docs/agentfile.md).
//!
//! The argument count of each directive and its usage line are data in the directive table
//! ([`super::directives::DIRECTIVES`]); this module checks the count against the table and then
//! the format of each directive's arguments. `CRED` lines are checked by [`super::cred`].

use super::arg_context::{Ctx, Tok};
use super::cred::check_cred;
use super::diagnostics::{Diagnostic, codes};
use super::directives::DirectiveInfo;
use super::values::{is_duration, parse_rate, parse_uint};

/// The checked arguments of one directive.
pub(crate) struct Checked {
    /// The argument text to store instead of the source text, when a token was redacted.
    pub redacted_text: Option<String>,
    /// A well-formed credential reference.
    pub cred: Option<super::ast::Cred>,
    /// The directive opens a verbatim block.
    pub opens_block: bool,
}

/// Validates the arguments of directive `info` (given without the name token): the count
/// from the directive table first, then, when it fits, the format.
pub(crate) fn check_arguments(
    info: &'static DirectiveInfo,
    line: usize,
    col: usize,
    args: &[Tok<'_>],
    compat: bool,
    diags: &mut Vec<Diagnostic>,
) -> Checked {
    let mut cx = Ctx::new(info, line, col, compat, diags);
    let mut out = Checked {
        redacted_text: None,
        cred: None,
        opens_block: false,
    };
    if info.name == "CRED" {
        // Its own arity message: a short CRED line is redacted, it may be a pasted secret.
        let cred = check_cred(&mut cx, args);
        out.cred = cred.cred;
        out.redacted_text = cred.redacted_text;
        return out;
    }
    let arity_ok = cx.arity(args);
    match info.name {
        "POLICY" => out.opens_block = true,
        // A bare `SOP` still opens a block, so its body does not cascade into errors;
        // `SOP several words` (the later inline form) does not.
        "SOP" => {
            out.opens_block = match args {
                [one] => !is_sop_reference(one.s),
                _ => args.is_empty(),
            }
        }
        _ => {}
    }
    if arity_ok {
        check_format(&mut cx, args);
    }
    out
}

/// The format of the arguments of `cx.info`, once their count is right.
fn check_format(cx: &mut Ctx<'_>, args: &[Tok<'_>]) {
    let name = cx.info.name;
    match name {
        "TOOL" => check_tool(cx, args[0]),
        "URL" => check_url(cx, args[0]),
        "SERVER" => check_url(cx, args[1]),
        "BIND" => check_bind(cx, args),
        "MOUNT" => check_mount(cx, args),
        "POLICY" if args.first().is_some_and(|a| a.s != "cedar") => {
            cx.err_hint(
                codes::POLICY_PROFILE,
                args[0].col,
                "unsupported policy profile",
                "the only policy profile is `cedar` (the default)",
            );
        }
        "ALLOW" | "DENY" if args[0].s != "invoke" => {
            cx.err_hint(
                codes::POLICY_VERB,
                args[0].col,
                format!("unsupported `{name}` verb"),
                "the only shorthand verb in draft.4 is `invoke`",
            );
        }
        "RATELIMIT" if parse_rate(args[1].s).is_none() => {
            cx.err_hint(
                codes::RATE_FORMAT,
                args[1].col,
                "rate limit is not `<count>/<unit>`",
                "e.g. `20/hour`; units s, sec, second, m, min, minute, h, hour, d, day",
            );
        }
        "AUDIT" if super::ast::AuditLevel::parse(args[0].s).is_none() => {
            cx.err_hint(
                codes::AUDIT_VALUE,
                args[0].col,
                "unknown audit level",
                "use off, basic, all or compliance",
            );
        }
        "TIMEOUT" if parse_uint(args[0].s).is_none() => {
            cx.err_hint(
                codes::TIMEOUT_FORMAT,
                args[0].col,
                "timeout is not a non-negative integer number of seconds",
                "e.g. `TIMEOUT 30`",
            );
        }
        "LIMIT" if parse_uint(args[1].s).is_none() && parse_rate(args[1].s).is_none() => {
            cx.err_hint(
                codes::LIMIT_FORMAT,
                args[1].col,
                "limit is not an integer or `<count>/<unit>`",
                "e.g. `LIMIT tool_calls 100` or `LIMIT network_requests 50/min`",
            );
        }
        "SLICE" => {
            for t in args {
                let ok = t.s.split_once('=').is_some_and(|(k, v)| {
                    !k.is_empty()
                        && !v.is_empty()
                        && k.bytes()
                            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
                });
                if !ok {
                    cx.err_hint(
                        codes::SLICE_FORMAT,
                        t.col,
                        "SLICE argument is not `key=value`",
                        "e.g. `SLICE cpu=2 mem=2048`",
                    );
                }
            }
        }
        "TRACE" => {
            let v = args[0].s;
            if v != "on" && v != "off" && !has_scheme(v) {
                cx.err_hint(
                    codes::TRACE_VALUE,
                    args[0].col,
                    "TRACE value is not on, off or a URI",
                    "e.g. `TRACE otlp://collector.internal:4317`",
                );
            }
        }
        "MEMORY" => check_memory(cx, args),
        "HEALTHCHECK" => check_healthcheck(cx, args),
        // AGENT SHELL TOOLSET FUNCTION SKILL MCP PLUGIN IMAGE ISOLATION BROKER BACKEND
        // OPTIMIZER FROM CMD SOP: any value of the right count.
        _ => {}
    }
}

/// SEMANTICS 12: an `SOP` argument containing `/`, `://` or ending in `.md` is a reference.
pub(crate) fn is_sop_reference(arg: &str) -> bool {
    arg.contains('/') || arg.contains("://") || arg.ends_with(".md")
}

/// `scheme://` prefix with a valid scheme.
fn has_scheme(v: &str) -> bool {
    v.split_once("://").is_some_and(|(s, rest)| {
        !rest.is_empty()
            && s.bytes().next().is_some_and(|b| b.is_ascii_alphabetic())
            && s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'+' || b == b'-' || b == b'.')
    })
}

/// `TOOL`: a `<namespace>:<name>` reference (a warning otherwise).
fn check_tool(cx: &mut Ctx<'_>, t: Tok<'_>) {
    let ok =
        t.s.split_once(':')
            .is_some_and(|(ns, name)| !ns.is_empty() && !name.is_empty());
    if !ok {
        cx.warn(
            codes::TOOL_NAMESPACE,
            t.col,
            "tool reference has no namespace",
            "write `<namespace>:<name>`, e.g. `utcp:file_read` or `mcp:github.get_issue`",
        );
    }
}

/// `scheme://host[:port][/path]`: no userinfo, query, fragment or whitespace.
fn check_url(cx: &mut Ctx<'_>, t: Tok<'_>) {
    let ok = has_scheme(t.s)
        && t.s.split_once("://").is_some_and(|(_, rest)| {
            let authority = rest.split('/').next().unwrap_or("");
            !authority.is_empty()
                && !authority.starts_with(':')
                && !authority.contains('@')
                && !rest.contains(['?', '#'])
        });
    if !ok {
        cx.err_hint(
            codes::URL_FORMAT,
            t.col,
            "not an absolute `scheme://host[:port][/path]` URL",
            "no userinfo, query or fragment; e.g. `https://api.github.com`",
        );
    }
}

/// `BIND` after its arity (2 or 3) passed: the mode.
fn check_bind(cx: &mut Ctx<'_>, args: &[Tok<'_>]) {
    if args.len() == 2 {
        let msg = "`BIND` without a mode";
        let hint = "add a mode: copy, direct, ro or rw (compat mode reads it as `copy`)";
        if cx.compat {
            cx.warn(codes::BIND_MODE_MISSING, cx.col, msg, hint);
        } else {
            cx.err_hint(codes::BIND_MODE_MISSING, cx.col, msg, hint);
        }
        return;
    }
    if !matches!(args[2].s, "copy" | "direct" | "ro" | "rw") {
        cx.err_hint(
            codes::BIND_MODE,
            args[2].col,
            "unknown BIND mode",
            "use copy, direct, ro or rw",
        );
    }
}

/// `MOUNT` after its arity passed: an absolute path and `ro` or `rw`.
fn check_mount(cx: &mut Ctx<'_>, args: &[Tok<'_>]) {
    if !args[0].s.starts_with('/') {
        cx.err_hint(
            codes::MOUNT_PATH,
            args[0].col,
            "MOUNT path is not absolute",
            "the path the agent sees, e.g. `/workspace`",
        );
    }
    if !matches!(args[1].s, "ro" | "rw") {
        cx.err_hint(
            codes::MOUNT_MODE,
            args[1].col,
            "unknown MOUNT mode",
            "use ro or rw",
        );
    }
}

/// `MEMORY` after its arity (2 to 4) passed: the optional `schema:` and `mode:` parts.
fn check_memory(cx: &mut Ctx<'_>, args: &[Tok<'_>]) {
    let (mut schema, mut mode) = (false, false);
    for t in &args[2..] {
        let ok = if let Some(v) = t.s.strip_prefix("schema:") {
            !std::mem::replace(&mut schema, true) && !v.is_empty()
        } else if let Some(v) = t.s.strip_prefix("mode:") {
            !std::mem::replace(&mut mode, true) && matches!(v, "ro" | "rw")
        } else {
            false
        };
        if !ok {
            cx.err_hint(
                codes::MEMORY_FORMAT,
                t.col,
                "unexpected MEMORY argument",
                "optional parts are `schema:<Type>` and `mode:ro|rw`, each once",
            );
        }
    }
}

/// `HEALTHCHECK [--option=value]... CMD <probe>` (its arity is open; the shape is checked here).
fn check_healthcheck(cx: &mut Ctx<'_>, args: &[Tok<'_>]) {
    let hint = cx.info.usage;
    let mut i = 0;
    while i < args.len() && args[i].s.starts_with("--") {
        let t = args[i];
        let ok = match t.s.split_once('=') {
            Some(("--interval" | "--timeout" | "--start-period", v)) => is_duration(v),
            Some(("--retries", v)) => parse_uint(v).is_some(),
            _ => false,
        };
        if !ok {
            cx.err_hint(
                codes::HEALTHCHECK_FORMAT,
                t.col,
                "bad HEALTHCHECK option",
                hint,
            );
        }
        i += 1;
    }
    match args.get(i) {
        Some(t) if t.s == "CMD" && i + 1 < args.len() => {}
        Some(t) => cx.err_hint(
            codes::HEALTHCHECK_FORMAT,
            t.col,
            "HEALTHCHECK needs `CMD <probe>` after its options",
            hint,
        ),
        None => cx.err_hint(
            codes::HEALTHCHECK_FORMAT,
            cx.col,
            "HEALTHCHECK needs `CMD <probe>`",
            hint,
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sop_reference_rule() {
        assert!(is_sop_reference("./sops/code-review.md"));
        assert!(is_sop_reference("ghcr.io/org/sops/incident-response:1.2"));
        assert!(is_sop_reference("review.md"));
        assert!(!is_sop_reference("code-review"));
        assert!(!is_sop_reference("release-1.2"));
    }
}
