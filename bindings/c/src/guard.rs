//! The `LkGuard` handle: a lease enforced at run time (authorize, metrics, budgets,
//! delegation), on the system clock or a manual clock.

use std::ffi::c_char;
use std::sync::Arc;

use leasekit::{
    Clock, Error, ErrorCode, GuardOptions, LeaseGuard, ManualClock, Result, SystemClock, Timestamp,
    wire,
};

use crate::boundary::call;
use crate::convert;
use crate::error::LkStatus;
use crate::lease::LkLease;
use crate::text::{
    arg_handle, arg_str, arg_str_n, free_handle, opt_arg_str, opt_out_slot, out_slot, put_handle,
    put_string,
};

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
    let (slot, lease, constraints, options) = unsafe {
        (
            out_slot(out, "out")?,
            arg_handle(lease, "lease")?,
            opt_arg_str(constraints_json, "constraints_json")?,
            opt_arg_str(options_json, "options_json")?,
        )
    };
    let constraints = convert::constraints(constraints)?;
    let options = match options {
        Some(text) => wire::GuardOptions::from_json(text)?.to_core(),
        None => GuardOptions::default(),
    };
    let (clock, manual): (Arc<dyn Clock>, _) = match manual_now {
        None => (Arc::new(SystemClock), None),
        Some(now) => {
            // SAFETY: pointer contract of lk_guard_new_manual_clock.
            let start = match unsafe { opt_arg_str(now, "now")? } {
                Some(text) => leasekit::parse_expires_at(text)?,
                None => SystemClock.now()?,
            };
            let clock = Arc::new(ManualClock::new(start));
            (clock.clone(), Some(clock))
        }
    };
    let inner = LeaseGuard::with_options(lease.inner.clone(), constraints, clock, options);
    put_handle(slot, LkGuard { inner, manual });
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
    call(|| {
        // SAFETY: pointer contracts documented above.
        let (guard, now) = unsafe { (arg_handle(guard, "guard")?, arg_str(now, "now")?) };
        let clock = guard.manual.as_ref().ok_or_else(|| {
            Error::new(
                ErrorCode::InvalidRequest,
                "guard runs on the system clock, not a manual clock",
            )
        })?;
        let at: Timestamp = leasekit::parse_expires_at(now)?;
        clock.set(at);
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

fn authorize(
    guard: *const LkGuard,
    capability: Result<&str>,
    target: Result<&str>,
    out_canonical: *mut *mut c_char,
) -> Result<()> {
    // SAFETY: pointer contracts of the exported functions.
    let (slot, guard) = unsafe { (opt_out_slot(out_canonical), arg_handle(guard, "guard")?) };
    // Borrowed when already canonical: no allocation unless the caller asked for the text.
    let canonical = guard.inner.authorize_cow(capability?, target?)?;
    slot.map_or(Ok(()), |s| put_string(s, &*canonical))
}

fn authorize_model(
    guard: *const LkGuard,
    model: Result<&str>,
    out_canonical: *mut *mut c_char,
) -> Result<()> {
    // SAFETY: pointer contracts of the exported functions.
    let (slot, guard) = unsafe { (opt_out_slot(out_canonical), arg_handle(guard, "guard")?) };
    let canonical = guard.inner.authorize_model(model?)?;
    slot.map_or(Ok(()), |s| put_string(s, canonical))
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
    call(|| {
        // SAFETY: pointer contracts documented above.
        let (capability, target) =
            unsafe { (arg_str(capability, "capability"), arg_str(target, "target")) };
        authorize(guard, capability, target, out_canonical)
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
    call(|| {
        // SAFETY: pointer contracts documented above.
        let (capability, target) = unsafe {
            (
                arg_str_n(capability, capability_len, "capability"),
                arg_str_n(target, target_len, "target"),
            )
        };
        authorize(guard, capability, target, out_canonical)
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
    call(|| {
        authorize_model(
            guard,
            unsafe { arg_str(model_id, "model_id") },
            out_canonical,
        )
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
    call(|| {
        // SAFETY: pointer contracts documented above.
        let model = unsafe { arg_str_n(model_id, model_id_len, "model_id") };
        authorize_model(guard, model, out_canonical)
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
    call(|| {
        // SAFETY: pointer contracts documented above.
        let (slot, guard, name, value, unit) = unsafe {
            (
                opt_out_slot(out_emitted_json),
                arg_handle(guard, "guard")?,
                arg_str(name, "name")?,
                arg_str(value, "value")?,
                arg_str(unit, "unit")?,
            )
        };
        let emitted = guard.inner.record_metric(name, value, unit)?;
        slot.map_or(Ok(()), |s| put_string(s, wire::metrics_json(&emitted)?))
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
    call(|| {
        // SAFETY: pointer contracts documented above.
        let (slot, guard, currency, amount) = unsafe {
            (
                opt_out_slot(out_emitted_json),
                arg_handle(guard, "guard")?,
                arg_str(currency, "currency")?,
                arg_str(amount, "amount")?,
            )
        };
        let emitted = guard
            .inner
            .reserve(currency, leasekit::parse_amount(amount)?)?;
        slot.map_or(Ok(()), |s| put_string(s, wire::metrics_json(&emitted)?))
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
    call(|| {
        // SAFETY: pointer contracts documented above.
        let (slot, guard) =
            unsafe { (out_slot(out_json, "out_json")?, arg_handle(guard, "guard")?) };
        put_string(slot, wire::amounts_json(&guard.inner.remaining()))
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
    call(|| {
        // SAFETY: pointer contracts documented above.
        let (slot, guard, child, constraints) = unsafe {
            (
                out_slot(out, "out")?,
                arg_handle(guard, "guard")?,
                arg_handle(child, "child")?,
                opt_arg_str(child_constraints_json, "child_constraints_json")?,
            )
        };
        let inner = guard
            .inner
            .delegate(child.inner.clone(), convert::constraints(constraints)?)?;
        put_handle(
            slot,
            LkGuard {
                inner,
                manual: guard.manual.clone(),
            },
        );
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
    call(|| {
        // SAFETY: pointer contracts documented above.
        let (slot, guard) =
            unsafe { (opt_out_slot(out_emitted_json), arg_handle(guard, "guard")?) };
        let emitted = guard.inner.close();
        slot.map_or(Ok(()), |s| put_string(s, wire::metrics_json(&emitted)?))
    })
}

/// Sets `*out` to whether the guard has been closed.
///
/// # Safety
/// `guard` is a live handle; `out` points to a writable bool.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lk_guard_is_closed(guard: *const LkGuard, out: *mut bool) -> LkStatus {
    call(|| {
        // SAFETY: pointer contracts documented above.
        let (slot, guard) = unsafe { (out_slot(out, "out")?, arg_handle(guard, "guard")?) };
        *slot = guard.inner.is_closed();
        Ok(())
    })
}

/// Writes a new handle to a copy of the guard's lease to `*out` (free it with
/// `lk_lease_free`).
///
/// # Safety
/// `guard` is a live handle; `out` points to a writable `LkLease *`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lk_guard_lease(guard: *const LkGuard, out: *mut *mut LkLease) -> LkStatus {
    call(|| {
        // SAFETY: pointer contracts documented above.
        let (slot, guard) = unsafe { (out_slot(out, "out")?, arg_handle(guard, "guard")?) };
        put_handle(
            slot,
            LkLease {
                inner: guard.inner.lease().clone(),
            },
        );
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
    call(|| {
        // SAFETY: pointer contracts documented above.
        let (slot, guard) = unsafe { (out_slot(out, "out")?, arg_handle(guard, "guard")?) };
        match guard.inner.expires_at() {
            Some(t) => put_string(slot, t.to_rfc3339()),
            None => Ok(()),
        }
    })
}
