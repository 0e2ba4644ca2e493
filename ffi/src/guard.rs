//! The `LkGuard` handle: a lease enforced at run time (authorize, metrics, budgets,
//! delegation), on the system clock or a manual clock.

use std::ffi::c_char;
use std::sync::Arc;

use leasekit::{Clock, Error, GuardOptions, LeaseGuard, ManualClock, Result, SystemClock, wire};

use crate::boundary::{call, ffi};
use crate::convert;
use crate::error::LkStatus;
use crate::expiry::now_or_system;
use crate::lease::LkLease;
use crate::text::{args, free_handle, put, put_handle, put_opt, put_string};

/// An opaque lease guard. Create it with `lk_guard_new` (system clock) or
/// `lk_guard_new_manual_clock`, free it with `lk_guard_free`. A guard is thread-safe:
/// it may be used from several threads at once.
pub struct LkGuard {
    inner: LeaseGuard,
    /// Set when the guard (or the guard it was delegated from) runs on a manual clock.
    manual: Option<Arc<ManualClock>>,
}

/// Shared body of the two constructors.
///
/// # Safety
/// As `lk_guard_new`.
unsafe fn new_guard(
    lease: *const LkLease,
    constraints_json: *const c_char,
    options_json: *const c_char,
    out: *mut *mut LkGuard,
    manual_now: Option<*const c_char>,
) -> Result<()> {
    // SAFETY: pointer contracts of the exported constructors.
    args!(out: out, lease: handle, constraints_json: opt_str, options_json: opt_str);
    let constraints = convert::constraints(constraints_json)?;
    let options = match options_json {
        Some(text) => wire::GuardOptions::from_json(text)?.to_core(),
        None => GuardOptions::default(),
    };
    let (clock, manual): (Arc<dyn Clock>, _) = match manual_now {
        None => (Arc::new(SystemClock), None),
        Some(now) => {
            // SAFETY: pointer contract of lk_guard_new_manual_clock.
            args!(now: opt_str);
            let clock = Arc::new(ManualClock::new(now_or_system(now)?));
            (clock.clone(), Some(clock))
        }
    };
    let inner = LeaseGuard::with_options(lease.inner.clone(), constraints, clock, options);
    put_handle(out, LkGuard { inner, manual });
    Ok(())
}

/// Creates a guard for `lease` on the system clock. `constraints_json` may be NULL or
/// `{"expires_at": "..."}`; `options_json` may be NULL or
/// `{"grace_millis": 0, "allow_any_model": false}`. The lease is copied (the handle may
/// be freed afterwards). The constraints are not checked against the current time here
/// (an already expired guard answers `LK_LEASE_EXPIRED`); check them at submit with
/// `lk_validate_lease_constraints`. Writes the new guard to `*out`.
///
/// # Safety
/// `lease` is a live handle; `constraints_json` and `options_json` are NULL or
/// NUL-terminated strings; `out` points to a writable `LkGuard *`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lk_guard_new(
    lease: *const LkLease,
    constraints_json: *const c_char,
    options_json: *const c_char,
    out: *mut *mut LkGuard,
) -> LkStatus {
    // SAFETY: forwarded contract.
    call(|| unsafe { new_guard(lease, constraints_json, options_json, out, None) })
}

/// Like `lk_guard_new`, but the guard reads time from a manual clock that starts at
/// `now` (a strict timestamp; NULL means the current system time) and moves only with
/// `lk_guard_set_time`. For tests and simulations.
///
/// # Safety
/// As `lk_guard_new`; `now` is NULL or a NUL-terminated string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lk_guard_new_manual_clock(
    lease: *const LkLease,
    constraints_json: *const c_char,
    options_json: *const c_char,
    now: *const c_char,
    out: *mut *mut LkGuard,
) -> LkStatus {
    // SAFETY: forwarded contract.
    call(|| unsafe { new_guard(lease, constraints_json, options_json, out, Some(now)) })
}

/// Sets the manual clock of a guard (shared with guards delegated from it) to `now`, a
/// strict timestamp. `LK_INVALID_REQUEST` for a guard on the system clock.
///
/// # Safety
/// `guard` is a live handle; `now` is a NUL-terminated string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lk_guard_set_time(guard: *const LkGuard, now: *const c_char) -> LkStatus {
    // SAFETY: pointer contracts documented above.
    ffi!(guard: handle, now: str => {
        let clock = guard.manual.as_ref().ok_or_else(|| {
            Error::invalid("guard runs on the system clock, not a manual clock")
        })?;
        clock.set(leasekit::parse_expires_at(now)?);
        Ok(())
    })
}

/// Frees a guard. NULL is ignored. Freeing does not close it (see `lk_guard_close`).
///
/// # Safety
/// `guard` is NULL or a handle from this library not freed before.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lk_guard_free(guard: *mut LkGuard) {
    // SAFETY: forwarded contract.
    unsafe { free_handle(guard) }
}

/// Authorizes `capability` on `target` (expiry, then budget, then canonicalization,
/// then matching; SEMANTICS section 8). On success writes the canonical target to
/// `*out_canonical` when that is not NULL.
///
/// # Safety
/// `guard` is a live handle; `capability` and `target` are NUL-terminated strings;
/// `out_canonical` is NULL or points to a writable `char *`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lk_guard_authorize(
    guard: *const LkGuard,
    capability: *const c_char,
    target: *const c_char,
    out_canonical: *mut *mut c_char,
) -> LkStatus {
    // SAFETY: pointer contracts documented above.
    ffi!(out_canonical: opt_out, guard: handle, capability: str, target: str => {
        // Borrowed when already canonical: no allocation unless the caller asked for the text.
        let canonical = guard.inner.authorize_cow(capability, target)?;
        put_opt(out_canonical, || Ok(&*canonical))
    })
}

/// `lk_guard_authorize` with `(pointer, length)` strings, for hosts whose strings may
/// contain NUL bytes (such a target is `LK_INVALID_REQUEST`, never cut at the NUL).
///
/// # Safety
/// `guard` is a live handle; `capability` and `target` point to `*_len` bytes (NULL only
/// for length 0); `out_canonical` is NULL or points to a writable `char *`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lk_guard_authorize_n(
    guard: *const LkGuard,
    capability: *const c_char,
    capability_len: usize,
    target: *const c_char,
    target_len: usize,
    out_canonical: *mut *mut c_char,
) -> LkStatus {
    // SAFETY: pointer contracts documented above.
    ffi!(out_canonical: opt_out, guard: handle, capability: str_n(capability_len),
        target: str_n(target_len) => {
        let canonical = guard.inner.authorize_cow(capability, target)?;
        put_opt(out_canonical, || Ok(&*canonical))
    })
}

/// Authorizes the use of model `model_id` (`model.use`). On success writes the
/// canonical id to `*out_canonical` when that is not NULL.
///
/// # Safety
/// `guard` is a live handle; `model_id` is a NUL-terminated string; `out_canonical` is
/// NULL or points to a writable `char *`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lk_guard_authorize_model(
    guard: *const LkGuard,
    model_id: *const c_char,
    out_canonical: *mut *mut c_char,
) -> LkStatus {
    // SAFETY: pointer contracts documented above.
    ffi!(out_canonical: opt_out, guard: handle, model_id: str => {
        let canonical = guard.inner.authorize_model(model_id)?;
        put_opt(out_canonical, || Ok(canonical))
    })
}

/// `lk_guard_authorize_model` with a `(pointer, length)` model id.
///
/// # Safety
/// `guard` is a live handle; `model_id` points to `model_id_len` bytes (NULL only for
/// length 0); `out_canonical` is NULL or points to a writable `char *`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lk_guard_authorize_model_n(
    guard: *const LkGuard,
    model_id: *const c_char,
    model_id_len: usize,
    out_canonical: *mut *mut c_char,
) -> LkStatus {
    // SAFETY: pointer contracts documented above.
    ffi!(out_canonical: opt_out, guard: handle, model_id: str_n(model_id_len) => {
        let canonical = guard.inner.authorize_model(model_id)?;
        put_opt(out_canonical, || Ok(canonical))
    })
}

/// Records a metric (`value` a decimal string). A `cost.*` metric in a budgeted
/// currency spends that budget. Writes the emitted `cost.budget.remaining` metrics as
/// a JSON array `[{"name", "value", "unit"}]` to `*out_emitted_json` when that is not
/// NULL.
///
/// # Safety
/// `guard` is a live handle; `name`, `value` and `unit` are NUL-terminated strings;
/// `out_emitted_json` is NULL or points to a writable `char *`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lk_guard_record_metric(
    guard: *const LkGuard,
    name: *const c_char,
    value: *const c_char,
    unit: *const c_char,
    out_emitted_json: *mut *mut c_char,
) -> LkStatus {
    // SAFETY: pointer contracts documented above.
    ffi!(out_emitted_json: opt_out, guard: handle, name: str, value: str, unit: str => {
        let emitted = guard.inner.record_metric(name, value, unit)?;
        put_opt(out_emitted_json, || wire::metrics_json(&emitted))
    })
}

/// Reserves `amount` (a decimal string) of `currency` before spending it; fails with
/// `LK_BUDGET_EXHAUSTED` (nothing reserved) when the counter would drop below zero.
/// Writes emitted metrics as for `lk_guard_record_metric`.
///
/// # Safety
/// `guard` is a live handle; `currency` and `amount` are NUL-terminated strings;
/// `out_emitted_json` is NULL or points to a writable `char *`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lk_guard_reserve(
    guard: *const LkGuard,
    currency: *const c_char,
    amount: *const c_char,
    out_emitted_json: *mut *mut c_char,
) -> LkStatus {
    // SAFETY: pointer contracts documented above.
    ffi!(out_emitted_json: opt_out, guard: handle, currency: str, amount: str => {
        let emitted = guard
            .inner
            .reserve(currency, leasekit::parse_amount(amount)?)?;
        put_opt(out_emitted_json, || wire::metrics_json(&emitted))
    })
}

/// Writes the remaining budget per currency as `{"USD": "1.25", ...}` to `*out_json`
/// (a counter may be negative after overspend).
///
/// # Safety
/// `guard` is a live handle; `out_json` points to a writable `char *`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lk_guard_remaining(
    guard: *const LkGuard,
    out_json: *mut *mut c_char,
) -> LkStatus {
    // SAFETY: pointer contracts documented above.
    ffi!(out_json: out, guard: handle => {
        put_string(out_json, wire::amounts_json(&guard.inner.remaining()))
    })
}

/// Delegates `child` (which must be a subset of this guard's lease, with its remaining
/// budget; else `LK_LEASE_SUBSET_VIOLATION`) and writes the child guard to `*out`. The
/// child's budget is reserved from this guard at once and returned by
/// `lk_guard_close` on the child. `child_constraints_json` may be NULL.
///
/// # Safety
/// `guard` and `child` are live handles; `child_constraints_json` is NULL or a
/// NUL-terminated string; `out` points to a writable `LkGuard *`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lk_guard_delegate(
    guard: *const LkGuard,
    child: *const LkLease,
    child_constraints_json: *const c_char,
    out: *mut *mut LkGuard,
) -> LkStatus {
    // SAFETY: pointer contracts documented above.
    ffi!(out: out, guard: handle, child: handle, child_constraints_json: opt_str => {
        let constraints = convert::constraints(child_constraints_json)?;
        let inner = guard.inner.delegate(child.inner.clone(), constraints)?;
        let manual = guard.manual.clone();
        put_handle(out, LkGuard { inner, manual });
        Ok(())
    })
}

/// Closes a guard: a delegated child returns its unspent budget to its parent.
/// Idempotent. Writes the metrics emitted by closing as a JSON array to
/// `*out_emitted_json` when that is not NULL.
///
/// # Safety
/// `guard` is a live handle; `out_emitted_json` is NULL or points to a writable `char *`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lk_guard_close(
    guard: *const LkGuard,
    out_emitted_json: *mut *mut c_char,
) -> LkStatus {
    // SAFETY: pointer contracts documented above.
    ffi!(out_emitted_json: opt_out, guard: handle => {
        let emitted = guard.inner.close();
        put_opt(out_emitted_json, || wire::metrics_json(&emitted))
    })
}

/// Sets `*out` to whether the guard has been closed.
///
/// # Safety
/// `guard` is a live handle; `out` points to a writable bool.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lk_guard_is_closed(guard: *const LkGuard, out: *mut bool) -> LkStatus {
    // SAFETY: pointer contracts documented above.
    ffi!(out: out, guard: handle => put(out, guard.inner.is_closed()))
}

/// Writes a new handle to a copy of the guard's lease to `*out` (free it with
/// `lk_lease_free`).
///
/// # Safety
/// `guard` is a live handle; `out` points to a writable `LkLease *`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lk_guard_lease(guard: *const LkGuard, out: *mut *mut LkLease) -> LkStatus {
    // SAFETY: pointer contracts documented above.
    ffi!(out: out, guard: handle => {
        let inner = guard.inner.lease().clone();
        put_handle(out, LkLease { inner });
        Ok(())
    })
}

/// Writes the guard's effective (possibly inherited) expiry as an RFC 3339 string to
/// `*out`, or leaves `*out` NULL when the guard never expires.
///
/// # Safety
/// `guard` is a live handle; `out` points to a writable `char *`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lk_guard_expires_at(
    guard: *const LkGuard,
    out: *mut *mut c_char,
) -> LkStatus {
    // SAFETY: pointer contracts documented above.
    ffi!(out: out, guard: handle => {
        let expires_at = guard.inner.expires_at();
        expires_at.map_or(Ok(()), |t| put_string(out, t.to_rfc3339()))
    })
}
