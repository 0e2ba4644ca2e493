//! One budget counter of a guard (SEMANTICS 6 and 9): an exact decimal behind a lock, the
//! 5 % remaining-metric steps, and the reservation and return of a delegated child's budget.
//!
//! Counters are shared between a parent guard and the children that do not budget the same
//! currency; a child that does gets its own counter, reserved from the parent's at once and
//! returned to it (forwarding later spend) when the child is closed.

use super::metric::Metric;
use crate::budget::{Decimal, checked_add, checked_sub, format_amount};
use crate::error::{Error, ErrorCode, Result};
use crate::subset::budget_violation;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

/// The step that means "the counter reached <= 0" (steps 1-19 are 5 %, 10 %, ... 95 %).
const LAST_STEP: u8 = 20;

/// One currency's counter.
pub(super) struct Counter {
    currency: String,
    initial: Decimal,
    state: Mutex<CounterState>,
    /// `current <= 0` (or returned to the parent), readable without the lock.
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
    /// A fresh counter at `initial`.
    pub(super) fn new(currency: &str, initial: Decimal) -> Arc<Counter> {
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

    /// The currency.
    pub(super) fn currency(&self) -> &str {
        &self.currency
    }

    /// Whether the counter is at or below zero (or was returned to its parent).
    pub(super) fn is_exhausted(&self) -> bool {
        self.exhausted.load(Ordering::Acquire)
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
            Metric::remaining(&self.currency, value)
        })
    }

    /// Post-hoc spend: always recorded, may go below zero.
    pub(super) fn spend(&self, amount: Decimal) -> Result<Option<Metric>> {
        let mut st = self.lock();
        if let Some(parent) = st.forward.clone() {
            drop(st);
            return parent.spend(amount);
        }
        let next = checked_sub(st.current, amount)?;
        Ok(self.set(&mut st, next))
    }

    /// Pre-authorization: takes `amount` only if the counter stays >= 0, atomically; else
    /// `BUDGET_EXHAUSTED` with the counter unchanged.
    pub(super) fn reserve(&self, amount: Decimal) -> Result<Option<Metric>> {
        let mut st = self.lock();
        let next = checked_sub(st.current, amount)?;
        if next < Decimal::ZERO {
            return Err(Error::new(
                ErrorCode::BudgetExhausted,
                format!(
                    "reserving {}:{amount} would exceed the remaining budget",
                    self.currency
                ),
            )
            .with_detail("currency", self.currency.as_str())
            .with_detail("remaining", format_amount(&st.current)));
        }
        Ok(self.set(&mut st, next))
    }

    /// The current amount (zero once returned to the parent).
    pub(super) fn current(&self) -> Decimal {
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

/// The locked state of `counter` among `locked`.
fn state_of<'l, 'a>(
    locked: &'l mut [(&'a Arc<Counter>, MutexGuard<'a, CounterState>)],
    counter: &Arc<Counter>,
) -> &'l mut CounterState {
    let (_, st) = locked
        .iter_mut()
        .find(|(c, _)| Arc::ptr_eq(c, counter))
        .expect("every counter asked for was locked");
    st
}

/// Reserves a delegated child's amounts from its parent's counters, all or nothing: with every
/// counter locked, any amount above what is left (or a counter already returned) refuses the
/// whole reservation with `LEASE_SUBSET_VIOLATION`; otherwise every counter is decremented.
/// Returns the remaining metrics the reservation emitted.
pub(super) fn reserve_all(to_reserve: &[(&Arc<Counter>, Decimal)]) -> Result<Vec<Metric>> {
    let refs: Vec<&Arc<Counter>> = to_reserve.iter().map(|(c, _)| *c).collect();
    let mut locked = lock_all(&refs);
    for (pc, amount) in to_reserve {
        let st = state_of(&mut locked, pc);
        if st.forward.is_some() || *amount > st.current {
            return Err(budget_violation(&pc.currency, amount, &st.current));
        }
    }
    let mut emitted = Vec::new();
    for (pc, amount) in to_reserve {
        let st = state_of(&mut locked, pc);
        let next = checked_sub(st.current, *amount)?;
        emitted.extend(pc.set(st, next));
    }
    Ok(emitted)
}

/// Returns a closed child's counter `own` to `parent`: `own` drops to zero and forwards later
/// spend to `parent`, which gets back what `own` had left (an overspend is charged to it).
/// Returns the remaining metric the parent emitted, if any.
pub(super) fn return_to_parent(own: &Arc<Counter>, parent: &Arc<Counter>) -> Option<Metric> {
    let mut locked = lock_all(&[own, parent]);
    let returned = {
        let st = state_of(&mut locked, own);
        let r = st.current;
        st.current = Decimal::ZERO;
        st.forward = Some(parent.clone());
        own.exhausted.store(true, Ordering::Release);
        r
    };
    let st = state_of(&mut locked, parent);
    if st.forward.is_some() {
        return None;
    }
    let next = checked_add(st.current, returned).unwrap_or(st.current);
    parent.set(st, next)
}
