//! The one place where core results cross into JavaScript: panics are caught and every
//! core error becomes a JavaScript `Error` whose `code` is the ARCP code and whose
//! message is the core error's JSON (`{"code","message","retryable","details"}`); and the list
//! of ARCP error codes the core knows, for the JavaScript error classes.

use std::panic::{AssertUnwindSafe, catch_unwind};

use leasekit::{Error, ErrorCode};
use napi_derive::napi;

/// The `code` of a thrown JavaScript error: the stable ARCP code string.
#[derive(Clone, Copy, Debug)]
pub struct ArcpCode(&'static str);

impl AsRef<str> for ArcpCode {
    fn as_ref(&self) -> &str {
        self.0
    }
}

/// The result type of every exported function.
pub type Result<T> = napi::Result<T, ArcpCode>;

/// Converts a core error into the JavaScript error napi throws.
pub fn to_js_error(err: &Error) -> napi::Error<ArcpCode> {
    napi::Error::new(ArcpCode(err.code().as_str()), err.to_json().to_string())
}

/// An argument of the wrong JavaScript type, thrown with napi-rs's status name (`InvalidArg`)
/// as napi-rs does for every such argument; `index.js` maps it to `InvalidRequestError`.
pub(crate) fn bad_argument(what: &str, expected: &str) -> napi::Error<ArcpCode> {
    napi::Error::new(ArcpCode("InvalidArg"), format!("{what} must be {expected}"))
}

/// A core error as napi-rs's `InvalidArg`, for an argument conversion (`FromNapiValue`);
/// `index.js` maps it to `InvalidRequestError`.
pub(crate) fn invalid_arg(err: Error) -> napi::Error {
    napi::Error::new(napi::Status::InvalidArg, err.message().to_owned())
}

/// `INTERNAL_ERROR` for what cannot fail in practice (serializing an answer).
pub(crate) fn internal(err: impl std::fmt::Display) -> Error {
    Error::new(ErrorCode::InternalError, err.to_string())
}

/// Runs `f`, turning a core error or a panic into a thrown JavaScript error
/// (a panic becomes `INTERNAL_ERROR`), so nothing unwinds across the boundary.
pub fn run<T>(f: impl FnOnce() -> leasekit::Result<T>) -> Result<T> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(err)) => Err(to_js_error(&err)),
        Err(payload) => Err(to_js_error(&Error::internal_from_panic(&*payload))),
    }
}

/// One ARCP error code and whether it is retryable.
#[napi(object)]
pub struct ErrorCodeInfo {
    /// The stable code string, e.g. `"PERMISSION_DENIED"`.
    pub code: String,
    /// Whether a caller may retry an operation that failed with this code.
    pub retryable: bool,
}

/// Every ARCP error code of the core, in the core's order, with its `retryable` flag.
#[napi]
pub fn error_codes() -> Result<Vec<ErrorCodeInfo>> {
    run(|| {
        Ok(ErrorCode::ALL
            .iter()
            .map(|c| ErrorCodeInfo {
                code: c.as_str().to_owned(),
                retryable: c.retryable(),
            })
            .collect())
    })
}

/// The ARCP error payload of an error with `code`, `message` and `details`, in the core's one
/// shape (`{code, message, retryable}`, plus `details` when it has an entry; `retryable` is the
/// code's): `LeaseError.prototype.toPayload` in `index.js`. An unknown code or details that
/// are not an object are `INVALID_REQUEST`.
#[napi(js_name = "__errorPayload", skip_typescript)]
pub fn error_payload(
    code: String,
    message: String,
    details: serde_json::Value,
) -> Result<serde_json::Value> {
    run(|| {
        let code = ErrorCode::parse(&code)
            .ok_or_else(|| Error::invalid(format!("unknown ARCP error code {code:?}")))?;
        let serde_json::Value::Object(details) = details else {
            return Err(Error::invalid("error details must be an object"));
        };
        let mut err = Error::new(code, message);
        for (key, value) in details {
            err = err.with_detail(&key, value);
        }
        Ok(err.to_payload())
    })
}
