//! Subset for delegation (SEMANTICS 9): exact language inclusion of each child pattern in the
//! union of the parent's patterns, decided on the product of the automata over a reduced
//! alphabet, bounded, failing closed; budgets against the parent's remaining amounts; expiry.

use crate::budget::{Decimal, format_amount};
use crate::error::{Error, ErrorCode, Result};
use crate::expiry::LeaseConstraints;
use crate::lease::Lease;
use crate::pattern::Pattern;
use std::collections::BTreeMap;

mod inclusion;
mod work;

pub(crate) use inclusion::{Inclusion, Parents, included};
pub use work::MAX_WORK_UNITS;
pub(crate) use work::Work;

/// Give up (and answer "not a subset") after exploring this many product states in one
/// inclusion decision.
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
    /// For a runtime that does not apply expiry inheritance: when the parent has an expiry, a
    /// child that states none is not a subset (it would outlive the parent).
    pub require_child_expiry: bool,
    /// `parent_remaining` lists every currency the child may budget: a currency absent from it
    /// has nothing left, and an entry limits the child even for a currency the parent's lease
    /// does not budget. No effect without `parent_remaining`.
    pub strict_remaining: bool,
    /// For a runtime that reads a currency the parent does not grant as not granted (rather
    /// than unlimited): every currency the child budgets must be one the parent budgets (with
    /// `strict_remaining` and `parent_remaining`: one `parent_remaining` lists), whatever the
    /// child's amount, zero included.
    pub require_parent_currency: bool,
}

/// `Ok(())` when `child <= parent`; otherwise `LEASE_SUBSET_VIOLATION` whose details name the
/// capability, the child pattern and a witness string the parent does not cover.
pub fn check_lease_subset(child: &Lease, parent: &Lease, opts: &SubsetOptions) -> Result<()> {
    check_patterns(child, parent, &mut Work::new())?;
    match opts.parent_remaining {
        Some(remaining) if opts.strict_remaining => {
            check_budget_strict(child, remaining, opts.require_parent_currency)?
        }
        remaining => check_budget(child, parent, remaining, opts.require_parent_currency)?,
    }
    if opts.require_child_expiry {
        check_child_states_expiry(opts.child_constraints, opts.parent_constraints)?;
    }
    check_expiry(opts.child_constraints, opts.parent_constraints)
}

/// Whether `child <= parent`.
pub fn is_lease_subset(child: &Lease, parent: &Lease, opts: &SubsetOptions) -> bool {
    check_lease_subset(child, parent, opts).is_ok()
}

/// The capability rule: every child capability (but `cost.budget`) is in the parent and every
/// child pattern is included in the union of the parent's patterns, all within `work`.
pub(crate) fn check_patterns(child: &Lease, parent: &Lease, work: &mut Work) -> Result<()> {
    for (cap, entry) in child.entries() {
        if cap == "cost.budget" {
            continue;
        }
        let Some(pe) = parent.entry(cap) else {
            let first = entry.set.patterns().first();
            let witness = first.and_then(|p| match included(p, &Parents::new(Vec::new()), work) {
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
        let parents = Parents::new(pe.set.patterns().iter().collect());
        for cp in entry.set.patterns() {
            match included(cp, &parents, work) {
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
                            "{cap} pattern {:?}: inclusion not decided within the bounds ({MAX_EXPLORED_STATES} states per pattern, {MAX_WORK_UNITS} work units per call; fail closed)",
                            cp.as_str()
                        ),
                    ));
                }
            }
        }
    }
    Ok(())
}

/// The budget rule against explicit remaining amounts (or the parent's summed budget). A
/// currency the parent does not budget is unlimited there, or, with `granted_only`, not granted
/// (whatever the child's amount).
pub(crate) fn check_budget(
    child: &Lease,
    parent: &Lease,
    remaining: Option<&BTreeMap<String, Decimal>>,
    granted_only: bool,
) -> Result<()> {
    for (cur, amount) in child.budget() {
        let Some(parent_amount) = parent.budget().get(cur) else {
            if granted_only {
                return Err(currency_violation(cur, amount));
            }
            continue;
        };
        let limit = remaining.and_then(|r| r.get(cur)).unwrap_or(parent_amount);
        if amount > limit {
            return Err(budget_violation(cur, amount, limit));
        }
    }
    Ok(())
}

/// The budget rule against a complete remaining map: every child currency is limited by its
/// entry there, and a currency without an entry has nothing left (with `granted_only`: is not
/// granted, whatever the child's amount).
fn check_budget_strict(
    child: &Lease,
    remaining: &BTreeMap<String, Decimal>,
    granted_only: bool,
) -> Result<()> {
    let zero = Decimal::ZERO;
    for (cur, amount) in child.budget() {
        let limit = match remaining.get(cur) {
            Some(limit) => limit,
            None if granted_only => return Err(currency_violation(cur, amount)),
            None => &zero,
        };
        if amount > limit {
            return Err(budget_violation(cur, amount, limit));
        }
    }
    Ok(())
}

/// A child currency the parent does not grant.
fn currency_violation(cur: &str, amount: &Decimal) -> Error {
    Error::new(
        ErrorCode::LeaseSubsetViolation,
        format!(
            "cost.budget {cur}:{} is not granted: the parent does not budget {cur}",
            format_amount(amount)
        ),
    )
    .with_detail("capability", "cost.budget")
    .with_detail("currency", cur)
    .with_detail("child_amount", format_amount(amount))
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

/// The stated-expiry rule: under a parent with an expiry, the child names one too.
fn check_child_states_expiry(
    child: Option<&LeaseConstraints>,
    parent: Option<&LeaseConstraints>,
) -> Result<()> {
    let c = child.and_then(|c| c.expires_at);
    match parent.and_then(|p| p.expires_at) {
        Some(p) if c.is_none() => Err(Error::new(
            ErrorCode::LeaseSubsetViolation,
            format!("the parent expires at {p} and the child states no expiry"),
        )
        .with_detail("capability", "expires_at")
        .with_detail("parent_expires_at", p.to_rfc3339())),
        _ => Ok(()),
    }
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

#[cfg(test)]
mod tests;
