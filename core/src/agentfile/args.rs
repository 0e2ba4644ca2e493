//! Argument syntax of every directive (spec section 9, gaps in reference/agentrc.md 5-7).

use super::ast::{Cred, Inject, REDACTED};
use super::diagnostics::{Diagnostic, Severity, codes};

/// A whitespace-separated token with its 1-based character column.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Tok<'a> {
    pub s: &'a str,
    pub col: usize,
}

/// The checked arguments of one directive.
pub(crate) struct Checked {
    /// The argument text to store instead of the source text, when a token was redacted.
    pub redacted_text: Option<String>,
    /// A well-formed credential reference.
    pub cred: Option<Cred>,
    /// The directive opens a verbatim block.
    pub opens_block: bool,
}

struct Ctx<'d> {
    name: &'static str,
    line: usize,
    col: usize,
    compat: bool,
    diags: &'d mut Vec<Diagnostic>,
}

impl Ctx<'_> {
    fn err_hint(&mut self, code: &str, col: usize, msg: impl Into<String>, hint: &str) {
        self.diags
            .push(Diagnostic::new(code, Severity::Error, self.line, col, msg).with_hint(hint));
    }

    fn warn(&mut self, code: &str, col: usize, msg: impl Into<String>, hint: &str) {
        self.diags
            .push(Diagnostic::new(code, Severity::Warning, self.line, col, msg).with_hint(hint));
    }

    /// Checks `min..=max` arguments; reports `arity` and returns false when outside.
    fn arity(&mut self, args: &[Tok<'_>], min: usize, max: usize, usage: &str) -> bool {
        let n = args.len();
        if n >= min && n <= max {
            return true;
        }
        let want = match (min, max) {
            (a, b) if a == b => format!("exactly {a}"),
            (a, usize::MAX) => format!("at least {a}"),
            (a, b) => format!("{a} to {b}"),
        };
        let col = args.get(max).map_or(self.col, |t| t.col);
        let msg = format!("`{}` takes {want} argument(s), got {n}", self.name);
        self.err_hint(codes::ARITY, col, msg, usage);
        false
    }
}

/// Validates the arguments of directive `name` (given without the name token).
// One arm per directive, each "arity first, then format", reads better than guards.
#[allow(clippy::collapsible_match)]
pub(crate) fn check_arguments(
    name: &'static str,
    line: usize,
    col: usize,
    args: &[Tok<'_>],
    compat: bool,
    diags: &mut Vec<Diagnostic>,
) -> Checked {
    let mut cx = Ctx {
        name,
        line,
        col,
        compat,
        diags,
    };
    let mut out = Checked {
        redacted_text: None,
        cred: None,
        opens_block: false,
    };
    match name {
        "AGENT" | "SHELL" | "TOOLSET" | "FUNCTION" | "SKILL" | "MCP" | "PLUGIN" | "IMAGE"
        | "ISOLATION" | "BROKER" | "BACKEND" | "OPTIMIZER" | "FROM" => {
            cx.arity(args, 1, 1, &format!("{name} <value>"));
        }
        "CMD" => {
            cx.arity(args, 1, usize::MAX, "CMD <command line>");
        }
        "TOOL" => {
            if cx.arity(args, 1, 1, "TOOL <namespace>:<name>") {
                check_tool(&mut cx, args[0]);
            }
        }
        "URL" => {
            if cx.arity(args, 1, 1, "URL <scheme://host[:port][/path]>") {
                check_url(&mut cx, args[0]);
            }
        }
        "SERVER" => {
            if cx.arity(args, 2, 2, "SERVER <name> <url>") {
                check_url(&mut cx, args[1]);
            }
        }
        "CRED" => check_cred(&mut cx, args, &mut out),
        "BIND" => check_bind(&mut cx, args),
        "MOUNT" => check_mount(&mut cx, args),
        "POLICY" => {
            out.opens_block = true;
            if cx.arity(args, 0, 1, "POLICY [cedar] ... END")
                && !args.is_empty()
                && args[0].s != "cedar"
            {
                cx.err_hint(
                    codes::POLICY_PROFILE,
                    args[0].col,
                    "unsupported policy profile",
                    "the only policy profile is `cedar` (the default)",
                );
            }
        }
        "ALLOW" | "DENY" => {
            if cx.arity(args, 2, 2, &format!("{name} invoke <namespace>:<tool>"))
                && args[0].s != "invoke"
            {
                cx.err_hint(
                    codes::POLICY_VERB,
                    args[0].col,
                    format!("unsupported `{name}` verb"),
                    "the only shorthand verb in draft.4 is `invoke`",
                );
            }
        }
        "RATELIMIT" => {
            if cx.arity(args, 2, 2, "RATELIMIT <target> <count>/<unit>")
                && parse_rate(args[1].s).is_none()
            {
                cx.err_hint(
                    codes::RATE_FORMAT,
                    args[1].col,
                    "rate limit is not `<count>/<unit>`",
                    "e.g. `20/hour`; units s, sec, second, m, min, minute, h, hour, d, day",
                );
            }
        }
        "AUDIT" => {
            if cx.arity(args, 1, 1, "AUDIT off|basic|all|compliance")
                && super::ast::AuditLevel::parse(args[0].s).is_none()
            {
                cx.err_hint(
                    codes::AUDIT_VALUE,
                    args[0].col,
                    "unknown audit level",
                    "use off, basic, all or compliance",
                );
            }
        }
        "TIMEOUT" => {
            if cx.arity(args, 1, 1, "TIMEOUT <seconds>") && parse_uint(args[0].s).is_none() {
                cx.err_hint(
                    codes::TIMEOUT_FORMAT,
                    args[0].col,
                    "timeout is not a non-negative integer number of seconds",
                    "e.g. `TIMEOUT 30`",
                );
            }
        }
        "LIMIT" => {
            if cx.arity(args, 2, 2, "LIMIT <name> <integer|count/unit>")
                && parse_uint(args[1].s).is_none()
                && parse_rate(args[1].s).is_none()
            {
                cx.err_hint(
                    codes::LIMIT_FORMAT,
                    args[1].col,
                    "limit is not an integer or `<count>/<unit>`",
                    "e.g. `LIMIT tool_calls 100` or `LIMIT network_requests 50/min`",
                );
            }
        }
        "SLICE" => {
            if cx.arity(args, 1, usize::MAX, "SLICE <key>=<value> ...") {
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
        }
        "TRACE" => {
            if cx.arity(args, 1, 1, "TRACE on|off|<scheme://uri>") {
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
        }
        "MEMORY" => check_memory(&mut cx, args),
        "HEALTHCHECK" => check_healthcheck(&mut cx, args),
        "SOP" => {
            if args.len() == 1 {
                out.opens_block = !is_sop_reference(args[0].s);
            } else {
                // A bare `SOP` still opens a block, so its body does not cascade into errors;
                // `SOP several words` (the later inline form) does not.
                out.opens_block = args.is_empty();
                cx.arity(args, 1, 1, "SOP <path-or-ref> | SOP <name> ... END");
            }
        }
        _ => {}
    }
    out
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

/// A non-negative integer (at most 18 digits).
pub(crate) fn parse_uint(s: &str) -> Option<u64> {
    if s.is_empty() || s.len() > 18 || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// `<count>/<unit>` -> (count, window seconds).
pub(crate) fn parse_rate(s: &str) -> Option<(u64, u64)> {
    let (count, unit) = s.split_once('/')?;
    let window = match unit {
        "s" | "sec" | "second" => 1,
        "m" | "min" | "minute" => 60,
        "h" | "hour" => 3600,
        "d" | "day" => 86_400,
        _ => return None,
    };
    Some((parse_uint(count)?, window))
}

/// A Docker-style duration: digits then ms, s, m or h.
fn is_duration(s: &str) -> bool {
    let digits = s.bytes().take_while(u8::is_ascii_digit).count();
    digits > 0 && digits <= 12 && matches!(&s[digits..], "ms" | "s" | "m" | "h")
}

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

fn check_bind(cx: &mut Ctx<'_>, args: &[Tok<'_>]) {
    if !cx.arity(args, 2, 3, "BIND <source> <target> <copy|direct|ro|rw>") {
        return;
    }
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

fn check_mount(cx: &mut Ctx<'_>, args: &[Tok<'_>]) {
    if !cx.arity(args, 2, 2, "MOUNT <absolute-path> <ro|rw>") {
        return;
    }
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

fn check_memory(cx: &mut Ctx<'_>, args: &[Tok<'_>]) {
    if !cx.arity(
        args,
        2,
        4,
        "MEMORY <name> <schema-path> [schema:<Type>] [mode:ro|rw]",
    ) {
        return;
    }
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

fn check_healthcheck(cx: &mut Ctx<'_>, args: &[Tok<'_>]) {
    let hint = "HEALTHCHECK [--interval=<dur>] [--timeout=<dur>] [--retries=<n>] CMD <probe>";
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

/// A reference source: `env:NAME`, `vault://path#key`, `keyring:NAME`.
/// Returns `None` when the token is not a reference at all (a literal), `Some(false)` when it
/// is a malformed reference.
fn cred_source_ok(s: &str) -> Option<bool> {
    if let Some(var) = s.strip_prefix("env:") {
        let mut b = var.bytes();
        let ok = b
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == b'_')
            && b.all(|c| c.is_ascii_alphanumeric() || c == b'_');
        Some(ok)
    } else if let Some(rest) = s.strip_prefix("vault://") {
        Some(
            rest.split_once('#')
                .is_some_and(|(p, k)| !p.is_empty() && !k.is_empty() && !k.contains('#')),
        )
    } else {
        s.strip_prefix("keyring:").map(|k| !k.is_empty())
    }
}

/// A host pattern: a DNS name, optionally `*.` + name, optional `:port`; no bare `*`.
fn host_ok(h: &str) -> bool {
    let (host, port) = match h.rsplit_once(':') {
        Some((host, port)) => (host, Some(port)),
        None => (h, None),
    };
    if port.is_some_and(|p| parse_uint(p).is_none_or(|n| n == 0 || n > 65_535)) {
        return false;
    }
    let name = host.strip_prefix("*.").unwrap_or(host);
    !name.is_empty()
        && name.split('.').all(|label| {
            !label.is_empty()
                && label
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        })
}

fn cred_name_ok(n: &str) -> bool {
    let mut b = n.bytes();
    b.next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == b'_')
        && b.all(|c| c.is_ascii_alphanumeric() || c == b'_' || c == b'-' || c == b'.')
}

/// `CRED <name> <source> host:<pattern>... [inject:header|query]`.
/// Never echoes anything but the name and a valid source reference.
fn check_cred(cx: &mut Ctx<'_>, args: &[Tok<'_>], out: &mut Checked) {
    let usage = "CRED <name> env:<VAR>|vault://<path>#<key>|keyring:<key> host:<pattern>... [inject:header|query]";
    let mut stored: Vec<&str> = Vec::with_capacity(args.len());
    let mut valid = true;
    let mut redacted = false;
    if args.len() < 2 {
        // Show nothing: a lone token may be a pasted secret.
        if !args.is_empty() {
            out.redacted_text = Some(REDACTED.to_string());
        }
        cx.err_hint(
            codes::ARITY,
            cx.col,
            "`CRED` needs a name and a source reference",
            usage,
        );
        return;
    }
    let name = args[0];
    if cred_name_ok(name.s) {
        stored.push(name.s);
    } else {
        valid = false;
        redacted = true;
        stored.push(REDACTED);
        cx.err_hint(
            codes::CRED_NAME,
            name.col,
            "CRED name is not an identifier (not shown)",
            "letters, digits, `_`, `-`, `.`; starting with a letter or `_`",
        );
    }
    let source = args[1];
    match cred_source_ok(source.s) {
        Some(true) => stored.push(source.s),
        Some(false) => {
            valid = false;
            redacted = true;
            stored.push(REDACTED);
            cx.err_hint(
                codes::CRED_SOURCE,
                source.col,
                "malformed CRED source reference (not shown)",
                "env:<VAR>, vault://<path>#<key> or keyring:<key>",
            );
        }
        None => {
            valid = false;
            redacted = true;
            stored.push(REDACTED);
            cx.err_hint(
                codes::CRED_LITERAL_SECRET,
                source.col,
                "CRED source is not a reference; a literal secret value is never allowed (value not shown)",
                "reference the secret: env:<VAR>, vault://<path>#<key> or keyring:<key>",
            );
        }
    }
    let mut hosts = Vec::new();
    let mut inject: Option<Inject> = None;
    for t in &args[2..] {
        if let Some(h) = t.s.strip_prefix("host:") {
            if host_ok(h) {
                hosts.push(h.to_ascii_lowercase());
                stored.push(t.s);
            } else {
                valid = false;
                redacted = true;
                stored.push(REDACTED);
                cx.err_hint(
                    codes::CRED_HOST,
                    t.col,
                    "malformed CRED host pattern (not shown)",
                    "a host name, optionally `*.` + name and `:port`, e.g. `host:*.stripe.com`",
                );
            }
        } else if let Some(v) = t.s.strip_prefix("inject:") {
            let parsed = match v {
                "header" => Some(Inject::Header),
                "query" => Some(Inject::Query),
                _ => None,
            };
            match (parsed, inject) {
                (Some(p), None) => {
                    inject = Some(p);
                    stored.push(t.s);
                }
                _ => {
                    valid = false;
                    redacted = true;
                    stored.push(REDACTED);
                    cx.err_hint(
                        codes::CRED_INJECT,
                        t.col,
                        "bad or repeated CRED inject value",
                        "inject:header (default) or inject:query, once",
                    );
                }
            }
        } else {
            valid = false;
            redacted = true;
            stored.push(REDACTED);
            cx.err_hint(
                codes::CRED_LITERAL_SECRET,
                t.col,
                "unexpected CRED token; it may be a secret value (not shown)",
                "after the source only `host:<pattern>` and `inject:header|query` are allowed",
            );
        }
    }
    if hosts.is_empty() && valid {
        cx.warn(
            codes::CRED_HOST_MISSING,
            cx.col,
            format!(
                "credential `{}` has no `host:` binding and can never be substituted",
                name.s
            ),
            "add `host:<pattern>` for every host that may receive it",
        );
    }
    if valid {
        out.cred = Some(Cred {
            name: name.s.to_string(),
            source: source.s.to_string(),
            hosts,
            inject: inject.unwrap_or(Inject::Header),
            line: cx.line,
        });
    }
    if redacted {
        out.redacted_text = Some(stored.join(" "));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_and_durations() {
        assert_eq!(parse_rate("20/hour"), Some((20, 3600)));
        assert_eq!(parse_rate("5/min"), Some((5, 60)));
        assert_eq!(parse_rate("5/week"), None);
        assert_eq!(parse_rate("/min"), None);
        assert_eq!(parse_rate("-1/min"), None);
        assert!(
            is_duration("30s") && is_duration("100ms") && !is_duration("s") && !is_duration("5x")
        );
    }

    #[test]
    fn cred_sources() {
        assert_eq!(cred_source_ok("env:GITHUB_TOKEN"), Some(true));
        assert_eq!(
            cred_source_ok("vault://secret/data/prod/db#password"),
            Some(true)
        );
        assert_eq!(cred_source_ok("vault://secret/data/prod/db"), Some(false));
        assert_eq!(cred_source_ok("keyring:github_token"), Some(true));
        assert_eq!(cred_source_ok("env:"), Some(false));
        assert_eq!(cred_source_ok("ghp_abcdef"), None);
    }

    #[test]
    fn hosts() {
        assert!(host_ok("api.github.com") && host_ok("*.stripe.com") && host_ok("db:5432"));
        assert!(
            !host_ok("*") && !host_ok("a/b") && !host_ok("") && !host_ok("a..b") && !host_ok("h:0")
        );
    }

    #[test]
    fn sop_reference_rule() {
        assert!(is_sop_reference("./sops/code-review.md"));
        assert!(is_sop_reference("ghcr.io/org/sops/incident-response:1.2"));
        assert!(is_sop_reference("review.md"));
        assert!(!is_sop_reference("code-review"));
        assert!(!is_sop_reference("release-1.2"));
    }
}
