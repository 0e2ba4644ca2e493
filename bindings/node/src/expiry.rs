//! Expiry: strict `expires_at` parsing and the submit-time constraint check.

use leasekit::{Clock, SystemClock};
use napi::bindgen_prelude::Unknown;
use napi_derive::napi;

use crate::boundary::{Result, run};
use crate::convert::{constraints_from_js, time_from_js};

/// Parses an `expires_at` value strictly (`YYYY-MM-DDTHH:MM:SS[.f{1,9}]Z`) and returns it
/// in canonical RFC 3339 form (fraction trimmed). Throws `InvalidRequestError` otherwise.
#[napi]
pub fn parse_expires_at(text: String) -> Result<String> {
    run(|| leasekit::parse_expires_at(&text).map(|t| t.to_rfc3339()))
}

/// The submit-time rule: `constraints.expires_at`, when present, must be strictly after
/// `now` (default: the system clock). Throws `InvalidRequestError` otherwise.
#[napi(
    ts_args_type = "constraints: ConstraintsInput | undefined | null, now?: TimeInput | undefined | null"
)]
pub fn validate_lease_constraints(
    constraints: Option<Unknown>,
    now: Option<Unknown>,
) -> Result<()> {
    run(|| {
        let c = constraints_from_js(constraints.as_ref())?;
        let now = match &now {
            Some(value) if !is_nullish(value) => time_from_js(value)?,
            _ => SystemClock.now()?,
        };
        leasekit::validate_lease_constraints(&c, now)
    })
}

/// Whether a JavaScript value is `undefined` or `null`.
pub fn is_nullish(value: &Unknown) -> bool {
    matches!(
        value.get_type(),
        Ok(napi::ValueType::Undefined | napi::ValueType::Null)
    )
}
