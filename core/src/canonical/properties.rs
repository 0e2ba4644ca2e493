//! Canonicalization is a fixed point and its fast paths agree with the full path, on random
//! strings built from the pieces that matter to URL and path parsers.

use super::path::{canonical_path, is_canonical_path, is_short_canonical_path};
use super::url::{canonical_url, is_canonical_url};
use super::{canonicalize_target, has_control};
use crate::capability::RESERVED_CAPABILITIES;
use crate::pattern::match_pattern;
use proptest::prelude::*;
use std::borrow::Cow;

/// Pieces of targets: schemes, authorities, ports, escapes (of dots, slashes, backslashes,
/// percent signs), dot segments, separators, parameters, query and fragment marks, controls
/// and non-ASCII.
const PIECES: &[&str] = &[
    "https://",
    "HTTP://",
    "s3://",
    "j://",
    "h",
    "H",
    "a",
    "b",
    "example.com",
    ".",
    "..",
    "/",
    "//",
    "\\",
    ";",
    ":",
    ":443",
    ":80",
    ":0",
    ":0443",
    ":65536",
    "@",
    "?",
    "#",
    "%",
    "%2e",
    "%2E",
    "%2f",
    "%2F",
    "%5c",
    "%5C",
    "%25",
    "%252e",
    "%41",
    "%7e",
    "%zz",
    "[::1]",
    "[",
    "]",
    "*",
    "~",
    "-",
    "_",
    "\u{e9}",
    "\u{7f}",
    "\u{1}",
    " ",
    "x..",
    ".well-known",
];

fn target() -> impl Strategy<Value = String> {
    proptest::collection::vec(proptest::sample::select(PIECES), 1..14).prop_map(|v| v.concat())
}

/// Targets that start like URLs, so most reach the URL rules.
fn url_target() -> impl Strategy<Value = String> {
    (
        proptest::sample::select(&["https://", "http://", "HTTPS://", "ws://", "j://"][..]),
        proptest::collection::vec(
            proptest::sample::select(
                &[
                    "h",
                    "a.",
                    ".",
                    "example.com",
                    "H.",
                    ":443",
                    ":8080",
                    "[::1]",
                    "@",
                ][..],
            ),
            0..4,
        ),
        proptest::collection::vec(proptest::sample::select(PIECES), 0..12),
    )
        .prop_map(|(s, a, p)| format!("{s}{}{}", a.concat(), p.concat()))
}

/// URLs that mostly look canonical already (lower case, a plain host, a path of plain
/// pieces), so the one-pass check says "canonical" often and is tested where it matters.
fn near_canonical_url() -> impl Strategy<Value = String> {
    (
        proptest::sample::select(&["https://", "http://", "ws://", "s3://"][..]),
        proptest::sample::select(&["h", "a.b", "h.", ".h", "a..b", "h:8080", "h:443", "h:0"][..]),
        proptest::collection::vec(
            proptest::sample::select(
                &[
                    "/", "a", "b", ".", "..", "\\", ";", ".;", "..;", "x..", "?", "#", "%2F", "=",
                    "~", "\u{e9}", "\u{7f}",
                ][..],
            ),
            0..10,
        ),
    )
        .prop_map(|(s, h, p)| format!("{s}{h}/{}", p.concat()))
}

fn capabilities() -> impl Strategy<Value = &'static str> {
    proptest::sample::select(
        RESERVED_CAPABILITIES
            .iter()
            .copied()
            .chain(["x-vendor.acme.cap"])
            .collect::<Vec<_>>(),
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    /// A canonical target canonicalizes to itself, for every capability.
    #[test]
    fn canonical_targets_are_fixed_points(cap in capabilities(), t in target()) {
        if let Ok(c) = canonicalize_target(cap, &t) {
            let again = canonicalize_target(cap, &c).map_err(|e| e.code());
            prop_assert_eq!(again, Ok(c), "{} {:?}", cap, t);
        }
    }

    #[test]
    fn canonical_urls_are_fixed_points(t in prop_oneof![url_target(), near_canonical_url()]) {
        if let Ok(c) = canonicalize_target("net.fetch", &t) {
            let again = canonicalize_target("net.fetch", &c).map_err(|e| e.code());
            prop_assert_eq!(again, Ok(c), "{:?}", t);
        }
    }

    /// Matching a raw target is matching its canonical form (and a target that does not
    /// canonicalize is refused by matching too).
    #[test]
    fn matching_raw_is_matching_canonical(
        cap in capabilities(),
        t in prop_oneof![target(), url_target()],
        p in prop_oneof![target(), url_target()],
    ) {
        let raw = match_pattern(cap, &p, &t);
        match canonicalize_target(cap, &t) {
            Ok(c) => {
                let canonical = match_pattern(cap, &p, &c);
                prop_assert_eq!(raw.map_err(|e| e.code()), canonical.map_err(|e| e.code()), "{} {:?} {:?}", cap, p, t);
            }
            Err(_) => prop_assert!(raw.is_err(), "{} {:?} {:?}", cap, p, t),
        }
    }

    /// The one-pass URL check never calls a target canonical that the full path would change
    /// or refuse.
    #[test]
    fn url_fast_path_agrees_with_the_full_path(
        t in prop_oneof![target(), url_target(), near_canonical_url()],
    ) {
        if is_canonical_url(&t) {
            let full = canonical_url(&t).map_err(|e| e.code());
            prop_assert_eq!(full, Ok(t.clone()), "{:?}", t);
            prop_assert!(!has_control(&t));
        }
    }

    /// The path checks answer exactly "already canonical" (the short one also "no control").
    #[test]
    fn path_fast_paths_agree_with_the_full_path(t in target()) {
        let p = format!("/{t}");
        let full = canonical_path(&p).map(|c| matches!(c, Cow::Borrowed(_)));
        prop_assert_eq!(Ok(is_canonical_path(p.as_bytes())), full.map_err(|e| e.code()), "{:?}", p);
        if is_short_canonical_path(p.as_bytes()) {
            prop_assert!(is_canonical_path(p.as_bytes()) && !has_control(&p), "{:?}", p);
        } else if p.len() < 64 && !has_control(&p) {
            prop_assert!(!is_canonical_path(p.as_bytes()), "{:?}", p);
        }
    }
}
