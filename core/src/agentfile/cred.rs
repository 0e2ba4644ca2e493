//! `CRED` lines (SEMANTICS 12): the credential name, its source reference (`env:NAME`,
//! `vault://path#key`, `keyring:NAME`), `host:` bindings and the injection point.
//!
//! Secret safety: a token that is not a valid name, reference, `host:` or `inject:` is
//! replaced by [`REDACTED`] before the line is stored and never appears in a message.

use super::arg_context::{Ctx, Tok};
use super::ast::{Cred, Inject, REDACTED};
use super::diagnostics::codes;
use super::values::parse_uint;

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

/// What checking a `CRED` line gives.
#[derive(Default)]
pub(crate) struct CredLine {
    /// The well-formed credential reference, when the line has no error.
    pub cred: Option<Cred>,
    /// The argument text to store instead of the source text, when a token was redacted.
    pub redacted_text: Option<String>,
}

/// `CRED <name> <source> host:<pattern>... [inject:header|query]`.
/// Never echoes anything but the name and a valid source reference. The arity (at least the
/// name and the source) and the usage line come from the directive table; a short line gets
/// its own message because a lone token may be a pasted secret.
pub(crate) fn check_cred(cx: &mut Ctx<'_>, args: &[Tok<'_>]) -> CredLine {
    let mut out = CredLine::default();
    let usage = cx.info.usage;
    let mut stored: Vec<&str> = Vec::with_capacity(args.len());
    let mut valid = true;
    let mut redacted = false;
    if args.len() < cx.info.min_args {
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
        return out;
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
    out
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn names() {
        assert!(cred_name_ok("GITHUB_TOKEN") && cred_name_ok("_x.y-z"));
        assert!(!cred_name_ok("1abc") && !cred_name_ok("") && !cred_name_ok("a b"));
    }
}
