//! Narrowing at submit (SEMANTICS 10): the runtime may reduce a requested lease to fit a
//! ceiling, never widen it. The result is always a subset of both inputs.

use crate::budget::format_amount;
use crate::error::Result;
use crate::expiry::LeaseConstraints;
use crate::lease::{Lease, MAX_CAPABILITY_BYTES, MAX_PATTERNS_PER_CAPABILITY};
use crate::pattern::Pattern;
use crate::subset::{Inclusion, Parents, Work, included};
use serde::Serialize;
use std::collections::{BTreeMap, HashSet};

/// One change narrowing made.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Reduction {
    /// The capability (or `cost.budget`).
    pub capability: String,
    /// The requested pattern (or budget currency) concerned; `None` for a whole capability.
    pub pattern: Option<String>,
    /// `capability_dropped`, `pattern_dropped`, `pattern_replaced` or `budget_lowered`.
    pub action: String,
    /// What replaced the pattern (ceiling patterns), or the new budget entry.
    pub replacement: Vec<String>,
}

/// The effective lease and the reductions that produced it.
#[derive(Clone, Debug)]
pub struct Narrowed {
    /// The effective lease.
    pub lease: Lease,
    /// What was taken away, in capability order.
    pub reductions: Vec<Reduction>,
}

/// Narrows `requested` to fit `ceiling`: a capability the ceiling lacks is dropped; a requested
/// pattern contained in the ceiling stays; otherwise the ceiling patterns contained in it
/// replace it; partial overlaps are dropped; a capability left with no pattern stays as `[]`.
/// Budgets keep every currency either side budgets, at the smaller amount where both do.
pub fn narrow_lease(requested: &Lease, ceiling: &Lease) -> Result<Narrowed> {
    narrow_within(requested, ceiling, &mut Work::new())
}

/// [`narrow_lease`] within `work` (SEMANTICS 9: one bound for the whole call; past it,
/// inclusion is undecided, so a pattern is neither kept nor replaced but dropped).
pub(crate) fn narrow_within(
    requested: &Lease,
    ceiling: &Lease,
    work: &mut Work,
) -> Result<Narrowed> {
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut reductions = Vec::new();
    let reduce =
        |cap: &str, pattern: Option<&str>, action: &str, replacement: Vec<String>| Reduction {
            capability: cap.to_string(),
            pattern: pattern.map(str::to_string),
            action: action.to_string(),
            replacement,
        };
    for (cap, entry) in requested.entries() {
        if cap == "cost.budget" {
            continue;
        }
        let Some(ce) = ceiling.entry(cap) else {
            reductions.push(reduce(cap, None, "capability_dropped", Vec::new()));
            continue;
        };
        let ceiling_patterns: Vec<&Pattern> = ce.set.patterns().iter().collect();
        let ceiling_union = Parents::new(ceiling_patterns.clone());
        let mut kept = Kept::default();
        for p in entry.set.patterns() {
            // Past the work bound nothing more is decided: the rest is dropped.
            if !work.exhausted() && included(p, &ceiling_union, work) == Inclusion::Included {
                kept.push(p.as_str());
                continue;
            }
            let just_p = Parents::new(vec![p]);
            let mut inner: Vec<String> = Vec::new();
            for q in &ceiling_patterns {
                if work.exhausted() {
                    break;
                }
                if included(q, &just_p, work) == Inclusion::Included && kept.push(q.as_str()) {
                    inner.push(q.as_str().to_string());
                }
            }
            if inner.is_empty() {
                reductions.push(reduce(cap, Some(p.as_str()), "pattern_dropped", Vec::new()));
            } else {
                reductions.push(reduce(cap, Some(p.as_str()), "pattern_replaced", inner));
            }
        }
        out.insert(cap.to_string(), kept.patterns);
    }
    if requested.has("cost.budget") || ceiling.has("cost.budget") {
        let mut budget = requested.budget().clone();
        for (cur, amount) in ceiling.budget() {
            match budget.get_mut(cur) {
                Some(r) if *amount < *r => {
                    reductions.push(reduce(
                        "cost.budget",
                        Some(cur),
                        "budget_lowered",
                        vec![format!("{cur}:{}", format_amount(amount))],
                    ));
                    *r = *amount;
                }
                Some(_) => {}
                None => {
                    budget.insert(cur.clone(), *amount);
                }
            }
        }
        out.insert(
            "cost.budget".to_string(),
            budget
                .iter()
                .map(|(c, a)| format!("{c}:{}", format_amount(a)))
                .collect(),
        );
    }
    Ok(Narrowed {
        lease: Lease::from_map(out)?,
        reductions,
    })
}

/// Narrows constraints: the earlier expiry wins.
pub fn narrow_constraints(
    requested: &LeaseConstraints,
    ceiling: &LeaseConstraints,
) -> LeaseConstraints {
    let expires_at = match (requested.expires_at, ceiling.expires_at) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    };
    LeaseConstraints { expires_at }
}

/// The patterns an effective capability keeps, without repeats and within the lease bounds
/// (SEMANTICS 2): a replacement that would exceed them is left out, which only narrows more.
#[derive(Default)]
struct Kept {
    patterns: Vec<String>,
    seen: HashSet<String>,
    bytes: usize,
}

impl Kept {
    /// Adds `p` unless it is there or would exceed the bounds; whether it is (now) kept.
    fn push(&mut self, p: &str) -> bool {
        if self.seen.contains(p) {
            return true;
        }
        if self.patterns.len() >= MAX_PATTERNS_PER_CAPABILITY
            || self.bytes + p.len() > MAX_CAPABILITY_BYTES
        {
            return false;
        }
        self.bytes += p.len();
        self.seen.insert(p.to_string());
        self.patterns.push(p.to_string());
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lease(s: &str) -> Lease {
        Lease::from_json(s).unwrap()
    }

    #[test]
    fn narrows_like_the_ts_guide() {
        let req = lease(r#"{"net.fetch": ["https://**"], "fs.write": ["/tmp/**"]}"#);
        let ceil = lease(r#"{"net.fetch": ["https://api.example.com/**"]}"#);
        let n = narrow_lease(&req, &ceil).unwrap();
        assert_eq!(
            n.lease,
            lease(r#"{"net.fetch": ["https://api.example.com/**"]}"#)
        );
        assert_eq!(n.reductions.len(), 2);
    }

    #[test]
    fn keeps_contained_drops_partial_and_merges_budgets() {
        let req = lease(
            r#"{"fs.read": ["/a/b/**", "/x/*", "/q/**"], "cost.budget": ["USD:5", "EUR:1"]}"#,
        );
        let ceil =
            lease(r#"{"fs.read": ["/a/**", "/x/y*"], "cost.budget": ["USD:3.00", "GBP:2"]}"#);
        let n = narrow_lease(&req, &ceil).unwrap();
        let m = n.lease.to_map();
        assert_eq!(m["fs.read"], ["/a/b/**", "/x/y*"]);
        let mut b = m["cost.budget"].clone();
        b.sort();
        assert_eq!(b, ["EUR:1", "GBP:2", "USD:3"]);
        use crate::subset::{SubsetOptions, is_lease_subset};
        assert!(is_lease_subset(&n.lease, &req, &SubsetOptions::default()));
        assert!(is_lease_subset(&n.lease, &ceil, &SubsetOptions::default()));
    }

    #[test]
    fn empty_capability_stays() {
        let n = narrow_lease(
            &lease(r#"{"tool.call": ["shell.*"]}"#),
            &lease(r#"{"tool.call": ["web.*"]}"#),
        )
        .unwrap();
        assert_eq!(n.lease.to_map()["tool.call"], Vec::<String>::new());
    }

    #[test]
    fn earlier_expiry_wins() {
        let a = LeaseConstraints::from_json(r#"{"expires_at":"2030-01-01T00:00:00Z"}"#).unwrap();
        let b = LeaseConstraints::from_json(r#"{"expires_at":"2029-01-01T00:00:00Z"}"#).unwrap();
        assert_eq!(narrow_constraints(&a, &b), b);
        assert_eq!(narrow_constraints(&a, &LeaseConstraints::none()), a);
    }
}
