//! `canonicalize`: output invariants per capability kind; `canonical_fast_path`: the fast
//! paths against the full path; `canonical_invariants`: SEMANTICS 5 bounds, the fixed point
//! and the 5.2 ambiguity rule.

use crate::fields::capability;
use leasekit::{Lease, canonicalize_target, match_pattern};
use std::collections::BTreeMap;

fn input(data: &[u8]) -> Option<(&'static str, &str)> {
    let (cap, rest) = capability(data)?;
    Some((cap, std::str::from_utf8(rest).ok()?))
}

fn control(s: &str) -> bool {
    s.bytes().any(|b| b < 0x20 || b == 0x7f)
}

/// Input: capability selector byte, target. An answer has no control character; an fs answer
/// is absolute without empty, `.` or `..` segments or a trailing `/`; a URL answer has a
/// lower-case scheme, no userinfo and no fragment; other capabilities answer verbatim; a
/// refusal is `INVALID_REQUEST`.
pub fn canonicalize(data: &[u8]) {
    let Some((cap, target)) = input(data) else {
        return;
    };
    let got = canonicalize_target(cap, target);
    super::invalid(&got, "canonicalize_target");
    let Ok(c) = got else { return };
    assert!(!c.is_empty() && !control(&c), "{c:?}");
    assert!(
        !target.is_empty() && !control(target),
        "accepted {target:?}"
    );
    match cap {
        "fs.read" | "fs.write" => {
            assert!(c.starts_with('/'), "{c:?}");
            if c != "/" {
                assert!(
                    c[1..]
                        .split('/')
                        .all(|s| !s.is_empty() && s != "." && s != ".."),
                    "{target:?} -> {c:?}"
                );
            }
            assert!(c.len() <= target.len(), "{target:?} -> {c:?}");
        }
        "net.fetch" => {
            let (scheme, rest) = c.split_once("://").expect("scheme://");
            assert!(
                !scheme.is_empty() && scheme.bytes().all(|b| !b.is_ascii_uppercase()),
                "{c:?}"
            );
            assert!(!c.contains('#'), "fragment kept in {c:?}");
            let end = rest.find(['/', '?']).unwrap_or(rest.len());
            let authority = &rest[..end];
            assert!(!authority.contains('@'), "userinfo kept in {c:?}");
            assert!(!authority.is_empty(), "empty authority in {c:?}");
            assert!(rest[end..].starts_with('/'), "no path in {c:?}");
        }
        "cost.budget" => panic!("cost.budget canonicalized"),
        _ => assert_eq!(c, target),
    }
}

/// Input: capability selector byte, target. A form the fast paths cannot take canonicalizes
/// exactly as the original: fs targets behind an extra `/.` or `//` (never "already
/// canonical"), URLs with the scheme's first letter upper-cased (the fast path wants lower
/// case), so the full canonicalization is compared with the fast one.
pub fn canonical_fast_path(data: &[u8]) {
    let Some((cap, target)) = input(data) else {
        return;
    };
    if target.len() > 16_000 {
        return; // the variants must stay within the same side of the 16 384-byte bound
    }
    let base = canonicalize_target(cap, target).map_err(|e| e.code());
    let mut variants = Vec::new();
    match cap {
        "fs.read" | "fs.write" if target.starts_with('/') => {
            variants.push(format!("/.{target}"));
            variants.push(format!("/{target}"));
        }
        "net.fetch" => {
            if let Some(first) = target.chars().next().filter(char::is_ascii_lowercase) {
                variants.push(format!("{}{}", first.to_ascii_uppercase(), &target[1..]));
            }
        }
        _ => {}
    }
    for v in variants {
        let slow = canonicalize_target(cap, &v).map_err(|e| e.code());
        assert_eq!(slow, base, "{cap}: {target:?} vs {v:?}");
    }
}

/// Input: capability selector byte, target. SEMANTICS 5 (its length bound and 5.2): a target
/// over 16 384 bytes is refused; a canonical target canonicalizes to itself; a URL answer has
/// no `\` in its path and no dot piece (5.2); matching the raw target equals matching its
/// canonical form (the canonical form, used as a literal pattern, matches the raw target).
pub fn canonical_invariants(data: &[u8]) {
    let Some((cap, target)) = input(data) else {
        return;
    };
    let got = canonicalize_target(cap, target);
    if target.len() > 16_384 {
        assert!(
            got.is_err(),
            "a target of {} bytes was accepted",
            target.len()
        );
    }
    let Ok(c) = got else { return };
    let again = canonicalize_target(cap, &c);
    assert_eq!(
        again.as_deref().ok(),
        Some(c.as_str()),
        "not a fixed point: {target:?} -> {c:?}"
    );
    if cap == "net.fetch" {
        let rest = &c[c.find("://").map_or(0, |i| i + 3)..];
        let path_start = rest.find('/').unwrap_or(rest.len());
        let path = &rest[path_start..rest.find('?').unwrap_or(rest.len())];
        assert!(
            !path.contains('\\'),
            "a backslash in the canonical path of {c:?}"
        );
        for piece in pieces(path) {
            let p = piece.replace("%25", "%");
            let p = p.replace("%2E", ".").replace("%2e", ".");
            assert!(
                p != "." && p != ".." && !p.starts_with(".;") && !p.starts_with("..;"),
                "an ambiguous piece {piece:?} in {c:?}"
            );
        }
    }
    if !c.contains('*') {
        let lease = Lease::from_map(BTreeMap::from([(cap.to_string(), vec![c.clone()])]));
        if lease.is_ok() {
            let m = match_pattern(cap, &c, target);
            assert_eq!(
                m.ok(),
                Some(true),
                "the canonical form {c:?} does not match {target:?}"
            );
        }
    }
}

/// The pieces of a path between `/`, `%2F` and `%5C` (any hex case).
fn pieces(path: &str) -> Vec<&str> {
    let b = path.as_bytes();
    let mut out = Vec::new();
    let (mut start, mut i) = (0, 0);
    while i < b.len() {
        let sep = if b[i] == b'/' {
            1
        } else if b[i] == b'%'
            && i + 2 < b.len()
            && matches!(
                (b[i + 1], b[i + 2].to_ascii_uppercase()),
                (b'2', b'F') | (b'5', b'C')
            )
        {
            3
        } else {
            0
        };
        if sep > 0 {
            out.push(&path[start..i]);
            i += sep;
            start = i;
        } else {
            i += 1;
        }
    }
    out.push(&path[start..]);
    out
}
