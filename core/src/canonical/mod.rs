//! Target canonicalization (SEMANTICS 5), hand-written: no `url` crate on this path, because
//! WHATWG URL parsing normalizes differently (backslashes, IDNA, re-encoding).
//!
//! - `fs.read`/`fs.write`: absolute POSIX paths; `//` collapses, `.` drops, `..` pops (and stays
//!   at `/`), a trailing `/` goes. No percent-decoding, case folding or symlink resolution: the
//!   runtime must resolve symlinks itself and perform the operation on the canonical path.
//! - `net.fetch`: `scheme://authority[path][?query][#fragment]`; scheme and host lower-cased,
//!   userinfo refused, default ports removed, unreserved percent-escapes decoded, other escapes
//!   upper-cased (`%2F` stays encoded), dot segments removed (RFC 3986 5.2.4), `//` collapsed,
//!   fragment dropped, query kept verbatim. A host with an empty label and an ambiguous path
//!   (one some parser or server would read as climbing out of it) are refused, so a canonical
//!   target is a fixed point of canonicalization.
//! - everything else: verbatim.

mod bytes;
mod path;
#[cfg(test)]
mod properties;
mod url;

pub(crate) use bytes::short_word;
pub(crate) use url::{canonical_authority, split_scheme};

use crate::capability::CapabilityKind;
use crate::error::{Error, Result};
use path::{canonical_path, is_short_canonical_path};
use std::borrow::Cow;
use url::{canonical_url, is_canonical_url};

/// At most this many bytes (UTF-8) in one target (SEMANTICS 5).
pub const MAX_TARGET_BYTES: usize = 16_384;

/// Canonicalizes `target` for `capability`, or fails with `INVALID_REQUEST`.
pub fn canonicalize_target(capability: &str, target: &str) -> Result<String> {
    canonicalize_for(CapabilityKind::of(capability)?, target).map(Cow::into_owned)
}

/// Canonicalizes `target` for a capability kind (borrowing when nothing changes).
pub(crate) fn canonicalize_for(kind: CapabilityKind, target: &str) -> Result<Cow<'_, str>> {
    if target.len() > MAX_TARGET_BYTES {
        return Err(Error::invalid(format!(
            "target of {} bytes exceeds {MAX_TARGET_BYTES}",
            target.len()
        )));
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn c(cap: &str, t: &str) -> String {
        canonicalize_target(cap, t).unwrap()
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
