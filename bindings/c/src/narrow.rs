//! Narrowing a requested lease to a ceiling at submit time.

use std::ffi::c_char;

use crate::boundary::call;
use crate::convert;
use crate::error::LkStatus;
use crate::lease::LkLease;
use leasekit::wire;

use crate::text::{
    arg_handle, opt_arg_str, opt_out_slot, out_slot, put_handle, put_json, put_string,
};

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
    call(|| {
        // SAFETY: pointer contracts documented above.
        let (reductions_slot, slot, requested, ceiling) = unsafe {
            (
                opt_out_slot(out_reductions_json),
                out_slot(out_lease, "out_lease")?,
                arg_handle(requested, "requested")?,
                arg_handle(ceiling, "ceiling")?,
            )
        };
        let narrowed = leasekit::narrow_lease(&requested.inner, &ceiling.inner)?;
        if let Some(s) = reductions_slot {
            put_string(s, wire::reductions_json(&narrowed.reductions)?)?;
        }
        put_handle(
            slot,
            LkLease {
                inner: narrowed.lease,
            },
        );
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
    call(|| {
        // SAFETY: pointer contracts documented above.
        let (slot, requested, ceiling) = unsafe {
            (
                out_slot(out_json, "out_json")?,
                opt_arg_str(requested_json, "requested_json")?,
                opt_arg_str(ceiling_json, "ceiling_json")?,
            )
        };
        let narrowed = leasekit::narrow_constraints(
            &convert::constraints(requested)?,
            &convert::constraints(ceiling)?,
        );
        put_json(slot, &wire::constraints_value(&narrowed))
    })
}
