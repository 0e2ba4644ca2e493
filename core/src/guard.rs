//! `LeaseGuard` (SEMANTICS 6-9): enforces a lease at the moment of operation.
//!
//! Check order of `authorize`: expiry -> budget -> capability name and target -> match.
//! Budget counters are shared, locked cells: a delegated child reserves its budget from the
//! parent's counters at once, shares the parent's counters for currencies it does not budget,
//! and returns what it did not spend when it is closed. Safe under concurrent use.

mod counter;
mod metric;

use crate::budget::{Decimal, parse_amount, validate_amount};
use crate::canonical::canonicalize_for;
use crate::capability::{CapabilityKind, RESERVED_CAPABILITIES};
use crate::error::{Error, ErrorCode, Result};
use crate::expiry::{Clock, LeaseConstraints, Timestamp};
use crate::lease::{Entry, Lease};
use crate::subset::{Work, check_expiry, check_patterns};
use counter::Counter;
pub use metric::{Metric, REMAINING_METRIC};
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// Options of a guard.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GuardOptions {
    /// Operations up to this many milliseconds after `expires_at` still pass (default 0).
    pub grace_millis: u64,
    /// Allow any model when the lease has no `model.use` (default: deny).
    pub allow_any_model: bool,
}

/// Enforces one lease. Cheap to clone; `Send + Sync`.
#[derive(Clone)]
pub struct LeaseGuard {
    inner: Arc<Inner>,
}

struct Inner {
    lease: Lease,
    expires_at: Option<Timestamp>,
    clock: Arc<dyn Clock>,
    opts: GuardOptions,
    /// This guard's counters, sorted by currency.
    counters: Vec<Arc<Counter>>,
    /// (child's own counter, parent's counter) for every reserved currency.
    reserved: Vec<(Arc<Counter>, Arc<Counter>)>,
    closed: AtomicBool,
}

impl LeaseGuard {
    /// A guard for `lease` with `constraints`, reading time from `clock`.
    pub fn new(lease: Lease, constraints: LeaseConstraints, clock: Arc<dyn Clock>) -> LeaseGuard {
        LeaseGuard::with_options(lease, constraints, clock, GuardOptions::default())
    }

    /// As [`LeaseGuard::new`], with options.
    pub fn with_options(
        lease: Lease,
        constraints: LeaseConstraints,
        clock: Arc<dyn Clock>,
        opts: GuardOptions,
    ) -> LeaseGuard {
        let counters = lease
            .budget()
            .iter()
            .map(|(c, a)| Counter::new(c, *a))
            .collect();
        LeaseGuard {
            inner: Arc::new(Inner {
                lease,
                expires_at: constraints.expires_at,
                clock,
                opts,
                counters,
                reserved: Vec::new(),
                closed: AtomicBool::new(false),
            }),
        }
    }

    /// The lease this guard enforces.
    pub fn lease(&self) -> &Lease {
        &self.inner.lease
    }

    /// The effective expiry (a delegated child inherits its parent's when it names none).
    pub fn expires_at(&self) -> Option<Timestamp> {
        self.inner.expires_at
    }

    /// Authorizes `target` under `capability`; returns the canonical target the runtime should
    /// operate on. Errors: `LEASE_EXPIRED`, `BUDGET_EXHAUSTED`, `INVALID_REQUEST`,
    /// `PERMISSION_DENIED`, in that order of checks.
    pub fn authorize(&self, capability: &str, target: &str) -> Result<String> {
        self.authorize_cow(capability, target).map(Cow::into_owned)
    }

    /// As [`LeaseGuard::authorize`], without allocating when `target` is already canonical:
    /// `Cow::Borrowed` means "operate on `target` exactly as given" (bindings then hand the
    /// caller's own string object back instead of building a new one).
    pub fn authorize_cow<'t>(&self, capability: &str, target: &'t str) -> Result<Cow<'t, str>> {
        self.gate()?;
        let kind = CapabilityKind::of(capability)?;
        let entry = match kind.reserved_index() {
            Some(index) => self.inner.lease.reserved_entry(index),
            None => self.inner.lease.entry(capability),
        };
        self.authorize_entry(kind, capability, entry, target)
    }

    /// As [`LeaseGuard::authorize_cow`] for a reserved capability given by kind (bindings get
    /// it from [`CapabilityKind::reserved`]): the same checks and answers, without looking
    /// the name up. [`CapabilityKind::Vendor`] has no single name: `INVALID_REQUEST`.
    pub fn authorize_kind_cow<'t>(
        &self,
        kind: CapabilityKind,
        target: &'t str,
    ) -> Result<Cow<'t, str>> {
        self.gate()?;
        let Some(index) = kind.reserved_index() else {
            return Err(Error::invalid(
                "a vendor capability is authorized by its name, not by its kind",
            ));
        };
        let entry = self.inner.lease.reserved_entry(index);
        self.authorize_entry(kind, RESERVED_CAPABILITIES[index], entry, target)
    }

    /// Canonicalizes `target` for `kind` and matches it against `entry`, the lease's entry
    /// for `capability` (after the gate).
    fn authorize_entry<'t>(
        &self,
        kind: CapabilityKind,
        capability: &str,
        entry: Option<&Entry>,
        target: &'t str,
    ) -> Result<Cow<'t, str>> {
        let canonical = canonicalize_for(kind, target)?;
        let Some(entry) = entry else {
            if kind == CapabilityKind::ModelUse && self.inner.opts.allow_any_model {
                return Ok(canonical);
            }
            return Err(denied(
                capability,
                &canonical,
                "the lease does not grant it",
            ));
        };
        if entry.set.matches(&canonical) {
            Ok(canonical)
        } else {
            Err(denied(capability, &canonical, "no pattern matches"))
        }
    }

    /// `authorize("model.use", model_id)`.
    pub fn authorize_model(&self, model_id: &str) -> Result<String> {
        self.authorize_model_cow(model_id).map(Cow::into_owned)
    }

    /// `authorize_cow("model.use", model_id)`: `Cow::Borrowed` when the id is returned as given.
    pub fn authorize_model_cow<'t>(&self, model_id: &'t str) -> Result<Cow<'t, str>> {
        self.authorize_kind_cow(CapabilityKind::ModelUse, model_id)
    }

    /// Expiry then budget (the gate every gated operation passes first).
    fn gate(&self) -> Result<()> {
        self.check_open()?;
        self.check_expiry()?;
        if let Some(currency) = self.exhausted_currency() {
            return Err(Error::new(
                ErrorCode::BudgetExhausted,
                format!("the {currency} budget is exhausted"),
            )
            .with_detail("currency", currency));
        }
        Ok(())
    }

    /// Whether some budget counter is at or below zero, so that `authorize` and
    /// `authorize_model` fail with `BUDGET_EXHAUSTED` (SEMANTICS 6). Looks at the budget only:
    /// expiry and closing are not considered. Bindings answer "is the budget spent?" with this
    /// instead of comparing [`LeaseGuard::remaining`] themselves.
    pub fn is_exhausted(&self) -> bool {
        self.exhausted_currency().is_some()
    }

    /// The first currency (in currency order) whose counter is at or below zero.
    pub fn exhausted_currency(&self) -> Option<&str> {
        self.inner
            .counters
            .iter()
            .find(|c| c.is_exhausted())
            .map(|c| c.currency())
    }

    fn check_open(&self) -> Result<()> {
        if self.inner.closed.load(Ordering::Acquire) {
            return Err(Error::new(
                ErrorCode::LeaseExpired,
                "the lease guard is closed",
            ));
        }
        Ok(())
    }

    fn check_expiry(&self) -> Result<Option<Timestamp>> {
        let Some(exp) = self.inner.expires_at else {
            return Ok(None);
        };
        let now = self.inner.clock.now()?;
        if now >= exp.plus_millis(self.inner.opts.grace_millis) {
            return Err(Error::new(
                ErrorCode::LeaseExpired,
                format!("the lease expired at {exp}"),
            )
            .with_detail("expires_at", exp.to_rfc3339()));
        }
        Ok(Some(now))
    }

    /// Records a metric. A spend metric (name `cost.*` but not `cost.budget.*`, unit a budgeted
    /// currency) decrements that counter by `value` (AMOUNT syntax), even past zero; other
    /// metrics are ignored. Returns the `cost.budget.remaining` metrics to emit.
    pub fn record_metric(&self, name: &str, value: &str, unit: &str) -> Result<Vec<Metric>> {
        let Some(counter) = self.spend_counter(name, unit) else {
            return Ok(Vec::new());
        };
        let amount = parse_amount(value)?;
        Ok(counter.spend(amount)?.into_iter().collect())
    }

    /// As [`LeaseGuard::record_metric`] with an exact decimal value.
    pub fn record_metric_decimal(
        &self,
        name: &str,
        value: Decimal,
        unit: &str,
    ) -> Result<Vec<Metric>> {
        let Some(counter) = self.spend_counter(name, unit) else {
            return Ok(Vec::new());
        };
        validate_amount(value)?;
        Ok(counter.spend(value)?.into_iter().collect())
    }

    fn spend_counter(&self, name: &str, unit: &str) -> Option<&Arc<Counter>> {
        if !name.starts_with("cost.") || name.starts_with("cost.budget.") {
            return None;
        }
        self.counter(unit)
    }

    fn counter(&self, currency: &str) -> Option<&Arc<Counter>> {
        self.inner
            .counters
            .binary_search_by(|c| c.currency().cmp(currency))
            .ok()
            .map(|i| &self.inner.counters[i])
    }

    /// Pre-authorizes `amount`: succeeds only if the counter stays >= 0 (atomically), else
    /// `BUDGET_EXHAUSTED` with the counter unchanged. No expiry check.
    pub fn reserve(&self, currency: &str, amount: Decimal) -> Result<Vec<Metric>> {
        self.check_open()?;
        validate_amount(amount)?;
        let Some(counter) = self.counter(currency) else {
            return Err(
                Error::invalid(format!("{currency} is not budgeted by this lease"))
                    .with_detail("currency", currency),
            );
        };
        Ok(counter.reserve(amount)?.into_iter().collect())
    }

    /// The remaining amount of every budgeted currency.
    pub fn remaining(&self) -> BTreeMap<String, Decimal> {
        self.inner
            .counters
            .iter()
            .map(|c| (c.currency().to_string(), c.current()))
            .collect()
    }

    /// Delegates `child`: checks that it is a subset of this lease against the live remaining
    /// budget and the effective expiry, then reserves the child's budget from this guard's
    /// counters. The child shares this guard's counters for currencies it does not budget.
    pub fn delegate(
        &self,
        child: Lease,
        child_constraints: LeaseConstraints,
    ) -> Result<LeaseGuard> {
        self.delegate_with_metrics(child, child_constraints)
            .map(|(g, _)| g)
    }

    /// As [`LeaseGuard::delegate`], also returning the remaining metrics the reservation emitted.
    pub fn delegate_with_metrics(
        &self,
        child: Lease,
        child_constraints: LeaseConstraints,
    ) -> Result<(LeaseGuard, Vec<Metric>)> {
        self.check_open()?;
        let now = match self.check_expiry()? {
            Some(now) => Some(now),
            None if child_constraints.expires_at.is_some() => Some(self.inner.clock.now()?),
            None => None,
        };
        if let (Some(c), Some(now)) = (child_constraints.expires_at, now)
            && c <= now
        {
            return Err(Error::invalid(format!(
                "the child's expires_at {c} is not after now ({now})"
            )));
        }
        check_patterns(&child, &self.inner.lease, &mut Work::new())?;
        let parent_constraints = LeaseConstraints {
            expires_at: self.inner.expires_at,
        };
        check_expiry(Some(&child_constraints), Some(&parent_constraints))?;

        let mut counters = Vec::new();
        let mut reserved = Vec::new();
        let mut to_reserve: Vec<(&Arc<Counter>, Decimal)> = Vec::new();
        for (cur, amount) in child.budget() {
            let own = Counter::new(cur, *amount);
            if let Some(pc) = self.counter(cur) {
                to_reserve.push((pc, *amount));
                reserved.push((own.clone(), pc.clone()));
            }
            counters.push(own);
        }
        for pc in &self.inner.counters {
            if !child.budget().contains_key(pc.currency()) {
                counters.push(pc.clone());
            }
        }
        counters.sort_by(|a, b| a.currency().cmp(b.currency()));

        let emitted = counter::reserve_all(&to_reserve)?;

        let guard = LeaseGuard {
            inner: Arc::new(Inner {
                lease: child,
                expires_at: child_constraints.expires_at.or(self.inner.expires_at),
                clock: self.inner.clock.clone(),
                opts: self.inner.opts,
                counters,
                reserved,
                closed: AtomicBool::new(false),
            }),
        };
        Ok((guard, emitted))
    }

    /// Closes the guard: later gated operations fail with `LEASE_EXPIRED`; a delegated child
    /// returns its unspent reserved budget to its parent (an overspend is charged to the
    /// parent). Later spend metrics on a closed child are charged to the parent. Idempotent.
    pub fn close(&self) -> Vec<Metric> {
        self.inner.close()
    }

    /// Whether [`LeaseGuard::close`] was called.
    pub fn is_closed(&self) -> bool {
        self.inner.closed.load(Ordering::Acquire)
    }
}

impl std::fmt::Debug for LeaseGuard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LeaseGuard")
            .field("lease", &self.inner.lease)
            .field("expires_at", &self.inner.expires_at)
            .field("remaining", &self.remaining())
            .field("closed", &self.is_closed())
            .finish()
    }
}

impl Inner {
    fn close(&self) -> Vec<Metric> {
        if self.closed.swap(true, Ordering::AcqRel) {
            return Vec::new();
        }
        self.reserved
            .iter()
            .filter_map(|(own, parent)| counter::return_to_parent(own, parent))
            .collect()
    }
}

impl Drop for Inner {
    fn drop(&mut self) {
        if !self.reserved.is_empty() {
            self.close();
        }
    }
}

fn denied(capability: &str, target: &str, why: &str) -> Error {
    Error::new(
        ErrorCode::PermissionDenied,
        format!("{capability} {target:?} is not permitted: {why}"),
    )
    .with_detail("capability", capability)
    .with_detail("target", target)
}

#[cfg(test)]
mod tests;
