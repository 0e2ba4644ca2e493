//! The one place where core results cross into JavaScript: panics are caught and every
//! core error becomes a JavaScript `Error` whose `code` is the ARCP code and whose
//! message is the core error's JSON (`{"code","message","retryable","details"}`).

use std::panic::{AssertUnwindSafe, catch_unwind};

use leasekit::Error;

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

/// Runs `f`, turning a core error or a panic into a thrown JavaScript error
/// (a panic becomes `INTERNAL_ERROR`), so nothing unwinds across the boundary.
pub fn run<T>(f: impl FnOnce() -> leasekit::Result<T>) -> Result<T> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(err)) => Err(to_js_error(&err)),
        Err(payload) => Err(to_js_error(&Error::internal_from_panic(&*payload))),
    }
}
