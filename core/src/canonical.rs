//! Target canonicalization (SEMANTICS 5), hand-written: no `url` crate on this path, because
//! WHATWG URL parsing normalizes differently (backslashes, IDNA, re-encoding).
//!
//! - `fs.read`/`fs.write`: absolute POSIX paths; `//` collapses, `.` drops, `..` pops (and stays
//!   at `/`), a trailing `/` goes. No percent-decoding, case folding or symlink resolution: the
//!   runtime must resolve symlinks itself and perform the operation on the canonical path.
//! - `net.fetch`: `scheme://authority[path][?query][#fragment]`; scheme and host lower-cased,
//!   userinfo refused, default ports removed, unreserved percent-escapes decoded, other escapes
//!   upper-cased (`%2F` stays encoded), dot segments removed (RFC 3986 5.2.4), `//` collapsed,
//!   fragment dropped, query kept verbatim.
//! - everything else: verbatim.

mod bytes;
pub(crate) use bytes::short_word;

use crate::capability::CapabilityKind;
use crate::error::{Error, Result};
use std::borrow::Cow;

/// Canonicalizes `target` for `capability`, or fails with `INVALID_REQUEST`.
pub fn canonicalize_target(capability: &str, target: &str) -> Result<String> {
    canonicalize_for(CapabilityKind::of(capability)?, target).map(Cow::into_owned)
}

/// Canonicalizes `target` for a capability kind (borrowing when nothing changes).
pub(crate) fn canonicalize_for(kind: CapabilityKind, target: &str) -> Result<Cow<'_, str>> {
    if kind == CapabilityKind::NetFetch && is_canonical_url(target) {
        return Ok(Cow::Borrowed(target)); // checks control characters itself
    }
    if matches!(kind, CapabilityKind::FsRead | CapabilityKind::FsWrite)
        && is_short_canonical_path(target.as_bytes())
    {
        return Ok(Cow::Borrowed(target));
    }
    if target.is_empty() {
        return Err(Error::invalid("empty target"));
    }
    if has_control(target) {
        return Err(Error::invalid("target contains a control character"));
    }
    match kind {
        CapabilityKind::FsRead | CapabilityKind::FsWrite => canonical_path(target),
        CapabilityKind::NetFetch => canonical_url(target).map(Cow::Owned),
        CapabilityKind::CostBudget => Err(Error::invalid("cost.budget is not a target capability")),
        _ => Ok(Cow::Borrowed(target)),
    }
}

/// Whether `s` holds U+0000-U+001F or U+007F.
pub(crate) fn has_control(s: &str) -> bool {
    // No early exit: short targets are the common case and this form vectorizes.
    s.bytes()
        .fold(false, |acc, b| acc | (b < 0x20) | (b == 0x7f))
}

fn canonical_path(t: &str) -> Result<Cow<'_, str>> {
    if !t.starts_with('/') {
        return Err(Error::invalid(format!("path {t:?} is not absolute")));
    }
    if is_canonical_path(t.as_bytes()) {
        return Ok(Cow::Borrowed(t));
    }
    let mut out: Vec<&str> = Vec::new();
    for seg in t.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                out.pop();
            }
            s => out.push(s),
        }
    }
    let mut s = String::with_capacity(t.len());
    for seg in &out {
        s.push('/');
        s.push_str(seg);
    }
    if s.is_empty() {
        s.push('/');
    }
    Ok(Cow::Owned(s))
}

/// Whether an absolute path is already canonical: `/`, or segments that are neither empty
/// (`//`, a trailing `/`) nor `.` nor `..`. One pass over the bytes, no allocation.
fn is_canonical_path(b: &[u8]) -> bool {
    if b.len() <= 1 {
        return true;
    }
    // A branch-free scan (a per-byte branch on `/` mispredicts): `len` and `dots` describe the
    // current segment; a segment that is empty or is `.`/`..` makes the path non-canonical.
    let mut bad = false;
    let mut len = 0usize;
    let mut dots = true;
    for &c in &b[1..] {
        let slash = c == b'/';
        bad |= slash & ((len == 0) | (dots & (len <= 2)));
        len = if slash { 0 } else { len + 1 };
        dots = slash | (dots & (c == b'.'));
    }
    !(bad | (len == 0) | (dots & (len <= 2)))
}

/// Whether `b` is a short (2-63 bytes) absolute path that is already canonical and has no
/// control character: the common case, answered from byte-class masks. `false` means "take
/// the general path", not "invalid".
fn is_short_canonical_path(b: &[u8]) -> bool {
    let n = b.len();
    if !(2..64).contains(&n) || b[0] != b'/' {
        return false;
    }
    let Some(c) = bytes::classes(b) else {
        return false;
    };
    // Read the path as if followed by `/`: canonical unless it holds `//`, `/./` or `/../`.
    let slash = c.slash | (1 << n);
    let dot = c.dot;
    let bad = (slash & (slash >> 1))
        | (slash & (dot >> 1) & (slash >> 2))
        | (slash & (dot >> 1) & (dot >> 2) & (slash >> 3));
    c.control == 0 && bad == 0
}

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

/// Bytes allowed in an already-canonical host: lower-case reg-name bytes.
const CANONICAL_HOST: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        t[b] = is_reg_name_byte(c) && !c.is_ascii_uppercase();
        b += 1;
    }
    t
};

/// A conservative single-pass check that `t` is already canonical: lower-case scheme and
/// reg-name host without a trailing dot, no userinfo, a port only when it is not the default
/// and has no leading zero, a non-empty path without `%`, `//` or dot segments, and no
/// fragment. `false` just means "take the full path" ([`canonical_url`]).
fn is_canonical_url(t: &str) -> bool {
    let b = t.as_bytes();
    let n = b.len();
    let mut i = 0;
    while i < n
        && (b[i].is_ascii_lowercase()
            || (i > 0 && (b[i].is_ascii_digit() || matches!(b[i], b'+' | b'-' | b'.'))))
    {
        i += 1;
    }
    if i == 0 || !b[i..].starts_with(b"://") {
        return false;
    }
    let scheme = &b[..i];
    i += 3;
    let host_start = i;
    while i < n && CANONICAL_HOST[b[i] as usize] {
        i += 1;
    }
    if i == host_start || b[i - 1] == b'.' {
        return false;
    }
    if i < n && b[i] == b':' {
        let port_start = i + 1;
        i = port_start;
        while i < n && b[i].is_ascii_digit() {
            i += 1;
        }
        let p = &b[port_start..i];
        let default: &[u8] = match scheme {
            b"http" | b"ws" => b"80",
            b"https" | b"wss" => b"443",
            _ => b"",
        };
        if p.is_empty()
            || p.len() > 5
            || p[0] == b'0'
            || p == default
            || (p.len() == 5 && p > b"65535".as_slice())
        {
            return false;
        }
    }
    if i >= n || b[i] != b'/' {
        return false;
    }
    // Path, one pass: a segment ends at '/', '?' or the end; none may be "." or "..", none but
    // the last may be empty ("//"); no '%', fragment or control character anywhere.
    i += 1;
    let mut seg_start = i;
    loop {
        let end = i >= n;
        let c = if end { b'?' } else { b[i] };
        match c {
            b'/' | b'?' => {
                let seg = &b[seg_start..i];
                if seg == b"." || seg == b".." || (c == b'/' && seg.is_empty()) {
                    return false;
                }
                if end {
                    return true;
                }
                if c == b'?' {
                    return b[i..].iter().all(|&q| q >= 0x20 && q != 0x7f && q != b'#');
                }
                seg_start = i + 1;
            }
            b'%' | b'#' => return false,
            c if c < 0x20 || c == 0x7f => return false,
            _ => {}
        }
        i += 1;
    }
}

fn canonical_url(t: &str) -> Result<String> {
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

/// Canonicalizes an authority (`host[:port]`) for `scheme` (already lower-cased).
pub(crate) fn canonical_authority(scheme: &str, a: &str) -> Result<String> {
    if a.contains('@') {
        return Err(Error::invalid(
            "userinfo (user@host) is not allowed in a URL",
        ));
    }
    let (host, port) = if let Some(inner) = a.strip_prefix('[') {
        let close = inner
            .find(']')
            .ok_or_else(|| Error::invalid("unterminated IP literal"))?;
        let lit = &inner[..close];
        validate_ip_literal(lit)?;
        let after = &inner[close + 1..];
        let port = match after.strip_prefix(':') {
            Some(p) => Some(p),
            None if after.is_empty() => None,
            None => return Err(Error::invalid("garbage after IP literal")),
        };
        (format!("[{}]", lit.to_ascii_lowercase()), port)
    } else {
        let (h, p) = match a.split_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (a, None),
        };
        let h = h.strip_suffix('.').unwrap_or(h);
        if h.is_empty() {
            return Err(Error::invalid("empty host"));
        }
        if !h.bytes().all(is_reg_name_byte) {
            return Err(Error::invalid(format!(
                "invalid host {h:?}: only ASCII letters, digits and -._~!$&'()*+,;= (use punycode for IDNs)"
            )));
        }
        (h.to_ascii_lowercase(), p)
    };
    let mut out = host;
    if let Some(p) = port {
        let port = parse_port(p)?;
        let default = match scheme {
            "http" | "ws" => Some(80),
            "https" | "wss" => Some(443),
            _ => None,
        };
        if default != Some(port) {
            out.push(':');
            out.push_str(&port.to_string());
        }
    }
    Ok(out)
}

const fn is_reg_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric()
        || matches!(
            b,
            b'-' | b'.'
                | b'_'
                | b'~'
                | b'!'
                | b'$'
                | b'&'
                | b'\''
                | b'('
                | b')'
                | b'*'
                | b'+'
                | b','
                | b';'
                | b'='
        )
}

fn parse_port(p: &str) -> Result<u32> {
    if p.is_empty() || p.len() > 5 || !p.bytes().all(|b| b.is_ascii_digit()) {
        return Err(Error::invalid(format!("invalid port {p:?}")));
    }
    let n: u32 = p.parse().map_err(|_| Error::invalid("invalid port"))?;
    if n > 65535 {
        return Err(Error::invalid(format!("port {n} is above 65535")));
    }
    Ok(n)
}

fn validate_ip_literal(lit: &str) -> Result<()> {
    let ok = if let Some(rest) = lit.strip_prefix(['v', 'V']) {
        // IPvFuture: "v" 1*HEXDIG "." 1*( unreserved / sub-delims / ":" )
        match rest.split_once('.') {
            Some((hex, tail)) => {
                !hex.is_empty()
                    && hex.bytes().all(|b| b.is_ascii_hexdigit())
                    && !tail.is_empty()
                    && tail.bytes().all(|b| b == b':' || is_reg_name_byte(b))
            }
            None => false,
        }
    } else {
        lit.parse::<std::net::Ipv6Addr>().is_ok()
    };
    if ok {
        Ok(())
    } else {
        Err(Error::invalid(format!("invalid IP literal [{lit}]")))
    }
}

fn is_unreserved(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~')
}

fn canonical_url_path(p: &str) -> Result<String> {
    // 1. percent-escapes: decode unreserved, upper-case the rest (%2F stays encoded).
    let bytes = p.as_bytes();
    let mut decoded = String::with_capacity(p.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = |j: usize| bytes.get(j).and_then(|c| (*c as char).to_digit(16));
            let (Some(h), Some(l)) = (hex(i + 1), hex(i + 2)) else {
                return Err(Error::invalid(format!(
                    "invalid percent-escape in path {p:?}"
                )));
            };
            let v = (h * 16 + l) as u8;
            if is_unreserved(v) {
                decoded.push(v as char);
            } else {
                decoded.push('%');
                decoded.push_str(&format!("{v:02X}"));
            }
            i += 3;
        } else {
            let ch_len = utf8_len(bytes[i]);
            decoded.push_str(&p[i..i + ch_len]);
            i += ch_len;
        }
    }
    // 2. dot segments, 3. repeated slashes, 4. empty path.
    let removed = remove_dot_segments(&decoded);
    let mut out = String::with_capacity(removed.len() + 1);
    for c in removed.chars() {
        if c == '/' && out.ends_with('/') {
            continue;
        }
        out.push(c);
    }
    if out.is_empty() {
        out.push('/');
    }
    Ok(out)
}

fn utf8_len(lead: u8) -> usize {
    match lead {
        0x00..=0x7f => 1,
        0xc0..=0xdf => 2,
        0xe0..=0xef => 3,
        _ => 4,
    }
}

/// RFC 3986 section 5.2.4 (empty segments count as segments).
fn remove_dot_segments(input: &str) -> String {
    let mut inp = input;
    let mut out = String::with_capacity(input.len());
    let pop = |out: &mut String| {
        let cut = out.rfind('/').unwrap_or(0);
        out.truncate(cut);
    };
    while !inp.is_empty() {
        if let Some(r) = inp.strip_prefix("../") {
            inp = r;
        } else if let Some(r) = inp.strip_prefix("./") {
            inp = r;
        } else if inp.starts_with("/./") {
            inp = &inp[2..];
        } else if inp == "/." {
            inp = "/";
        } else if inp.starts_with("/../") {
            inp = &inp[3..];
            pop(&mut out);
        } else if inp == "/.." {
            pop(&mut out);
            inp = "/";
        } else if inp == "." || inp == ".." {
            inp = "";
        } else {
            let start = usize::from(inp.starts_with('/'));
            let end = inp[start..].find('/').map_or(inp.len(), |i| i + start);
            out.push_str(&inp[..end]);
            inp = &inp[end..];
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(cap: &str, t: &str) -> String {
        canonicalize_target(cap, t).unwrap()
    }

    #[test]
    fn canonical_path_check_agrees_for_short_and_long_paths() {
        // The bit-mask check (< 64 bytes) and the segment scan (longer) against the rule.
        let segs = ["", ".", "..", "a", ".a", "..a", "...", "a.", "bc"];
        let mut paths = vec![String::from("/")];
        for a in segs {
            for b in segs {
                for c in segs {
                    paths.push(format!("/{a}/{b}/{c}"));
                    paths.push(format!("/{a}/{b}{c}"));
                }
            }
        }
        let long = "x".repeat(70);
        for p in paths.clone() {
            paths.push(format!("/{long}{p}"));
            paths.push(format!("{p}/{long}"));
        }
        for p in &paths {
            let rule = p == "/"
                || p[1..]
                    .split('/')
                    .all(|s| !s.is_empty() && s != "." && s != "..");
            assert_eq!(is_canonical_path(p.as_bytes()), rule, "{p}");
            if p.len() >= 2 && p.len() < 64 {
                assert_eq!(is_short_canonical_path(p.as_bytes()), rule, "{p}");
                let ctl = format!("{p}\u{7f}");
                assert!(
                    ctl.len() >= 64 || !is_short_canonical_path(ctl.as_bytes()),
                    "{p}"
                );
            }
        }
    }

    #[test]
    fn canonical_paths_are_recognized_in_one_pass() {
        for p in [
            "/", "/a", "/a/b", "/.a", "/..a", "/a/...", "/a.", "/a/b.c/d",
        ] {
            assert!(is_canonical_path(p.as_bytes()), "{p}");
            assert!(matches!(canonical_path(p), Ok(Cow::Borrowed(_))), "{p}");
        }
        for p in [
            "//", "/a/", "/a//b", "/./a", "/a/.", "/a/..", "/../a", "/a/./b", "/a/../b",
        ] {
            assert!(!is_canonical_path(p.as_bytes()), "{p}");
            assert!(matches!(canonical_path(p), Ok(Cow::Owned(_))), "{p}");
        }
    }

    #[test]
    fn paths() {
        assert_eq!(c("fs.read", "/a/./b/../c"), "/a/c");
        assert_eq!(c("fs.read", "//a///b/"), "/a/b");
        assert_eq!(c("fs.read", "/../../x"), "/x");
        assert_eq!(c("fs.write", "/"), "/");
        assert_eq!(c("fs.write", "/.."), "/");
        assert_eq!(c("fs.read", "/safe/../etc/passwd"), "/etc/passwd");
        assert_eq!(c("fs.read", "/a/%2e%2e/b"), "/a/%2e%2e/b");
        assert_eq!(c("fs.read", "/A/B"), "/A/B");
        for bad in ["a/b", "", "./a", "/a\u{0}b", "/a\tb", "~/x"] {
            assert!(canonicalize_target("fs.read", bad).is_err(), "{bad}");
        }
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
        assert!(canonicalize_target("net.fetch", "https://h/a?b\u{7f}").is_err());
    }

    #[test]
    fn others_are_verbatim() {
        assert_eq!(c("tool.call", "Web.Search//x/../y"), "Web.Search//x/../y");
        assert_eq!(c("model.use", "gpt-4o"), "gpt-4o");
        assert!(canonicalize_target("cost.budget", "USD:1").is_err());
        assert!(canonicalize_target("tool.call", "").is_err());
        assert!(canonicalize_target("tool.call", "a\u{7f}").is_err());
        assert!(canonicalize_target("bogus", "x").is_err());
    }
}
