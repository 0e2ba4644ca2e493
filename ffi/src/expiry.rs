//! Strict `expires_at` timestamps and lease constraints.

use std::ffi::c_char;

use leasekit::{Clock, Result, SystemClock, Timestamp};

use crate::boundary::ffi;
use crate::convert;
use crate::error::LkStatus;
use crate::text::put_string;

/// Parses a strict `YYYY-MM-DDTHH:MM:SS[.f{1,9}]Z` timestamp and writes its normalized
/// RFC 3339 form (trimmed fraction) to `*out`.
///
/// # Safety
/// `text` is a NUL-terminated string; `out` points to a writable `char *`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lk_parse_expires_at(
    text: *const c_char,
    out: *mut *mut c_char,
) -> LkStatus {
    // SAFETY: pointer contracts documented above.
    ffi!(out: out, text: str => put_string(out, leasekit::parse_expires_at(text)?.to_rfc3339()))
}

/// Validates lease constraints (`{"expires_at": "..."}`, NULL or `{}` for none) at
/// submit time: `expires_at` must parse strictly and be after `now` (a strict
/// timestamp; NULL means the system clock). `LK_OK` or `LK_INVALID_REQUEST`.
///
/// # Safety
/// `constraints_json` and `now` are NULL or NUL-terminated strings.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lk_validate_lease_constraints(
    constraints_json: *const c_char,
    now: *const c_char,
) -> LkStatus {
    // SAFETY: pointer contracts documented above.
    ffi!(constraints_json: opt_str, now: opt_str => {
        let constraints = convert::constraints(constraints_json)?;
        leasekit::validate_lease_constraints(&constraints, now_or_system(now)?)
    })
}

/// Validates a bare `expires_at` value against `now` (both strict timestamps; `now`
/// NULL means the system clock): `LK_OK` when `value` parses and is strictly after
/// `now`, else `LK_INVALID_REQUEST`.
///
/// # Safety
/// `value` is a NUL-terminated string; `now` is NULL or a NUL-terminated string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lk_validate_expires_at(
    value: *const c_char,
    now: *const c_char,
) -> LkStatus {
    // SAFETY: pointer contracts documented above.
    ffi!(value: str, now: opt_str => {
        let expires_at = Some(leasekit::parse_expires_at(value)?);
        let constraints = leasekit::LeaseConstraints { expires_at };
        leasekit::validate_lease_constraints(&constraints, now_or_system(now)?)
    })
}

/// `now` as a strict timestamp, or the system clock's time when NULL.
pub(crate) fn now_or_system(now: Option<&str>) -> Result<Timestamp> {
    now.map_or_else(|| SystemClock.now(), leasekit::parse_expires_at)
}
