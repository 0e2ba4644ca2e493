//! JSON text arguments: parsing C strings as JSON. The shapes themselves (options, amount maps,
//! answers) are core's `leasekit::wire`.

use leasekit::{Error, LeaseConstraints, Result};
use serde_json::Value;

/// Parses a JSON argument.
pub(crate) fn parse(text: &str, what: &str) -> Result<Value> {
    serde_json::from_str(text).map_err(|e| Error::invalid(format!("{what} is not valid JSON: {e}")))
}

/// Lease constraints from optional JSON text (`{"expires_at": "..."}`; NULL = none).
pub(crate) fn constraints(text: Option<&str>) -> Result<LeaseConstraints> {
    match text {
        None => Ok(LeaseConstraints::none()),
        Some(t) => LeaseConstraints::from_json(t),
    }
}

/// Any serializable core result as a JSON value.
pub(crate) fn to_value<T: serde::Serialize>(value: &T) -> Result<Value> {
    serde_json::to_value(value).map_err(|e| {
        Error::new(
            leasekit::ErrorCode::InternalError,
            format!("cannot serialize result: {e}"),
        )
    })
}
