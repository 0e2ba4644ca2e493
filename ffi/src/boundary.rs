//! The panic-catching boundary every exported function goes through, the thread-local
//! last error, and the move of result strings to the C heap (freed by `lk_string_free`).

use std::cell::RefCell;
use std::ffi::{CString, c_char};
use std::panic::{AssertUnwindSafe, catch_unwind};

use leasekit::{Error, ErrorCode, Result};

use crate::error::LkStatus;

thread_local! {
    static LAST_ERROR: RefCell<Option<Error>> = const { RefCell::new(None) };
}

fn set_last_error(error: Option<Error>) {
    // `try_with` fails only while the thread is being torn down; nothing to keep then.
    let _ = LAST_ERROR.try_with(|slot| *slot.borrow_mut() = error);
}

/// Runs `body` as one exported call: clears the last error, catches panics (reported
/// as `INTERNAL_ERROR`), stores any error as the last error and returns its status.
pub(crate) fn call<F: FnOnce() -> Result<()>>(body: F) -> LkStatus {
    set_last_error(None);
    let outcome = catch_unwind(AssertUnwindSafe(body))
        .unwrap_or_else(|payload| Err(Error::internal_from_panic(payload.as_ref())));
    match outcome {
        Ok(()) => LkStatus::LK_OK,
        Err(error) => {
            let status = LkStatus::from(error.code());
            set_last_error(Some(error));
            status
        }
    }
}

/// One exported call: [`call`] around the argument conversions of `crate::text::args!` (same
/// syntax, before `=>`) and the body, whose `?` reports the first failure. rustfmt leaves the
/// invocations alone: keep them within 100 columns by hand. cbindgen still sees every exported
/// function, since only its body is a macro.
macro_rules! ffi {
    ($($name:ident: $kind:ident $(($len:ident))?),* => $body:expr) => {
        $crate::boundary::call(|| {
            $crate::text::args!($($name: $kind $(($len))?),*);
            $body
        })
    };
}
pub(crate) use ffi;

/// Runs a function that cannot report an error (the `*_free` functions): panics are
/// swallowed so they never unwind into the host.
pub(crate) fn call_void<F: FnOnce()>(body: F) {
    let _ = catch_unwind(AssertUnwindSafe(body));
}

/// Moves a Rust string to the C heap (free with `lk_string_free`).
pub(crate) fn into_c_string(s: impl Into<Vec<u8>>) -> Result<*mut c_char> {
    CString::new(s).map(CString::into_raw).map_err(|_| {
        Error::new(
            ErrorCode::InternalError,
            "result contains a NUL byte and cannot be returned as a C string",
        )
    })
}

/// The error of the last failed leasekit call on this thread as an owned JSON string
/// `{"code": "...", "message": "...", "retryable": bool, "details": {...}}`, or NULL
/// when the last call succeeded. Free the string with `lk_string_free`. Reading the
/// error does not clear it.
#[unsafe(no_mangle)]
pub extern "C" fn lk_last_error_json() -> *mut c_char {
    catch_unwind(|| {
        LAST_ERROR
            .try_with(|slot| {
                slot.borrow()
                    .as_ref()
                    .and_then(|e| into_c_string(e.to_json().to_string()).ok())
            })
            .ok()
            .flatten()
            .unwrap_or(std::ptr::null_mut())
    })
    .unwrap_or(std::ptr::null_mut())
}

/// The status of the last failed leasekit call on this thread, or `LK_OK` when the
/// last call succeeded.
#[unsafe(no_mangle)]
pub extern "C" fn lk_last_error_code() -> LkStatus {
    catch_unwind(|| {
        LAST_ERROR
            .try_with(|slot| slot.borrow().as_ref().map(|e| LkStatus::from(e.code())))
            .ok()
            .flatten()
            .unwrap_or(LkStatus::LK_OK)
    })
    .unwrap_or(LkStatus::LK_INTERNAL_ERROR)
}

#[cfg(test)]
mod tests {
    use super::*;
    use leasekit::ErrorCode;

    #[test]
    fn a_panic_becomes_internal_error_with_last_error_json() {
        let status = call(|| panic!("boom"));
        assert_eq!(status, LkStatus::LK_INTERNAL_ERROR);
        assert_eq!(lk_last_error_code(), LkStatus::LK_INTERNAL_ERROR);
        let json = lk_last_error_json();
        assert!(!json.is_null());
        let text = unsafe { std::ffi::CStr::from_ptr(json) }
            .to_str()
            .unwrap()
            .to_owned();
        unsafe { crate::lk_string_free(json) };
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(value["code"], "INTERNAL_ERROR");
        assert_eq!(value["retryable"], true);
    }

    #[test]
    fn success_clears_the_last_error() {
        let status = call(|| Err(Error::new(ErrorCode::PermissionDenied, "no")));
        assert_eq!(status, LkStatus::LK_PERMISSION_DENIED);
        assert_eq!(lk_last_error_code(), LkStatus::LK_PERMISSION_DENIED);
        assert_eq!(call(|| Ok(())), LkStatus::LK_OK);
        assert!(lk_last_error_json().is_null());
        assert_eq!(lk_last_error_code(), LkStatus::LK_OK);
    }
}
