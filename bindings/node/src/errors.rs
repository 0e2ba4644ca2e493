//! The list of ARCP error codes the core knows, for the JavaScript error classes.

use leasekit::ErrorCode;
use napi_derive::napi;

use crate::boundary::{Result, run};

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
