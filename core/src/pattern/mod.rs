//! The pattern language (SEMANTICS 2-4): anchored, case-sensitive globs where `*` matches a run
//! of non-separator characters, a whole-segment `**` matches zero or more whole segments, and
//! `**` inside a segment matches anything. Patterns compile once into a [`Pattern`]; matching
//! is linear in the target (a bit-set NFA, fast paths for common shapes).

mod batch;
pub(crate) mod nfa;
pub(crate) mod set;

use crate::canonical::{canonical_authority, canonicalize_for, has_control, split_scheme};
use crate::capability::{CapabilityKind, Separators};
use crate::error::{Error, Result};
pub(crate) use batch::Batch;
pub(crate) use nfa::{Elem, Nfa};

/// At most this many bytes in one pattern.
pub const MAX_PATTERN_BYTES: usize = 4096;

/// A compiled pattern.
#[derive(Clone, Debug)]
pub struct Pattern {
    text: Box<str>,
    seps: Separators,
    shape: Shape,
    /// Literal bytes every match starts with.
    prefix_len: usize,
}

#[derive(Clone, Debug)]
enum Shape {
    /// No wildcard: equality.
    Literal,
    /// `P s **`: `P` or `P s <anything>`.
    PrefixGlobstar { sep: u8 },
    /// `P**` (in-segment): anything starting with `P`.
    PrefixAny,
    /// `P*`: `P` followed by non-separators.
    PrefixStar,
    /// `P*S`, `S` literal (e.g. `/reports/*.csv`): `P`, non-separators, then `S` at the end.
    PrefixStarSuffix { suffix: Box<[u8]> },
    /// Everything else.
    General(Box<Nfa>),
}

/// The bytes of `elems` when every element is a literal byte.
fn literal_bytes(elems: &[Elem]) -> Option<Box<[u8]>> {
    elems
        .iter()
        .map(|e| match e {
            Elem::Byte(b) => Some(*b),
            _ => None,
        })
        .collect()
}

impl Pattern {
    /// Validates and compiles `pattern` for a capability kind (not `cost.budget`).
    pub(crate) fn compile(kind: CapabilityKind, pattern: &str) -> Result<Pattern> {
        let text = stored_form(kind, pattern)?;
        let seps = kind.separators();
        let elems = elements(text.as_bytes(), seps);
        let prefix_len = elems
            .iter()
            .take_while(|e| matches!(e, Elem::Byte(_)))
            .count();
        let rest = &elems[prefix_len..];
        let shape = match rest {
            [] => Shape::Literal,
            [Elem::Group, Elem::Byte(s), Elem::LoopAny] => Shape::PrefixGlobstar { sep: *s },
            [Elem::LoopAny] => Shape::PrefixAny,
            [Elem::LoopSegment] => Shape::PrefixStar,
            [Elem::LoopSegment, tail @ ..] if literal_bytes(tail).is_some() => {
                Shape::PrefixStarSuffix {
                    suffix: literal_bytes(tail).unwrap_or_default(),
                }
            }
            _ => Shape::General(Box::new(Nfa::new(elems, seps))),
        };
        Ok(Pattern {
            text: text.into_boxed_str(),
            seps,
            shape,
            prefix_len,
        })
    }

    /// The stored (canonical) text.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Whether matching runs the automaton (no fast-path shape applies).
    pub(crate) fn is_general(&self) -> bool {
        matches!(self.shape, Shape::General(_))
    }

    /// Whether the pattern has no wildcard.
    pub fn is_literal(&self) -> bool {
        matches!(self.shape, Shape::Literal)
    }

    /// The literal prefix every match starts with.
    pub(crate) fn prefix(&self) -> &[u8] {
        &self.text.as_bytes()[..self.prefix_len]
    }

    /// Whether the (already canonical) target matches.
    #[inline]
    pub fn matches(&self, target: &str) -> bool {
        let t = target.as_bytes();
        let p = self.prefix_len;
        if t.len() < p {
            return false;
        }
        let prefix = &self.text.as_bytes()[..p];
        // Compare up to 8 bytes inline (one word) before paying for a `memcmp` call on the
        // rest. A small pattern set has filtered on these bytes already (`set.rs` heads), but
        // dropping this check measured ~2 ns slower on `authorize_kind_cow_path_10`.
        if p >= 8 && t.first_chunk::<8>() != prefix.first_chunk::<8>() {
            return false;
        }
        if t[..p] != *prefix {
            return false;
        }
        let rest = &t[p..];
        match &self.shape {
            Shape::Literal => rest.is_empty(),
            Shape::PrefixGlobstar { sep } => rest.is_empty() || rest[0] == *sep,
            Shape::PrefixAny => true,
            Shape::PrefixStar => !rest.iter().any(|&b| self.seps.contains(b)),
            Shape::PrefixStarSuffix { suffix } => {
                rest.len() >= suffix.len()
                    && rest.ends_with(suffix)
                    && !rest[..rest.len() - suffix.len()]
                        .iter()
                        .any(|&b| self.seps.contains(b))
            }
            Shape::General(nfa) => nfa.run_from(p, rest),
        }
    }

    /// [`Pattern::matches`] that counts its work: `Some((matched, units))` with the units of
    /// about one word operation it took (at most `limit`), `None` when it would take more
    /// (the run stops there).
    pub(crate) fn matches_within(&self, target: &str, limit: u64) -> Option<(bool, u64)> {
        // Byte scans and comparisons: a unit per 8 bytes.
        let scan = target.len() as u64 / 8 + 1;
        if scan > limit {
            return None;
        }
        let p = self.prefix_len;
        let t = target.as_bytes();
        match &self.shape {
            Shape::General(nfa) if t.len() >= p && t[..p] == self.text.as_bytes()[..p] => nfa
                .run_within(p, &t[p..], limit - scan)
                .map(|(m, used)| (m, used + scan)),
            _ => Some((self.matches(target), scan)),
        }
    }

    /// The automaton of this pattern (built on demand for the fast-path shapes).
    pub(crate) fn nfa(&self) -> std::borrow::Cow<'_, Nfa> {
        match &self.shape {
            Shape::General(n) => std::borrow::Cow::Borrowed(n),
            _ => std::borrow::Cow::Owned(Nfa::new(
                elements(self.text.as_bytes(), self.seps),
                self.seps,
            )),
        }
    }
}

/// Validates a pattern for `capability` and returns its stored (canonical) form.
pub fn validate_pattern(capability: &str, pattern: &str) -> Result<String> {
    let kind = CapabilityKind::of(capability)?;
    if kind == CapabilityKind::CostBudget {
        return Err(Error::invalid("cost.budget holds amounts, not patterns"));
    }
    stored_form(kind, pattern)
}

/// Matches `target` (canonicalized first) against `pattern` (validated first) for `capability`.
/// There is no raw matcher that skips canonicalization.
pub fn match_pattern(capability: &str, pattern: &str, target: &str) -> Result<bool> {
    let kind = CapabilityKind::of(capability)?;
    if kind == CapabilityKind::CostBudget {
        return Err(Error::invalid("cost.budget is not a target capability"));
    }
    let p = Pattern::compile(kind, pattern)?;
    let t = canonicalize_for(kind, target)?;
    Ok(p.matches(&t))
}

/// Syntax checks common to all patterns plus the per-capability rules; returns the stored text.
pub(crate) fn stored_form(kind: CapabilityKind, pattern: &str) -> Result<String> {
    let bad = |why: &str| {
        Error::invalid(format!("invalid pattern {pattern:?}: {why}"))
            .with_detail("pattern", pattern)
    };
    if pattern.is_empty() {
        return Err(bad("empty"));
    }
    if pattern.len() > MAX_PATTERN_BYTES {
        return Err(Error::invalid(format!(
            "pattern of {} bytes exceeds {MAX_PATTERN_BYTES}",
            pattern.len()
        )));
    }
    if has_control(pattern) {
        return Err(bad("control character"));
    }
    if pattern.contains("***") {
        return Err(bad("three or more consecutive '*'"));
    }
    match kind {
        CapabilityKind::FsRead | CapabilityKind::FsWrite
            if !(pattern.starts_with('/') || pattern.starts_with('*')) =>
        {
            Err(bad("a path pattern must start with '/' or '*'"))
        }
        CapabilityKind::NetFetch => {
            let stored = url_pattern(pattern).map_err(|e| {
                Error::invalid(format!("invalid pattern {pattern:?}: {}", e.message()))
                    .with_detail("pattern", pattern)
            })?;
            // Stored with a `/` appended, a pattern of 4096 bytes would not be valid input.
            if stored.len() > MAX_PATTERN_BYTES {
                return Err(Error::invalid(format!(
                    "pattern stored as {} bytes (a '/' is appended to an empty path) exceeds {MAX_PATTERN_BYTES}",
                    stored.len()
                )));
            }
            Ok(stored)
        }
        _ => Ok(pattern.to_string()),
    }
}

/// SEMANTICS 5.2 for patterns: lower-case the scheme; canonicalize a `*`-free authority; an
/// empty path becomes `/`. Other patterns are kept verbatim.
fn url_pattern(pattern: &str) -> Result<String> {
    let Some((scheme, rest)) = split_scheme(pattern) else {
        return Ok(pattern.to_string());
    };
    let auth_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let authority = &rest[..auth_end];
    if authority.contains('*') {
        return Ok(format!("{scheme}://{rest}"));
    }
    let auth = canonical_authority(&scheme, authority)?;
    let tail = &rest[auth_end..];
    let slash = if tail.starts_with('/') { "" } else { "/" };
    Ok(format!("{scheme}://{auth}{slash}{tail}"))
}

/// Splits a pattern into segments and emits automaton elements (see the module docs of `nfa`).
pub(crate) fn elements(p: &[u8], seps: Separators) -> Vec<Elem> {
    // Segments with the separator before each. A run of whole-segment `**` collapses into one
    // (`**/**` is `**`: zero or more whole segments), keeping the separator before the first.
    let mut segs: Vec<(Option<u8>, &[u8])> = Vec::new();
    let mut start = 0;
    let mut before = None;
    for (i, &b) in p.iter().enumerate() {
        if seps.contains(b) {
            push_segment(&mut segs, before, &p[start..i]);
            before = Some(b);
            start = i + 1;
        }
    }
    push_segment(&mut segs, before, &p[start..]);
    // SEMANTICS 4, read recursively: `P s ** s Q` is `P s Q` or `P s <anything> s Q`, so a
    // whole-segment `**` followed by another segment is the optional group `(<anything> s)?`
    // after its preceding separator; a trailing one is `(s <anything>)?`, or `<anything>` when
    // nothing precedes it.
    let mut out = Vec::with_capacity(p.len() + 4);
    let mut sep_consumed = false; // the separator before the current segment is already emitted
    for (i, &(sep_before, seg)) in segs.iter().enumerate() {
        let pending_sep = sep_before.filter(|_| !sep_consumed);
        sep_consumed = false;
        if seg == b"**" {
            if let Some(&(Some(next_sep), _)) = segs.get(i + 1) {
                out.extend(pending_sep.map(Elem::Byte));
                out.extend([Elem::Group, Elem::LoopAny, Elem::Byte(next_sep)]);
                sep_consumed = true;
            } else if let Some(s) = pending_sep {
                out.extend([Elem::Group, Elem::Byte(s), Elem::LoopAny]);
            } else {
                out.push(Elem::LoopAny);
            }
            continue;
        }
        out.extend(pending_sep.map(Elem::Byte));
        let mut j = 0;
        while j < seg.len() {
            if seg[j] == b'*' {
                if seg.get(j + 1) == Some(&b'*') {
                    out.push(Elem::LoopAny);
                    j += 2;
                } else {
                    out.push(Elem::LoopSegment);
                    j += 1;
                }
            } else {
                out.push(Elem::Byte(seg[j]));
                j += 1;
            }
        }
    }
    out
}

fn push_segment<'a>(segs: &mut Vec<(Option<u8>, &'a [u8])>, before: Option<u8>, seg: &'a [u8]) {
    if seg == b"**" && segs.last().is_some_and(|l| l.1 == b"**") {
        return;
    }
    segs.push((before, seg));
}

#[cfg(test)]
mod tests;
