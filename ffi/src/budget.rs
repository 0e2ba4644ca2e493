//! Budget entries (`CURRENCY:AMOUNT`), exact decimal amounts and their comparison.

use std::ffi::c_char;

use leasekit::wire;

use crate::boundary::ffi;
use crate::error::LkStatus;
use crate::text::{put, put_json, put_string};

/// Parses a budget entry such as `"USD:2.50"` and writes
/// `{"currency": "USD", "amount": "2.5"}` (amount normalized) to `*out_json`.
///
/// # Safety
/// `entry` is a NUL-terminated string; `out_json` points to a writable `char *`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lk_budget_parse(
    entry: *const c_char,
    out_json: *mut *mut c_char,
) -> LkStatus {
    // SAFETY: pointer contracts documented above.
    ffi!(out_json: out, entry: str => {
        let parsed = leasekit::parse_budget_amount(entry)?;
        put_json(out_json, &wire::BudgetEntryAnswer::from(&parsed).to_value())
    })
}

/// Sums `len` budget entries per currency and writes `{"USD": "3", ...}` to `*out_json`.
/// Any invalid entry, or a sum too large to be exact, gives `LK_INVALID_REQUEST`.
///
/// # Safety
/// `entries` points to `len` NUL-terminated strings (may be NULL when `len` is 0);
/// `out_json` points to a writable `char *`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lk_budget_sum(
    entries: *const *const c_char,
    len: usize,
    out_json: *mut *mut c_char,
) -> LkStatus {
    // SAFETY: pointer contracts documented above.
    ffi!(out_json: out, entries: strs(len) => {
        put_string(out_json, wire::amounts_json(&leasekit::sum_budget_entries(&entries)?))
    })
}

/// Parses an AMOUNT (`"2.50"`: digits, optional fraction, no sign or exponent) and
/// writes its normalized form (`"2.5"`) to `*out`.
///
/// # Safety
/// `amount` is a NUL-terminated string; `out` points to a writable `char *`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lk_amount_normalize(
    amount: *const c_char,
    out: *mut *mut c_char,
) -> LkStatus {
    // SAFETY: pointer contracts documented above.
    ffi!(out: out, amount: str => {
        put_string(out, leasekit::format_amount(&leasekit::parse_amount(amount)?))
    })
}

/// Compares two exact decimals (AMOUNT syntax with an optional leading `-`, as
/// remaining amounts may be negative): `*out` is -1, 0 or 1 as `a` is below, equal to
/// or above `b` (`"0.30"` equals `"0.3"`).
///
/// # Safety
/// `a` and `b` are NUL-terminated strings; `out` points to a writable int.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lk_decimal_compare(
    a: *const c_char,
    b: *const c_char,
    out: *mut i32,
) -> LkStatus {
    // SAFETY: pointer contracts documented above.
    ffi!(out: out, a: str, b: str => {
        put(out, leasekit::parse_decimal(a)?.cmp(&leasekit::parse_decimal(b)?) as i32)
    })
}
