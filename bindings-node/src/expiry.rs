//! Expiry: strict `expires_at` parsing and the submit-time constraint check.

use leasekit::{Clock, SystemClock};
use napi_derive::napi;

use crate::convert::{JsArg, constraints_from_js};
use crate::error::{Result, run};
use crate::text::Text;

/// Parses an `expires_at` value strictly (`YYYY-MM-DDTHH:MM:SS[.f{1,9}]Z`) and returns it
/// in canonical RFC 3339 form (fraction trimmed). Throws `InvalidRequestError` otherwise.
#[napi]
pub fn parse_expires_at(#[napi(ts_arg_type = "string")] text: Text) -> Result<String> {
    run(|| leasekit::parse_expires_at(&text).map(|t| t.to_rfc3339()))
}

/// The submit-time rule: `constraints.expires_at`, when present, must be strictly after
/// `now` (default: the system clock). Throws `InvalidRequestError` otherwise.
#[napi(
    ts_args_type = "constraints: ConstraintsInput | undefined | null, now?: TimeInput | undefined | null"
)]
pub fn validate_lease_constraints(constraints: Option<JsArg>, now: Option<JsArg>) -> Result<()> {
    run(|| {
        let c = constraints_from_js(constraints.as_ref())?;
        let now = match &now {
            Some(value) => value.time()?,
            None => SystemClock.now()?,
        };
        leasekit::validate_lease_constraints(&c, now)
    })
}
