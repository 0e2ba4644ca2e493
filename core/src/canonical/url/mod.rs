//! `net.fetch` targets (SEMANTICS 5.2): `scheme://authority[path][?query][#fragment]`.
//! The authority rules live in `authority`, the path rules in `path`, and the one-pass check
//! that recognizes an already-canonical URL in `fast`.

pub(crate) mod ambiguity;
mod authority;
mod fast;
mod path;

pub(crate) use authority::canonical_authority;
pub(super) use fast::is_canonical_url;

use crate::error::{Error, Result};
use path::canonical_url_path;

/// Splits `scheme://rest`, returning the lower-cased scheme and `rest`, if `t` has that form.
pub(crate) fn split_scheme(t: &str) -> Option<(String, &str)> {
    let idx = t.find("://")?;
    let scheme = &t[..idx];
    let b = scheme.as_bytes();
    if b.is_empty()
        || !b[0].is_ascii_alphabetic()
        || !b
            .iter()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'-' | b'.'))
    {
        return None;
    }
    Some((scheme.to_ascii_lowercase(), &t[idx + 3..]))
}

pub(super) fn canonical_url(t: &str) -> Result<String> {
    let (scheme, rest) = split_scheme(t)
        .ok_or_else(|| Error::invalid(format!("{t:?} is not scheme://authority")))?;
    let auth_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let authority = canonical_authority(&scheme, &rest[..auth_end])?;
    let tail = &rest[auth_end..];
    let path_end = tail.find(['?', '#']).unwrap_or(tail.len());
    let path = canonical_url_path(&tail[..path_end])?;
    let after = &tail[path_end..];
    let query = if after.starts_with('?') {
        &after[..after.find('#').unwrap_or(after.len())]
    } else {
        ""
    };
    let mut out = String::with_capacity(t.len() + 1);
    out.push_str(&scheme);
    out.push_str("://");
    out.push_str(&authority);
    out.push_str(&path);
    out.push_str(query);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::canonical::canonicalize_target;

    fn c(cap: &str, t: &str) -> String {
        canonicalize_target(cap, t).unwrap()
    }

    #[test]
    fn urls() {
        let u = |t| c("net.fetch", t);
        assert_eq!(
            u("HTTPS://API.Example.COM:443/v1"),
            "https://api.example.com/v1"
        );
        assert_eq!(u("https://api.example.com"), "https://api.example.com/");
        assert_eq!(
            u("https://api.example.com.:8443"),
            "https://api.example.com:8443/"
        );
        assert_eq!(u("http://h:080/"), "http://h/");
        assert_eq!(u("http://h:0443/"), "http://h:443/");
        assert_eq!(u("ws://h:80/x"), "ws://h/x");
        assert_eq!(u("https://h/v1/../admin"), "https://h/admin");
        assert_eq!(u("https://h/v1/%2e%2e/admin"), "https://h/admin");
        assert_eq!(u("https://h/a//../b"), "https://h/a/b");
        assert_eq!(
            u("https://h/a/%2fb/%7euser/%e2%82%ac"),
            "https://h/a/%2Fb/~user/%E2%82%AC"
        );
        assert_eq!(u("https://h/a//b///c"), "https://h/a/b/c");
        assert_eq!(u("https://h?q=1#frag"), "https://h/?q=1");
        assert_eq!(u("https://h/p?q=/../x#f"), "https://h/p?q=/../x");
        assert_eq!(u("https://h/p#f?x"), "https://h/p");
        assert_eq!(u("https://[::1]:443/"), "https://[::1]/");
        assert_eq!(u("https://[FE80::1]/"), "https://[fe80::1]/");
        assert_eq!(u("s3://Reports/2026/W19.csv"), "s3://reports/2026/W19.csv");
        assert_eq!(u("https://h/a b"), "https://h/a b");
        assert_eq!(u("https://h/.."), "https://h/");
        for bad in [
            "https://api.example.com@evil.com/",
            "https://user:pw@h/",
            "https:///x",
            "https://:443/",
            "https://h:/",
            "https://h:65536/",
            "https://h:000443/",
            "https://h:x/",
            "https://ex%41mple.com/",
            "https://bücher.de/",
            "https://h/%zz",
            "https://h/%2",
            "mailto:x@y",
            "//h/x",
            "h/x",
            "1http://h/",
            "https://[::1/",
            "https://[zz]/",
            "https://h\\.evil/",
            "https://./",
            "https://a..b/",
            "https://.a/",
            "j://..",
            "https://example.com../x",
            "https://h/v1/\\..\\admin",
            "https://h/v1/..%2Fadmin",
            "https://h/v1/%252e%252e/x",
            "https://h/v1/..;/x",
        ] {
            assert!(canonicalize_target("net.fetch", bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn fast_path_agrees_with_full_canonicalization() {
        for t in [
            "https://api.example.com/v1/users/42",
            "https://api.example.com/",
            "https://api.example.com/a/",
            "https://api.example.com:8443/x?q=1",
            "https://api.example.com/x?q=/../#",
            "https://api.example.com//x",
            "https://api.example.com/x//",
            "https://api.example.com/./x",
            "https://api.example.com/x/..",
            "https://api.example.com:443/",
            "https://api.example.com:0443/",
            "https://api.example.com:99999/",
            "https://API.example.com/",
            "https://api.example.com./",
            "https://u@h/",
            "https://h/%41",
            "https://h/a#f",
            "HTTPS://h/",
            "https://h",
            "https://h?x",
            "s3://bucket/key",
            "https://h/a/.",
            "https://h/a/..?x",
            "https://h/?a#b",
            "https://h:65535/",
            "https://h:65536/",
            "http://h:80/",
            "https://h/.x/..x/x..",
            "https://h/a//?x",
            "https://h/a/?x//y",
            "a1+b://h/",
            "1a://h/",
            "https://h./",
            "https://h:/",
            "https://h/a\u{1}b",
            "https://h/a?b\u{7f}",
        ] {
            if is_canonical_url(t) {
                assert_eq!(canonical_url(t).unwrap(), t, "{t}");
            }
        }
        assert!(is_canonical_url("https://api.example.com/v1/users/42"));
        assert!(is_canonical_url("https://api.example.com/a/"));
        assert!(is_canonical_url("https://h/.x/..x/x.."));
        assert!(is_canonical_url("https://h/a/?x//y"));
        assert!(!is_canonical_url("https://h/a//?x"));
        assert!(!is_canonical_url("https://h/a/."));
        assert!(!is_canonical_url("https://h/a\u{1}b"));
        assert!(!is_canonical_url("https://h/a?b\u{7f}"));
        for t in [
            "https://a..b/x",
            "https://.a/x",
            "https://a./x",
            "https://h/.;x",
            "https://h/..;/x",
            "https://h/a\\b",
        ] {
            assert!(!is_canonical_url(t), "{t}");
        }
        assert!(is_canonical_url("https://h/a;b/x..;/...;"));
        assert!(canonicalize_target("net.fetch", "https://h/a?b\u{7f}").is_err());
    }
}
