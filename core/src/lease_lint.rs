//! Lease lint: patterns that are valid (SEMANTICS 2-5) but almost never what the author meant,
//! because they grant more than they seem to (`https://api.example.com**` also matches
//! `https://api.example.com.evil.com/`) or because they can never match a canonical target
//! (`/data/*/../secret`). Each warning has a stable code, the capability, the pattern as
//! stored, a message and a hint. Lint never changes what a lease grants.

use crate::canonical::ambiguity;
use crate::error::{Error, ErrorCode, Result};
use crate::lease::Lease;
use serde::{Deserialize, Serialize};

/// Stable warning codes.
pub mod codes {
    /// The host can be extended: the authority ends in `*` after host characters
    /// (`https://api.example.com**` matches `https://api.example.com.evil.com/`).
    pub const HOST_OPEN_SUFFIX: &str = "host-open-suffix";
    /// A `*` starts a host label without being the whole label (`https://*api.example.com/`
    /// matches `https://evilapi.example.com/`).
    pub const HOST_LABEL_PREFIX: &str = "host-label-prefix";
    /// `**` in the authority crosses `/`: the host can be anything
    /// (`https://**.example.com/**` matches `https://evil.com/.example.com/`).
    pub const HOST_GLOBSTAR: &str = "host-globstar";
    /// A `*` in the scheme (`*://api.example.com/**` matches every scheme: `http`, `ws`, ...).
    pub const SCHEME_WILDCARD: &str = "scheme-wildcard";
    /// An upper-case letter in a host kept verbatim (it has a `*`): canonical hosts are
    /// lower case, so it never matches.
    pub const HOST_UPPERCASE: &str = "host-uppercase";
    /// A `net.fetch` pattern with a `#`: canonical targets have no fragment, never matches.
    pub const URL_FRAGMENT: &str = "url-fragment";
    /// A `net.fetch` pattern whose authority has a `*` and that has no path: it is kept
    /// verbatim and canonical targets always have a path (at least `/`), never matches.
    pub const URL_NO_PATH: &str = "url-no-path";
    /// A `net.fetch` pattern that does not start with `scheme://` (nor with `*`): canonical
    /// targets always do, never matches.
    pub const URL_NO_SCHEME: &str = "url-no-scheme";
    /// A path with a `.` or `..` segment, an empty segment (`//`), or (`fs.*`) a trailing
    /// `/`: canonicalization removes them, so the pattern never matches there.
    pub const NON_CANONICAL_PATH: &str = "non-canonical-path";
    /// A percent-escape canonicalization rewrites (an unreserved character such as `%41`, or
    /// lower-case hex such as `%2f`), or an invalid one: never matches.
    pub const NON_CANONICAL_ESCAPE: &str = "non-canonical-escape";
    /// A path that a canonical target can never have, because such targets are refused as
    /// ambiguous (SEMANTICS 5.2: `\`, `..;`, `..%2F`, `%252e%252e`): never matches.
    pub const AMBIGUOUS_PATH: &str = "ambiguous-path";
}

/// One lease-writing mistake.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LeaseWarning {
    /// Stable machine code (see [`codes`]).
    pub code: String,
    /// The capability the pattern belongs to.
    pub capability: String,
    /// The pattern as the lease stores it.
    pub pattern: String,
    /// What is wrong (wording may change; compare codes).
    pub message: String,
    /// How to write what was probably meant.
    pub hint: String,
}

/// The warnings for every pattern of `lease`, in capability and pattern order.
pub fn lint_lease(lease: &Lease) -> Vec<LeaseWarning> {
    let mut out = Vec::new();
    for cap in lease.capabilities() {
        for pattern in lease.patterns(cap).unwrap_or_default() {
            let mut warn = |code: &str, message: String, hint: &str| {
                out.push(LeaseWarning {
                    code: code.to_string(),
                    capability: cap.to_string(),
                    pattern: pattern.clone(),
                    message,
                    hint: hint.to_string(),
                });
            };
            match cap {
                "fs.read" | "fs.write" => lint_path(pattern, &mut warn),
                "net.fetch" => lint_url(pattern, &mut warn),
                _ => {}
            }
        }
    }
    out
}

/// [`lint_lease`] with JSON in and out: a lease JSON object in, `{"warnings": [...]}` out
/// (each warning `{code, capability, pattern, message, hint}`). An invalid lease is
/// `INVALID_REQUEST`.
pub fn lint_lease_json(lease_json: &str) -> Result<String> {
    let lease = Lease::from_json(lease_json)?;
    serde_json::to_string(&serde_json::json!({ "warnings": lint_lease(&lease) }))
        .map_err(|e| Error::new(ErrorCode::InternalError, format!("lint output: {e}")))
}

type Warn<'w> = dyn FnMut(&str, String, &str) + 'w;

fn lint_path(p: &str, warn: &mut Warn) {
    let segments: Vec<&str> = p.split('/').skip(1).collect();
    let last = segments.len().saturating_sub(1);
    let bad = segments.iter().enumerate().find(|&(i, s)| {
        matches!(*s, "." | "..") || (s.is_empty() && i < last) || (s.is_empty() && p.len() > 1)
    });
    if p.starts_with('/')
        && let Some((_, seg)) = bad
    {
        let what = if seg.is_empty() {
            "an empty segment or a trailing '/'".to_string()
        } else {
            format!("a {seg:?} segment")
        };
        warn(
            codes::NON_CANONICAL_PATH,
            format!("it has {what}; targets are canonicalized first, so it never matches"),
            "write the path as canonicalization leaves it: no '.', '..' or empty segments and no trailing '/'",
        );
    }
}

fn lint_url(p: &str, warn: &mut Warn) {
    let Some(idx) = p.find("://") else {
        if !p.starts_with('*') {
            warn(
                codes::URL_NO_SCHEME,
                "it does not start with scheme://, which every canonical URL does".to_string(),
                "write the full URL, e.g. https://api.example.com/**",
            );
        }
        return;
    };
    let scheme = &p[..idx];
    if scheme.contains('*') {
        warn(
            codes::SCHEME_WILDCARD,
            "the scheme is a wildcard: it matches http, ws, ftp and every other scheme".to_string(),
            "name the scheme: one pattern per scheme you mean, usually https://",
        );
    }
    let rest = &p[idx + 3..];
    let auth_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let authority = &rest[..auth_end];
    let tail = &rest[auth_end..];
    if authority.contains('*') {
        lint_wild_authority(authority, tail, warn);
    }
    if tail.contains('#') {
        warn(
            codes::URL_FRAGMENT,
            "it has a fragment ('#'); canonical targets have none, so it never matches".to_string(),
            "drop the '#' part",
        );
    }
    let path = &tail[..tail.find(['?', '#']).unwrap_or(tail.len())];
    lint_url_path(path, warn);
}

fn lint_wild_authority(authority: &str, tail: &str, warn: &mut Warn) {
    let host = authority
        .rsplit_once(':')
        .filter(|(_, port)| port.bytes().all(|b| b.is_ascii_digit()))
        .map_or(authority, |(h, _)| h);
    if host.ends_with('*') && !host.trim_end_matches('*').is_empty() {
        warn(
            codes::HOST_OPEN_SUFFIX,
            format!(
                "the host can be extended: it also matches {:?}",
                format!("{}.evil.com", host.trim_end_matches('*'))
            ),
            "end the host and start the path: https://api.example.com/**",
        );
    } else if authority.contains("**") && authority != "**" {
        warn(
            codes::HOST_GLOBSTAR,
            "'**' in the host also matches '/': any host, and any path after it".to_string(),
            "use one '*' for one label: https://*.example.com/**",
        );
    }
    let b = host.as_bytes();
    if b.iter().enumerate().any(|(i, &c)| {
        c == b'*'
            && b.get(i + 1).is_some_and(|&n| n != b'.' && n != b'*')
            && (i == 0 || b[i - 1] == b'.')
    }) {
        warn(
            codes::HOST_LABEL_PREFIX,
            "a '*' starts a host label without being the whole label: '*api' also matches 'evilapi'".to_string(),
            "make the wildcard a whole label (https://*.api.example.com/**) or name the host",
        );
    }
    if host.bytes().any(|c| c.is_ascii_uppercase()) {
        warn(
            codes::HOST_UPPERCASE,
            "the host has upper-case letters; hosts are compared lower-cased, so it never matches"
                .to_string(),
            "write the host in lower case",
        );
    }
    // A `**` in the authority also matches the path; otherwise a path must follow.
    if !authority.contains("**") && (tail.is_empty() || tail.starts_with(['?', '#'])) {
        warn(
            codes::URL_NO_PATH,
            "it has no path; canonical targets always have one (at least '/'), so it never matches"
                .to_string(),
            "add the path: '/' for the root only, '/**' for everything under the host",
        );
    }
}

fn lint_url_path(path: &str, warn: &mut Warn) {
    if path.is_empty() {
        return;
    }
    let segments: Vec<&str> = path.split('/').skip(1).collect();
    let last = segments.len().saturating_sub(1);
    if segments
        .iter()
        .enumerate()
        .any(|(i, s)| matches!(*s, "." | "..") || (s.is_empty() && i < last))
    {
        warn(
            codes::NON_CANONICAL_PATH,
            "the path has a '.', '..' or empty segment; canonical targets have none, so it never matches there".to_string(),
            "write the path as canonicalization leaves it (dot segments removed, '//' collapsed)",
        );
    }
    let dot_segments = segments
        .iter()
        .enumerate()
        .any(|(i, s)| matches!(*s, "." | "..") || (s.is_empty() && i < last));
    let b = path.as_bytes();
    let hex = |c: u8| c.is_ascii_hexdigit();
    let bad_escape =
        (0..b.len())
            .filter(|&i| b[i] == b'%')
            .any(|i| match (b.get(i + 1), b.get(i + 2)) {
                (Some(&h), Some(&l)) if hex(h) && hex(l) => {
                    let v = (h as char).to_digit(16).unwrap_or(0) * 16
                        + (l as char).to_digit(16).unwrap_or(0);
                    let unreserved = (v as u8).is_ascii_alphanumeric()
                        || matches!(v as u8, b'-' | b'.' | b'_' | b'~');
                    unreserved || h.is_ascii_lowercase() || l.is_ascii_lowercase()
                }
                _ => true,
            });
    if bad_escape {
        warn(
            codes::NON_CANONICAL_ESCAPE,
            "the path has a percent-escape canonicalization rewrites (or an invalid one), so it never matches there".to_string(),
            "decode unreserved characters (%41 -> A), write other escapes in upper case (%2f -> %2F)",
        );
    }
    if let Some(why) = ambiguity(path).filter(|_| !dot_segments) {
        warn(
            codes::AMBIGUOUS_PATH,
            format!("the path is ambiguous ({why}); such targets are refused, so it never matches"),
            "name the path without backslashes, ';' after dots, or encoded or doubly encoded dot segments",
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn codes_of(lease: &str) -> Vec<String> {
        lint_lease(&Lease::from_json(lease).unwrap())
            .into_iter()
            .map(|w| w.code)
            .collect()
    }

    fn one(cap: &str, pattern: &str) -> Vec<String> {
        codes_of(&serde_json::json!({ cap: [pattern] }).to_string())
    }

    #[test]
    fn the_mistakes_of_issue_18() {
        assert_eq!(
            one("net.fetch", "https://api.example.com**"),
            [codes::HOST_OPEN_SUFFIX]
        );
        assert_eq!(
            one("net.fetch", "https://api.example.com*/**"),
            [codes::HOST_OPEN_SUFFIX]
        );
        assert_eq!(
            one("net.fetch", "https://*api.example.com/"),
            [codes::HOST_LABEL_PREFIX]
        );
        assert_eq!(
            one("net.fetch", "*://api.example.com/**"),
            [codes::SCHEME_WILDCARD]
        );
        assert_eq!(
            one("fs.read", "/data/*/../secret"),
            [codes::NON_CANONICAL_PATH]
        );
        assert_eq!(
            one("net.fetch", "https://api.example.com/v1#x"),
            [codes::URL_FRAGMENT]
        );
        assert_eq!(
            one("net.fetch", "https://*.Example.com/**"),
            [codes::HOST_UPPERCASE]
        );
    }

    #[test]
    fn the_warnings_say_true_things() {
        use crate::pattern::match_pattern;
        let m = |p: &str, t: &str| match_pattern("net.fetch", p, t).unwrap_or(false);
        assert!(m(
            "https://api.example.com**",
            "https://api.example.com.evil.com/"
        ));
        assert!(m(
            "https://*api.example.com/",
            "https://evilapi.example.com/"
        ));
        assert!(m("*://api.example.com/**", "ws://api.example.com/x"));
        assert!(m(
            "https://**.example.com/**",
            "https://evil.com/.example.com/"
        ));
        for (p, t) in [
            ("https://*.Example.com/**", "https://a.Example.com/x"),
            ("https://*.example.com", "https://a.example.com"),
            (
                "https://api.example.com/v1#x",
                "https://api.example.com/v1#x",
            ),
            ("https://h.example/a/./b", "https://h.example/a/./b"),
            ("https://h.example/%41", "https://h.example/%41"),
            ("https://h.example/v1/..;/x", "https://h.example/v1/..;/x"),
        ] {
            assert!(!m(p, t), "{p} must never match, not even {t}");
        }
        assert!(!match_pattern("fs.read", "/data/*/../secret", "/data/x/../secret").unwrap());
    }

    #[test]
    fn more_patterns_that_never_match() {
        assert_eq!(
            one("net.fetch", "https://**.example.com/**"),
            [codes::HOST_GLOBSTAR]
        );
        assert_eq!(
            one("net.fetch", "https://*.example.com"),
            [codes::URL_NO_PATH]
        );
        assert_eq!(
            one("net.fetch", "api.example.com/**"),
            [codes::URL_NO_SCHEME]
        );
        assert_eq!(
            one("net.fetch", "https://h.example/a/./b"),
            [codes::NON_CANONICAL_PATH]
        );
        assert_eq!(
            one("net.fetch", "https://h.example/a//b"),
            [codes::NON_CANONICAL_PATH]
        );
        assert_eq!(
            one("net.fetch", "https://h.example/%41"),
            [codes::NON_CANONICAL_ESCAPE]
        );
        assert_eq!(
            one("net.fetch", "https://h.example/a%2fb"),
            [codes::NON_CANONICAL_ESCAPE]
        );
        assert_eq!(
            one("net.fetch", "https://h.example/v1/..;/x"),
            [codes::AMBIGUOUS_PATH]
        );
        assert_eq!(
            one("net.fetch", "https://h.example/v1/\\**"),
            [codes::AMBIGUOUS_PATH]
        );
        assert_eq!(one("fs.write", "/tmp/"), [codes::NON_CANONICAL_PATH]);
        assert_eq!(one("fs.read", "/a//b"), [codes::NON_CANONICAL_PATH]);
    }

    #[test]
    fn ordinary_patterns_are_quiet() {
        for (cap, p) in [
            ("net.fetch", "https://api.example.com/**"),
            ("net.fetch", "HTTPS://API.example.com:443"),
            ("net.fetch", "https://*.example.com/**"),
            ("net.fetch", "https://*.example.com:8443/v1/*"),
            ("net.fetch", "https://api.example.com/v1/a%2Fb/*"),
            ("net.fetch", "https://api.example.com/.well-known/**"),
            ("net.fetch", "https://api.example.com/x..?q=..%2f"),
            ("net.fetch", "https://**"),
            ("net.fetch", "https://*/**"),
            ("net.fetch", "**"),
            ("net.fetch", "s3://reports/**.csv"),
            ("fs.read", "/"),
            ("fs.read", "/**"),
            ("fs.read", "/workspace/**/*.rs"),
            ("fs.read", "/a/..b/.c/x.."),
            ("fs.read", "**/x"),
            ("tool.call", "web.*"),
            ("model.use", "gpt-4*"),
        ] {
            assert_eq!(one(cap, p), Vec::<String>::new(), "{cap} {p}");
        }
    }

    #[test]
    fn json_in_and_out() {
        let out =
            lint_lease_json(r#"{"net.fetch": ["*://h.example/**"], "tool.call": ["x"]}"#).unwrap();
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        let w = &v["warnings"][0];
        assert_eq!(w["code"], codes::SCHEME_WILDCARD);
        assert_eq!(w["capability"], "net.fetch");
        assert_eq!(w["pattern"], "*://h.example/**");
        assert!(w["hint"].as_str().is_some_and(|h| !h.is_empty()));
        assert_eq!(v["warnings"].as_array().unwrap().len(), 1);
        let e = lint_lease_json(r#"{"fs.read": "x"}"#).unwrap_err();
        assert_eq!(e.code(), crate::ErrorCode::InvalidRequest);
    }
}
