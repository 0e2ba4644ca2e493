//! How the fast path fails. Errors are core's, converted by `error.rs` like those of every
//! other function (`napi::Error<ArcpCode>`), and thrown as a plain `{code, message}` object
//! (see [`throw`]) that `index.js` converts like every other native error.

use std::ptr;

use leasekit::{Error, ErrorCode};
use napi::Env;
use napi::bindgen_prelude::{JsObjectValue, Object, ToNapiValue};
use napi::sys::{self, napi_env, napi_value};

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
    // SAFETY: the env of this call.
    unsafe { <&str>::to_napi_value(env, text) }.map_err(|_| {
        to_js_error(&Error::new(
            ErrorCode::InternalError,
            "cannot create a string",
        ))
    })
}

/// Throws `thrown` (unless an exception is already pending, e.g. from the clock) and
/// returns the `undefined` placeholder Node expects.
///
/// What is thrown is a plain `{code, message}` object, not an `Error`: `index.js` always
/// converts it into a `LeaseError` subclass, and skipping the native `Error` saves a stack
/// capture, the dearest part of a denial.
pub(super) fn throw(env: napi_env, thrown: Thrown) -> napi_value {
    let mut pending = false;
    // SAFETY: a plain query on this call's env.
    unsafe { sys::napi_is_exception_pending(env, &mut pending) };
    if !pending {
        let (env, code) = (Env::from_raw(env), thrown.status.as_ref());
        let obj = Object::new(&env).and_then(|mut obj| {
            obj.set_c_named_property(c"code", code)?;
            obj.set_c_named_property(c"message", thrown.reason.as_str())?;
            Ok(obj)
        });
        let _ = match obj {
            Ok(obj) => env.throw(obj),
            Err(_) => env.throw_error(&thrown.reason.replace('\0', " "), Some(code)),
        };
    }
    ptr::null_mut()
}
