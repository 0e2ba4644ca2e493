//! `pattern_match`: `match_pattern` against the regex translation of SEMANTICS 4.

use crate::fields::{capability, split};
use crate::glob_regex::{glob_regex, separators};
use leasekit::{Lease, canonicalize_target, match_pattern};
use std::collections::BTreeMap;

/// Input: capability selector byte, pattern, `0xFF`, target. `match_pattern` fails exactly when
/// the pattern is not a valid lease entry or the target does not canonicalize, and otherwise
/// answers as the regex translation of the stored pattern on the canonical target.
pub fn pattern_match(data: &[u8]) {
    let Some((cap, rest)) = capability(data) else {
        return;
    };
    let Some(f) = split(rest, 2) else { return };
    let (pattern, target) = (f[0], f[1]);
    let got = match_pattern(cap, pattern, target);
    super::invalid(&got, "match_pattern");
    if cap == "cost.budget" {
        assert!(got.is_err(), "cost.budget is not a target capability");
        return;
    }
    let lease = Lease::from_map(BTreeMap::from([(
        cap.to_string(),
        vec![pattern.to_string()],
    )]));
    let canonical = canonicalize_target(cap, target);
    let (Ok(lease), Ok(canonical)) = (lease, canonical) else {
        assert!(got.is_err(), "matched with an invalid pattern or target");
        return;
    };
    let stored = &lease.patterns(cap).expect("the capability is in the lease")[0];
    let Some(re) = glob_regex(stored, separators(cap)) else {
        return; // too large for the regex crate's limits
    };
    let want = re.is_match(&canonical);
    assert_eq!(
        got.ok(),
        Some(want),
        "match_pattern({cap:?}, {pattern:?} stored as {stored:?}, canonical {canonical:?})"
    );
}
