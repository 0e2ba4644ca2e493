//! Narrowing a requested lease to a ceiling at submit time.

use std::ffi::c_char;

use crate::boundary::ffi;
use crate::convert;
use crate::error::LkStatus;
use crate::lease::LkLease;
use leasekit::wire;

use crate::text::{put_handle, put_json, put_opt};

/// Narrows `requested` to `ceiling` (SEMANTICS section 10): writes the effective lease
/// to `*out_lease` and, when `out_reductions_json` is not NULL, the reductions as a
/// JSON array `[{"capability", "pattern", "action", "replacement"}]`.
///
/// # Safety
/// `requested` and `ceiling` are live handles; `out_lease` points to a writable
/// `LkLease *`; `out_reductions_json` is NULL or points to a writable `char *`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lk_narrow_lease(
    requested: *const LkLease,
    ceiling: *const LkLease,
    out_lease: *mut *mut LkLease,
    out_reductions_json: *mut *mut c_char,
) -> LkStatus {
    // SAFETY: pointer contracts documented above.
    ffi!(out_reductions_json: opt_out, out_lease: out, requested: handle, ceiling: handle => {
        let narrowed = leasekit::narrow_lease(&requested.inner, &ceiling.inner)?;
        put_opt(out_reductions_json, || wire::reductions_json(&narrowed.reductions))?;
        let inner = narrowed.lease;
        put_handle(out_lease, LkLease { inner });
        Ok(())
    })
}

/// Narrows lease constraints: writes `{"expires_at": ...}` with the earlier expiry of
/// `requested_json` and `ceiling_json` (each NULL or a constraints object) to `*out_json`.
///
/// # Safety
/// `requested_json` and `ceiling_json` are NULL or NUL-terminated strings; `out_json`
/// points to a writable `char *`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lk_narrow_constraints(
    requested_json: *const c_char,
    ceiling_json: *const c_char,
    out_json: *mut *mut c_char,
) -> LkStatus {
    // SAFETY: pointer contracts documented above.
    ffi!(out_json: out, requested_json: opt_str, ceiling_json: opt_str => {
        let requested = convert::constraints(requested_json)?;
        let ceiling = convert::constraints(ceiling_json)?;
        let narrowed = leasekit::narrow_constraints(&requested, &ceiling);
        put_json(out_json, &wire::constraints_value(&narrowed))
    })
}
