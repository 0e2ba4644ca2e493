//! `fs.read`/`fs.write` targets (SEMANTICS 5.1): absolute POSIX paths, `//` collapsed, `.`
//! dropped, `..` popped (staying at `/`), a trailing `/` removed; and the one-pass checks that
//! recognize an already-canonical path.

use super::bytes;
use crate::error::{Error, Result};
use std::borrow::Cow;

pub(super) fn canonical_path(t: &str) -> Result<Cow<'_, str>> {
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
pub(super) fn is_canonical_path(b: &[u8]) -> bool {
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
pub(super) fn is_short_canonical_path(b: &[u8]) -> bool {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::canonical::canonicalize_target;

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
}
