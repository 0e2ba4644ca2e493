//! `LeaseGuard` (SEMANTICS 6-9): enforces a lease at the moment of operation.
//!
//! Check order of `authorize`: expiry -> budget -> capability name and target -> match.
//! Budget counters are shared, locked cells: a delegated child reserves its budget from the
//! parent's counters at once, shares the parent's counters for currencies it does not budget,
//! and returns what it did not spend when it is closed. Safe under concurrent use.

use crate::budget::{
    Decimal, MAX_FRACTION_DIGITS, MAX_INTEGER_DIGITS, checked_add, checked_sub, parse_amount,
};
use crate::canonical::canonicalize_for;
use crate::capability::{CapabilityKind, RESERVED_CAPABILITIES};
use crate::error::{Error, ErrorCode, Result};
use crate::expiry::{Clock, LeaseConstraints, Timestamp};
use crate::lease::{Entry, Lease};
use crate::subset::{Work, budget_violation, check_expiry, check_patterns};
use serde::Serialize;
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

/// Options of a guard.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GuardOptions {
    /// Operations up to this many milliseconds after `expires_at` still pass (default 0).
    pub grace_millis: u64,
    /// Allow any model when the lease has no `model.use` (default: deny).
    pub allow_any_model: bool,
}

/// A metric the runtime should emit (`cost.budget.remaining`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Metric {
    /// Always `cost.budget.remaining` for emitted metrics.
    pub name: String,
    /// The remaining amount (serialized as a decimal string).
    #[serde(serialize_with = "ser_decimal")]
    pub value: Decimal,
    /// The currency.
    pub unit: String,
}

fn ser_decimal<S: serde::Serializer>(d: &Decimal, s: S) -> std::result::Result<S::Ok, S::Error> {
    s.serialize_str(&crate::budget::format_amount(d))
}

/// The name of emitted remaining metrics.
pub const REMAINING_METRIC: &str = "cost.budget.remaining";
const LAST_STEP: u8 = 20;

struct Counter {
    currency: String,
    initial: Decimal,
    state: Mutex<CounterState>,
    exhausted: AtomicBool,
}

struct CounterState {
    current: Decimal,
    /// Highest 5 % step emitted (20 = the counter reached <= 0).
    step: u8,
    /// Set when a closed child returned this counter to its parent: spend goes there.
    forward: Option<Arc<Counter>>,
}

impl Counter {
    fn new(currency: &str, initial: Decimal) -> Arc<Counter> {
        Arc::new(Counter {
            currency: currency.to_string(),
            initial,
            state: Mutex::new(CounterState {
                current: initial,
                step: 0,
                forward: None,
            }),
            exhausted: AtomicBool::new(initial <= Decimal::ZERO),
        })
    }

    fn lock(&self) -> MutexGuard<'_, CounterState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Sets the counter and returns the metric to emit, if a new step was reached.
    fn set(&self, st: &mut CounterState, value: Decimal) -> Option<Metric> {
        st.current = value;
        self.exhausted
            .store(value <= Decimal::ZERO, Ordering::Release);
        let step = if value <= Decimal::ZERO {
            LAST_STEP
        } else {
            // Only steps above the last one emitted matter: scan upwards from there (one
            // comparison for most spends).
            let spent20 = (self.initial - value) * Decimal::from(20);
            let mut k = st.step;
            while k + 1 < LAST_STEP && spent20 >= self.initial * Decimal::from(k + 1) {
                k += 1;
            }
            k
        };
        (step > st.step).then(|| {
            st.step = step;
            Metric {
                name: REMAINING_METRIC.to_string(),
                value,
                unit: self.currency.clone(),
            }
        })
    }

    /// Post-hoc spend: always recorded, may go below zero.
    fn spend(&self, amount: Decimal) -> Result<Option<Metric>> {
        let mut st = self.lock();
        if let Some(parent) = st.forward.clone() {
            drop(st);
            return parent.spend(amount);
        }
        let next = checked_sub(st.current, amount)?;
        Ok(self.set(&mut st, next))
    }

    fn current(&self) -> Decimal {
        let st = self.lock();
        match &st.forward {
            Some(_) => Decimal::ZERO,
            None => st.current,
        }
    }
}

/// Locks several counters in a global order (by address) so that concurrent delegations
/// cannot deadlock.
fn lock_all<'a>(
    counters: &[&'a Arc<Counter>],
) -> Vec<(&'a Arc<Counter>, MutexGuard<'a, CounterState>)> {
    let mut sorted: Vec<&Arc<Counter>> = counters.to_vec();
    sorted.sort_by_key(|c| Arc::as_ptr(c) as usize);
    sorted.dedup_by_key(|c| Arc::as_ptr(c) as usize);
    sorted.into_iter().map(|c| (c, c.lock())).collect()
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
        if let Some(c) = self
            .inner
            .counters
            .iter()
            .find(|c| c.exhausted.load(Ordering::Acquire))
        {
            return Err(Error::new(
                ErrorCode::BudgetExhausted,
                format!("the {} budget is exhausted", c.currency),
            )
            .with_detail("currency", c.currency.as_str()));
        }
        Ok(())
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
            .binary_search_by(|c| c.currency.as_str().cmp(currency))
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
        let mut st = counter.lock();
        let next = checked_sub(st.current, amount)?;
        if next < Decimal::ZERO {
            return Err(Error::new(
                ErrorCode::BudgetExhausted,
                format!("reserving {currency}:{amount} would exceed the remaining budget"),
            )
            .with_detail("currency", currency)
            .with_detail("remaining", crate::budget::format_amount(&st.current)));
        }
        Ok(counter.set(&mut st, next).into_iter().collect())
    }

    /// The remaining amount of every budgeted currency.
    pub fn remaining(&self) -> BTreeMap<String, Decimal> {
        self.inner
            .counters
            .iter()
            .map(|c| (c.currency.clone(), c.current()))
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
            if !child.budget().contains_key(&pc.currency) {
                counters.push(pc.clone());
            }
        }
        counters.sort_by(|a, b| a.currency.cmp(&b.currency));

        let refs: Vec<&Arc<Counter>> = to_reserve.iter().map(|(c, _)| *c).collect();
        let mut locked = lock_all(&refs);
        for (pc, amount) in &to_reserve {
            let (_, st) = locked
                .iter()
                .find(|(c, _)| Arc::ptr_eq(c, pc))
                .expect("locked");
            if st.forward.is_some() || *amount > st.current {
                return Err(budget_violation(&pc.currency, amount, &st.current));
            }
        }
        let mut emitted = Vec::new();
        for (pc, amount) in &to_reserve {
            let (_, st) = locked
                .iter_mut()
                .find(|(c, _)| Arc::ptr_eq(c, pc))
                .expect("locked");
            let next = checked_sub(st.current, *amount)?;
            emitted.extend(pc.set(st, next));
        }
        drop(locked);

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
        let mut emitted = Vec::new();
        for (own, parent) in &self.reserved {
            let mut locked = lock_all(&[own, parent]);
            let returned = {
                let (_, st) = locked
                    .iter_mut()
                    .find(|(c, _)| Arc::ptr_eq(c, own))
                    .expect("locked");
                let r = st.current;
                st.current = Decimal::ZERO;
                st.forward = Some(parent.clone());
                own.exhausted.store(true, Ordering::Release);
                r
            };
            let (_, st) = locked
                .iter_mut()
                .find(|(c, _)| Arc::ptr_eq(c, parent))
                .expect("locked");
            if st.forward.is_none() {
                let next = checked_add(st.current, returned).unwrap_or(st.current);
                emitted.extend(parent.set(st, next));
            }
        }
        emitted
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

/// Checks a decimal given directly (not parsed): non-negative, <= 15 integer and 9 fraction digits.
pub(crate) fn validate_amount(d: Decimal) -> Result<()> {
    let n = d.normalize();
    let int_digits = n
        .trunc()
        .mantissa()
        .unsigned_abs()
        .checked_ilog10()
        .map_or(0, |l| l + 1);
    if n.is_sign_negative() && !n.is_zero()
        || n.scale() > MAX_FRACTION_DIGITS as u32
        || int_digits > MAX_INTEGER_DIGITS as u32
    {
        return Err(Error::invalid(format!(
            "invalid amount {d}: must be non-negative with at most 15 integer and 9 fraction digits"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests;
