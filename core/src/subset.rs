//! Subset for delegation (SEMANTICS 9): exact language inclusion of each child pattern in the
//! union of the parent's patterns, decided on the product of the automata over a reduced
//! alphabet, bounded, failing closed; budgets against the parent's remaining amounts; expiry.

use crate::budget::{Decimal, format_amount};
use crate::error::{Error, ErrorCode, Result};
use crate::expiry::LeaseConstraints;
use crate::lease::Lease;
use crate::pattern::{Nfa, Pattern};
use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};

/// Give up (and answer "not a subset") after exploring this many product states.
pub const MAX_EXPLORED_STATES: usize = 100_000;

/// Inputs of a subset check besides the two leases.
#[derive(Clone, Copy, Debug, Default)]
pub struct SubsetOptions<'a> {
    /// The parent's remaining amount per currency (its summed budget where absent).
    pub parent_remaining: Option<&'a BTreeMap<String, Decimal>>,
    /// The child's constraints (an omitted expiry inherits the parent's).
    pub child_constraints: Option<&'a LeaseConstraints>,
    /// The parent's constraints.
    pub parent_constraints: Option<&'a LeaseConstraints>,
}

/// The answer for one child pattern.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Inclusion {
    /// Every string of the child is matched by some parent pattern.
    Included,
    /// A string the child matches and no parent does.
    Witness(String),
    /// Not decided within [`MAX_EXPLORED_STATES`].
    Undecided,
}

/// `Ok(())` when `child <= parent`; otherwise `LEASE_SUBSET_VIOLATION` whose details name the
/// capability, the child pattern and a witness string the parent does not cover.
pub fn check_lease_subset(child: &Lease, parent: &Lease, opts: &SubsetOptions) -> Result<()> {
    check_patterns(child, parent)?;
    check_budget(child, parent, opts.parent_remaining)?;
    check_expiry(opts.child_constraints, opts.parent_constraints)
}

/// Whether `child <= parent`.
pub fn is_lease_subset(child: &Lease, parent: &Lease, opts: &SubsetOptions) -> bool {
    check_lease_subset(child, parent, opts).is_ok()
}

/// The capability rule: every child capability (but `cost.budget`) is in the parent and every
/// child pattern is included in the union of the parent's patterns.
pub(crate) fn check_patterns(child: &Lease, parent: &Lease) -> Result<()> {
    for (cap, entry) in child.entries() {
        if cap == "cost.budget" {
            continue;
        }
        let Some(pe) = parent.entry(cap) else {
            let first = entry.set.patterns().first();
            let witness = first.and_then(|p| match included(p, &[]) {
                Inclusion::Witness(w) => Some(w),
                _ => None,
            });
            return Err(violation(
                cap,
                first.map(Pattern::as_str),
                witness.as_deref(),
                format!("the parent lease does not grant {cap}"),
            ));
        };
        let parents: Vec<&Pattern> = pe.set.patterns().iter().collect();
        for cp in entry.set.patterns() {
            match included(cp, &parents) {
                Inclusion::Included => {}
                Inclusion::Witness(w) => {
                    return Err(violation(
                        cap,
                        Some(cp.as_str()),
                        Some(&w),
                        format!(
                            "{cap} pattern {:?} is wider than the parent: it matches {w:?}",
                            cp.as_str()
                        ),
                    ));
                }
                Inclusion::Undecided => {
                    return Err(violation(
                        cap,
                        Some(cp.as_str()),
                        None,
                        format!(
                            "{cap} pattern {:?}: inclusion not decided within {MAX_EXPLORED_STATES} states (fail closed)",
                            cp.as_str()
                        ),
                    ));
                }
            }
        }
    }
    Ok(())
}

/// The budget rule against explicit remaining amounts (or the parent's summed budget).
pub(crate) fn check_budget(
    child: &Lease,
    parent: &Lease,
    remaining: Option<&BTreeMap<String, Decimal>>,
) -> Result<()> {
    for (cur, amount) in child.budget() {
        let Some(parent_amount) = parent.budget().get(cur) else {
            continue; // the parent does not budget it: unlimited there
        };
        let limit = remaining.and_then(|r| r.get(cur)).unwrap_or(parent_amount);
        if amount > limit {
            return Err(budget_violation(cur, amount, limit));
        }
    }
    Ok(())
}

pub(crate) fn budget_violation(cur: &str, amount: &Decimal, limit: &Decimal) -> Error {
    Error::new(
        ErrorCode::LeaseSubsetViolation,
        format!(
            "cost.budget {cur}:{} exceeds the parent's remaining {cur}:{}",
            format_amount(amount),
            format_amount(limit)
        ),
    )
    .with_detail("capability", "cost.budget")
    .with_detail("currency", cur)
    .with_detail("child_amount", format_amount(amount))
    .with_detail("parent_remaining", format_amount(limit))
}

/// The expiry rule: the child's expiry (inherited when omitted) is not after the parent's.
pub(crate) fn check_expiry(
    child: Option<&LeaseConstraints>,
    parent: Option<&LeaseConstraints>,
) -> Result<()> {
    let c = child.and_then(|c| c.expires_at);
    let p = parent.and_then(|p| p.expires_at);
    if let (Some(c), Some(p)) = (c, p)
        && c > p
    {
        return Err(Error::new(
            ErrorCode::LeaseSubsetViolation,
            format!("the child expires at {c}, after the parent ({p})"),
        )
        .with_detail("capability", "expires_at")
        .with_detail("child_expires_at", c.to_rfc3339())
        .with_detail("parent_expires_at", p.to_rfc3339()));
    }
    Ok(())
}

fn violation(cap: &str, pattern: Option<&str>, witness: Option<&str>, msg: String) -> Error {
    Error::new(ErrorCode::LeaseSubsetViolation, msg)
        .with_detail("capability", cap)
        .with_detail("pattern", pattern)
        .with_detail("witness", witness)
}

/// Decides whether the language of `child` is contained in the union of `parents`.
pub(crate) fn included(child: &Pattern, parents: &[&Pattern]) -> Inclusion {
    if parents.iter().any(|p| p.as_str() == child.as_str()) {
        return Inclusion::Included;
    }
    if child.is_literal() {
        return if parents.iter().any(|p| p.matches(child.as_str())) {
            Inclusion::Included
        } else {
            Inclusion::Witness(child.as_str().to_string())
        };
    }
    let cp = child.prefix();
    let candidates: Vec<&Pattern> = parents
        .iter()
        .copied()
        .filter(|p| cp.starts_with(p.prefix()) || p.prefix().starts_with(cp))
        .collect();
    Product::new(child, &candidates).explore(cp)
}

/// The product automaton of one child and the union of its candidate parents.
struct Product {
    child: Nfa,
    parents: Vec<Nfa>,
    universal: Vec<Vec<u64>>,
    alphabet: Vec<char>,
    /// Offsets of each automaton's words in a flattened state (child first).
    offsets: Vec<usize>,
    width: usize,
}

impl Product {
    fn new(child: &Pattern, parents: &[&Pattern]) -> Product {
        let child_nfa = child.nfa().into_owned();
        let parent_nfas: Vec<Nfa> = parents.iter().map(|p| p.nfa().into_owned()).collect();
        let universal = parent_nfas.iter().map(Nfa::universal_mask).collect();
        let mut chars: BTreeSet<char> = std::iter::once(child.as_str())
            .chain(parents.iter().map(|p| p.as_str()))
            .flat_map(str::chars)
            .filter(|&c| c != '*')
            .collect();
        chars.insert('/');
        chars.insert('.');
        let other = "xzqjkvw0123456789_-~XZQ"
            .chars()
            .chain((0xa1u32..0x3000).filter_map(char::from_u32))
            .find(|c| !chars.contains(c))
            .unwrap_or('\u{10FFFD}');
        chars.insert(other);
        let mut offsets = vec![0];
        let mut width = child_nfa.words();
        for p in &parent_nfas {
            offsets.push(width);
            width += p.words();
        }
        Product {
            child: child_nfa,
            parents: parent_nfas,
            universal,
            alphabet: chars.into_iter().collect(),
            offsets,
            width,
        }
    }

    fn nfa(&self, i: usize) -> &Nfa {
        if i == 0 {
            &self.child
        } else {
            &self.parents[i - 1]
        }
    }

    fn slot<'s>(&self, state: &'s [u64], i: usize) -> &'s [u64] {
        &state[self.offsets[i]..self.offsets[i] + self.nfa(i).words()]
    }

    /// The child accepts and no parent does.
    fn is_counterexample(&self, s: &[u64]) -> bool {
        self.child.accepts(self.slot(s, 0))
            && (0..self.parents.len()).all(|k| !self.parents[k].accepts(self.slot(s, k + 1)))
    }

    /// Some parent is in a state from which it accepts every continuation.
    fn covered(&self, s: &[u64]) -> bool {
        (0..self.parents.len()).any(|k| {
            self.slot(s, k + 1)
                .iter()
                .zip(&self.universal[k])
                .any(|(a, b)| a & b != 0)
        })
    }

    /// Steps every automaton on the UTF-8 bytes of `c`; `None` when the child dies.
    fn step(&self, s: &[u64], c: char) -> Option<Vec<u64>> {
        let mut buf = [0u8; 4];
        let bytes = c.encode_utf8(&mut buf).as_bytes();
        let mut out = vec![0u64; self.width];
        for i in 0..=self.parents.len() {
            let nfa = self.nfa(i);
            let mut cur = self.slot(s, i).to_vec();
            let mut next = vec![0u64; nfa.words()];
            let mut alive = cur.iter().any(|w| *w != 0);
            for &b in bytes {
                if !alive {
                    break;
                }
                alive = nfa.step(&cur, b, &mut next);
                std::mem::swap(&mut cur, &mut next);
            }
            if !alive {
                if i == 0 {
                    return None;
                }
                continue;
            }
            out[self.offsets[i]..self.offsets[i] + nfa.words()].copy_from_slice(&cur);
        }
        Some(out)
    }

    /// Explores from the state after the child's literal prefix (every child string starts
    /// with it, so there is nothing to branch on before it).
    fn explore(&self, prefix: &[u8]) -> Inclusion {
        let mut start = vec![0u64; self.width];
        let mut tmp = vec![0u64; self.child.words()];
        self.child.start_at(prefix.len(), &mut tmp);
        start[..self.child.words()].copy_from_slice(&tmp);
        for k in 0..self.parents.len() {
            let nfa = &self.parents[k];
            let mut cur = vec![0u64; nfa.words()];
            let mut next = vec![0u64; nfa.words()];
            nfa.start_at(0, &mut cur);
            let mut alive = true;
            for &b in prefix {
                alive = nfa.step(&cur, b, &mut next);
                std::mem::swap(&mut cur, &mut next);
                if !alive {
                    break;
                }
            }
            if alive {
                start[self.offsets[k + 1]..self.offsets[k + 1] + nfa.words()].copy_from_slice(&cur);
            }
        }
        let prefix_text = String::from_utf8_lossy(prefix).into_owned();
        if self.covered(&start) {
            return Inclusion::Included;
        }
        if self.is_counterexample(&start) {
            return Inclusion::Witness(prefix_text);
        }
        let mut seen: HashMap<Vec<u64>, u32> = HashMap::new();
        let mut trail: Vec<(u32, char)> = vec![(u32::MAX, '\0')];
        seen.insert(start.clone(), 0);
        let mut states = vec![start];
        let mut queue = VecDeque::from([0u32]);
        while let Some(idx) = queue.pop_front() {
            for &c in &self.alphabet {
                let Some(next) = self.step(&states[idx as usize], c) else {
                    continue;
                };
                if self.covered(&next) || seen.contains_key(&next) {
                    continue;
                }
                let id = states.len() as u32;
                trail.push((idx, c));
                if self.is_counterexample(&next) {
                    return Inclusion::Witness(prefix_text + &witness(&trail, id));
                }
                if states.len() >= MAX_EXPLORED_STATES {
                    return Inclusion::Undecided;
                }
                seen.insert(next.clone(), id);
                states.push(next);
                queue.push_back(id);
            }
        }
        Inclusion::Included
    }
}

fn witness(trail: &[(u32, char)], mut id: u32) -> String {
    let mut chars = Vec::new();
    while id != 0 {
        let (prev, c) = trail[id as usize];
        chars.push(c);
        id = prev;
    }
    chars.into_iter().rev().collect()
}

#[cfg(test)]
mod tests;
