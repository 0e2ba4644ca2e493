//! The `LkLease` handle: construction from JSON, JSON out, budget, subset, and
//! `lk_lint_lease` (lease-writing mistakes, core's `lint_lease_json`).

use std::ffi::c_char;

use leasekit::{Lease, wire};

use crate::boundary::ffi;
use crate::convert;
use crate::error::LkStatus;
use crate::text::{free_handle, put, put_handle, put_string};

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
    // SAFETY: pointer contracts documented above.
    ffi!(out: out, json: str => {
        let inner = Lease::from_json(json)?;
        put_handle(out, LkLease { inner });
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
    // SAFETY: pointer contracts documented above.
    ffi!(out: out, lease: handle => put_string(out, lease.inner.to_json()))
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
    // SAFETY: pointer contracts documented above.
    ffi!(out: out, lease: handle => {
        put_string(out, wire::amounts_json(&leasekit::initial_budget(&lease.inner)))
    })
}

/// Checks the shape of a lease given as JSON text without keeping it: `LK_OK` or
/// `LK_INVALID_REQUEST`.
///
/// # Safety
/// `json` is a NUL-terminated string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lk_validate_lease_shape(json: *const c_char) -> LkStatus {
    // SAFETY: pointer contracts documented above.
    ffi!(json: str => leasekit::validate_lease_shape(&convert::parse(json, "json")?))
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
    // SAFETY: pointer contracts documented above.
    ffi!(child: handle, parent: handle, options_json: opt_str => {
        let options = subset_options(options_json)?;
        leasekit::check_lease_subset(&child.inner, &parent.inner, &options.as_core())
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
    // SAFETY: pointer contracts documented above.
    ffi!(out: out, child: handle, parent: handle, options_json: opt_str => {
        let options = subset_options(options_json)?;
        put(out, leasekit::is_lease_subset(&child.inner, &parent.inner, &options.as_core()))
    })
}

/// The subset options (core's `wire::SubsetOptions`) from optional JSON text.
fn subset_options(text: Option<&str>) -> leasekit::Result<wire::SubsetOptions> {
    text.map_or_else(|| Ok(Default::default()), wire::SubsetOptions::from_json)
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
    // SAFETY: pointer contracts documented above.
    ffi!(out_json: out, lease_json: str => {
        put_string(out_json, leasekit::lint_lease_json(lease_json)?)
    })
}
