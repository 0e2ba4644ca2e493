//! How the fast path fails. Errors are core's, converted by `error.rs` like those of every
//! other function (`napi::Error<ArcpCode>`), and thrown as a plain `{code, message}` object
//! (see [`throw`]) that `index.js` converts like every other native error.

use std::ffi::{CStr, CString, c_char};
use std::ptr;

use leasekit::{Error, ErrorCode};
use napi::sys::{self, Status, napi_env, napi_value};

use crate::error::{ArcpCode, bad_argument, to_js_error};
use crate::text::{self, NotText};

/// An error to throw: its `status` is the `code` property, its `reason` the message.
pub(super) type Thrown = napi::Error<ArcpCode>;

/// The error for an argument that is not text: a non-string is thrown with napi-rs's status
/// name, as napi-rs does for every argument of the wrong type; a lone surrogate as core's
/// `INVALID_REQUEST` (the one text rule, `text::read_text`).
pub(super) fn not_text(what: &str, why: NotText) -> Thrown {
    match why {
        NotText::NotAString => bad_argument(what, "a string"),
        why => to_js_error(&text::not_text(what, why)),
    }
}

/// A new JavaScript string.
pub(super) fn new_string(env: napi_env, text: &str) -> Result<napi_value, Thrown> {
    let mut out = ptr::null_mut();
    // SAFETY: `text` is valid UTF-8 of the given length.
    let status = unsafe {
        sys::napi_create_string_utf8(
            env,
            text.as_ptr().cast::<c_char>(),
            text.len() as isize,
            &mut out,
        )
    };
    if status != Status::napi_ok {
        return Err(to_js_error(&Error::new(
            ErrorCode::InternalError,
            "cannot create a string",
        )));
    }
    Ok(out)
}

/// Throws `thrown` (unless an exception is already pending, e.g. from the clock) and
/// returns the `undefined` placeholder Node expects.
///
/// What is thrown is a plain `{code, message}` object, not an `Error`: `index.js` always
/// converts it into a `LeaseError` subclass, and skipping the native `Error` saves a stack
/// capture, the dearest part of a denial.
pub(super) fn throw(env: napi_env, thrown: Thrown) -> napi_value {
    let mut pending = false;
    // SAFETY: plain Node-API calls on this call's env; strings are valid UTF-8.
    unsafe {
        sys::napi_is_exception_pending(env, &mut pending);
        if pending {
            return ptr::null_mut();
        }
        let mut obj = ptr::null_mut();
        let made = sys::napi_create_object(env, &mut obj) == Status::napi_ok
            && set_string(env, obj, c"code", thrown.status.as_ref())
            && set_string(env, obj, c"message", &thrown.reason);
        if made {
            sys::napi_throw(env, obj);
        } else {
            let code = CString::new(thrown.status.as_ref()).unwrap_or_default();
            let message = CString::new(thrown.reason.replace('\0', " ")).unwrap_or_default();
            sys::napi_throw_error(env, code.as_ptr(), message.as_ptr());
        }
    }
    ptr::null_mut()
}

/// `obj[name] = text`; false on failure.
unsafe fn set_string(env: napi_env, obj: napi_value, name: &CStr, text: &str) -> bool {
    match new_string(env, text) {
        // SAFETY: live values of this call; `name` is NUL-terminated.
        Ok(value) => unsafe {
            sys::napi_set_named_property(env, obj, name.as_ptr(), value) == Status::napi_ok
        },
        Err(_) => false,
    }
}
