//! The `LkLease` handle: construction from JSON, JSON out, budget, subset, and
//! `lk_lint_lease` (lease-writing mistakes, core's `lint_lease_json`).

use std::ffi::c_char;

use leasekit::{Lease, SubsetOptions, wire};

use crate::boundary::call;
use crate::convert;
use crate::error::LkStatus;
use crate::text::{
    arg_handle, arg_str, free_handle, opt_arg_str, out_slot, put_handle, put_string,
};

/// An opaque, validated ARCP lease (capability name -> patterns). Create it with
/// `lk_lease_from_json`, free it with `lk_lease_free`. Immutable, so it may be shared
/// between threads.
pub struct LkLease {
    pub(crate) inner: Lease,
}

/// Builds a lease from its ARCP JSON text (`{"fs.read": ["/data/**"], ...}`), validating
/// its shape (SEMANTICS section 2) and storing canonical patterns. Writes a new handle
/// to `*out`.
///
/// # Safety
/// `json` is a NUL-terminated string; `out` points to a writable `LkLease *`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lk_lease_from_json(
    json: *const c_char,
    out: *mut *mut LkLease,
) -> LkStatus {
    call(|| {
        // SAFETY: pointer contracts documented above.
        let (slot, json) = unsafe { (out_slot(out, "out")?, arg_str(json, "json")?) };
        put_handle(
            slot,
            LkLease {
                inner: Lease::from_json(json)?,
            },
        );
        Ok(())
    })
}

/// Frees a lease. NULL is ignored.
///
/// # Safety
/// `lease` is NULL or a handle from this library not freed before.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lk_lease_free(lease: *mut LkLease) {
    // SAFETY: forwarded contract.
    unsafe { free_handle(lease) }
}

/// Writes the lease as ARCP JSON (with its stored, canonical patterns) to `*out`.
///
/// # Safety
/// `lease` is a live handle; `out` points to a writable `char *`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lk_lease_to_json(
    lease: *const LkLease,
    out: *mut *mut c_char,
) -> LkStatus {
    call(|| {
        // SAFETY: pointer contracts documented above.
        let (slot, lease) = unsafe { (out_slot(out, "out")?, arg_handle(lease, "lease")?) };
        put_string(slot, lease.inner.to_json())
    })
}

/// Writes the lease's summed `cost.budget` as `{"USD": "2.5", ...}` to `*out`.
///
/// # Safety
/// `lease` is a live handle; `out` points to a writable `char *`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lk_lease_budget_json(
    lease: *const LkLease,
    out: *mut *mut c_char,
) -> LkStatus {
    call(|| {
        // SAFETY: pointer contracts documented above.
        let (slot, lease) = unsafe { (out_slot(out, "out")?, arg_handle(lease, "lease")?) };
        put_string(
            slot,
            wire::amounts_json(&leasekit::initial_budget(&lease.inner)),
        )
    })
}

/// Checks the shape of a lease given as JSON text without keeping it: `LK_OK` or
/// `LK_INVALID_REQUEST`.
///
/// # Safety
/// `json` is a NUL-terminated string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lk_validate_lease_shape(json: *const c_char) -> LkStatus {
    call(|| {
        // SAFETY: pointer contract documented above.
        let text = unsafe { arg_str(json, "json")? };
        leasekit::validate_lease_shape(&convert::parse(text, "json")?)
    })
}

/// Checks `child <= parent` (SEMANTICS section 9). `options_json` may be NULL or
/// `{"parent_remaining": {"USD": "1.5"}, "child_constraints": {"expires_at": "..."},
/// "parent_constraints": {...}}` (every key optional). Returns `LK_OK` when the child is
/// a subset, `LK_LEASE_SUBSET_VIOLATION` with details `{capability, pattern, witness}`
/// (or currency/expiry fields) in the last error when not, `LK_INVALID_REQUEST` on bad
/// options.
///
/// # Safety
/// `child` and `parent` are live handles; `options_json` is NULL or a NUL-terminated
/// string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lk_lease_check_subset(
    child: *const LkLease,
    parent: *const LkLease,
    options_json: *const c_char,
) -> LkStatus {
    call(|| {
        // SAFETY: pointer contracts documented above.
        let (child, parent, options) = unsafe {
            (
                arg_handle(child, "child")?,
                arg_handle(parent, "parent")?,
                opt_arg_str(options_json, "options_json")?,
            )
        };
        with_subset_options(options, |opts| {
            leasekit::check_lease_subset(&child.inner, &parent.inner, opts)
        })
    })
}

/// Sets `*out` to whether `child <= parent`, with the options of
/// `lk_lease_check_subset`. Fails only on bad arguments (`LK_INVALID_REQUEST`).
///
/// # Safety
/// `child` and `parent` are live handles; `options_json` is NULL or a NUL-terminated
/// string; `out` points to a writable bool.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lk_lease_is_subset(
    child: *const LkLease,
    parent: *const LkLease,
    options_json: *const c_char,
    out: *mut bool,
) -> LkStatus {
    call(|| {
        // SAFETY: pointer contracts documented above.
        let (slot, child, parent, options) = unsafe {
            (
                out_slot(out, "out")?,
                arg_handle(child, "child")?,
                arg_handle(parent, "parent")?,
                opt_arg_str(options_json, "options_json")?,
            )
        };
        *slot = with_subset_options(options, |opts| {
            Ok(leasekit::is_lease_subset(&child.inner, &parent.inner, opts))
        })?;
        Ok(())
    })
}

/// Reads the subset options JSON (core's `wire::SubsetOptions`) and runs `f` with them.
fn with_subset_options<T>(
    text: Option<&str>,
    f: impl FnOnce(&SubsetOptions) -> leasekit::Result<T>,
) -> leasekit::Result<T> {
    let options = match text {
        Some(text) => wire::SubsetOptions::from_json(text)?,
        None => wire::SubsetOptions::default(),
    };
    f(&options.as_core())
}

/// Lints a lease (JSON text): writes `{"warnings":[{"code","capability","pattern","message",
/// "hint"}, ...]}` to `*out_json` (an empty list for a clean lease). Codes are stable
/// (`host-open-suffix`, `scheme-wildcard`, ...; docs/security.md). An invalid lease is
/// `LK_INVALID_REQUEST`. Lint never changes what a lease grants.
///
/// # Safety
/// `lease_json` is a NUL-terminated string; `out_json` points to a writable `char *`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lk_lint_lease(
    lease_json: *const c_char,
    out_json: *mut *mut c_char,
) -> LkStatus {
    call(|| {
        // SAFETY: pointer contracts documented above.
        let (slot, lease) = unsafe {
            (
                out_slot(out_json, "out_json")?,
                arg_str(lease_json, "lease_json")?,
            )
        };
        put_string(slot, leasekit::lint_lease_json(lease)?)
    })
}
