//! Inheritance (`FROM` another Agentfile, spec section 16): a child may only narrow.

use std::collections::BTreeMap;

use super::ast::{Agentfile, AuditLevel};
use super::lease::agentfile_lease;
use super::values::parse_rate;
use crate::{Error, ErrorCode, SubsetOptions, check_lease_subset};

fn violation(msg: String) -> Error {
    Error::new(ErrorCode::LeaseSubsetViolation, msg)
}

/// Checks that `child` only narrows `parent`:
/// 1. both parse without errors (else `INVALID_REQUEST`);
/// 2. the child's derived lease is a subset of the parent's (SEMANTICS 9);
/// 3. `AUDIT` is not lowered (off < basic < all < compliance; absent = off);
/// 4. every parent `DENY` is kept, and every parent `POLICY` block is carried verbatim (so
///    no inherited `forbid` can be dropped);
/// 5. each parent `RATELIMIT` target keeps a limit no looser (count per second) and a
///    parent `TIMEOUT` is not raised;
/// 6. each child `CRED` name exists in the parent and its hosts are within the parent's.
///
/// Violations are `LEASE_SUBSET_VIOLATION`. Whether `child` actually names `parent` in `FROM`
/// is the caller's business.
pub fn check_inheritance(parent: &Agentfile, child: &Agentfile) -> crate::Result<()> {
    let parent_lease = agentfile_lease(parent).map_err(|e| {
        Error::new(
            ErrorCode::InvalidRequest,
            format!("parent: {}", e.message()),
        )
    })?;
    let child_lease = agentfile_lease(child)
        .map_err(|e| Error::new(ErrorCode::InvalidRequest, format!("child: {}", e.message())))?;
    check_lease_subset(&child_lease, &parent_lease, &SubsetOptions::default())?;

    let (pa, ca) = (
        parent.audit().unwrap_or(AuditLevel::Off),
        child.audit().unwrap_or(AuditLevel::Off),
    );
    if ca < pa {
        return Err(violation(format!(
            "child lowers AUDIT from {} to {}",
            pa.as_str(),
            ca.as_str()
        )));
    }

    for deny in parent.directives_named("DENY") {
        let kept = child
            .directives_named("DENY")
            .any(|c| c.args().eq(deny.args()));
        if !kept {
            return Err(violation(format!(
                "child drops the parent's `DENY {}` (line {})",
                deny.text, deny.line
            )));
        }
    }
    for block in parent.policy_blocks() {
        let body = block.block.as_ref().map(|b| &b.body);
        let kept = child
            .policy_blocks()
            .any(|c| c.block.as_ref().map(|b| &b.body) == body);
        if !kept {
            return Err(violation(format!(
                "child does not carry the parent's POLICY block (line {}) verbatim",
                block.line
            )));
        }
    }

    let child_rates = rates(child);
    for (target, (count, window)) in rates(parent) {
        let looser = match child_rates.get(&target) {
            // count_c / window_c <= count_p / window_p, compared without division.
            Some(&(cc, cw)) => {
                u128::from(cc) * u128::from(window) > u128::from(count) * u128::from(cw)
            }
            None => true,
        };
        if looser {
            return Err(violation(format!(
                "child weakens or drops the parent's RATELIMIT on `{target}`"
            )));
        }
    }
    if let Some(pt) = timeout(parent)
        && timeout(child).is_none_or(|ct| ct > pt)
    {
        return Err(violation(format!(
            "child raises or drops the parent's TIMEOUT {pt}"
        )));
    }

    for cred in child.creds() {
        // A name declared on several parent lines is exposed to the union of their hosts (so
        // every Agentfile inherits from itself, duplicate lines included).
        let declared: Vec<_> = parent
            .creds()
            .iter()
            .filter(|p| p.name == cred.name)
            .collect();
        if declared.is_empty() {
            return Err(violation(format!(
                "child adds credential `{}` the parent does not declare",
                cred.name
            )));
        }
        if let Some(h) = cred.hosts.iter().find(|h| {
            !declared
                .iter()
                .any(|p| p.hosts.iter().any(|ph| host_within(h, ph)))
        }) {
            return Err(violation(format!(
                "child exposes credential `{}` to host `{h}` outside the parent's hosts",
                cred.name
            )));
        }
    }
    Ok(())
}

/// The tightest limit per RATELIMIT target: (count, window seconds).
fn rates(af: &Agentfile) -> BTreeMap<String, (u64, u64)> {
    let mut out: BTreeMap<String, (u64, u64)> = BTreeMap::new();
    for d in af.directives_named("RATELIMIT") {
        if let (Some(t), Some(r)) = (d.arg(0), d.arg(1).and_then(parse_rate)) {
            out.entry(t.to_string())
                .and_modify(|cur| {
                    if u128::from(r.0) * u128::from(cur.1) < u128::from(cur.0) * u128::from(r.1) {
                        *cur = r;
                    }
                })
                .or_insert(r);
        }
    }
    out
}

fn timeout(af: &Agentfile) -> Option<u64> {
    af.directives_named("TIMEOUT")
        .next()
        .and_then(|d| d.arg(0))
        .and_then(super::values::parse_uint)
}

/// Host pattern `child` is within `parent`: equal, or parent `*.x` covers `a.x` and `*.a.x`.
fn host_within(child: &str, parent: &str) -> bool {
    if child == parent {
        return true;
    }
    match parent.strip_prefix("*.") {
        Some(suffix) => {
            let c = child.strip_prefix("*.").unwrap_or(child);
            c.len() > suffix.len()
                && c.ends_with(suffix)
                && c[..c.len() - suffix.len()].ends_with('.')
        }
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::host_within;

    #[test]
    fn hosts_narrow() {
        assert!(host_within("api.stripe.com", "*.stripe.com"));
        assert!(host_within("*.eu.stripe.com", "*.stripe.com"));
        assert!(!host_within("stripe.com", "*.stripe.com"));
        assert!(!host_within("*.stripe.com", "api.stripe.com"));
        assert!(!host_within("evilstripe.com", "*.stripe.com"));
    }
}
