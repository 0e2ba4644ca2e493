//! `lk_lint_lease`: lease-writing mistakes (core's `lint_lease_json`).

use std::ffi::c_char;

use crate::boundary::call;
use crate::error::LkStatus;
use crate::text::{arg_str, out_slot, put_string};

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
