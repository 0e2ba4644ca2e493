//! JSON argument and result conversions shared by the exported functions.

use std::collections::BTreeMap;

use leasekit::{Decimal, Error, ErrorCode, LeaseConstraints, Result, format_amount};
use serde_json::{Map, Value};

fn invalid(message: String) -> Error {
    Error::new(ErrorCode::InvalidRequest, message)
}

/// Parses a JSON argument.
pub(crate) fn parse(text: &str, what: &str) -> Result<Value> {
    serde_json::from_str(text).map_err(|e| invalid(format!("{what} is not valid JSON: {e}")))
}

/// Parses an optional JSON object argument; NULL and JSON `null` give an empty map.
pub(crate) fn parse_object(text: Option<&str>, what: &str) -> Result<Map<String, Value>> {
    match text.map(|t| parse(t, what)).transpose()? {
        None | Some(Value::Null) => Ok(Map::new()),
        Some(Value::Object(map)) => Ok(map),
        Some(_) => Err(invalid(format!("{what} must be a JSON object"))),
    }
}

/// Rejects keys other than `allowed` in an options object.
pub(crate) fn only_keys(map: &Map<String, Value>, allowed: &[&str], what: &str) -> Result<()> {
    match map.keys().find(|k| !allowed.contains(&k.as_str())) {
        Some(key) => Err(invalid(format!("{what}: unknown key {key:?}"))),
        None => Ok(()),
    }
}

/// Lease constraints from optional JSON text (`{"expires_at": "..."}`; NULL = none).
pub(crate) fn constraints(text: Option<&str>) -> Result<LeaseConstraints> {
    match text {
        None => LeaseConstraints::from_value(&Value::Null),
        Some(t) => LeaseConstraints::from_json(t),
    }
}

/// A signed decimal string (remaining amounts can be negative and sums can exceed the 15
/// integer digits of a single AMOUNT), parsed exactly by the core.
pub(crate) fn decimal(text: &str) -> Result<Decimal> {
    leasekit::parse_decimal(text)
}

/// `{currency: "decimal"}` into a map of decimals.
pub(crate) fn decimal_map(value: &Value, what: &str) -> Result<BTreeMap<String, Decimal>> {
    let Value::Object(map) = value else {
        return Err(invalid(format!(
            "{what} must be an object of decimal strings"
        )));
    };
    map.iter()
        .map(|(currency, amount)| match amount {
            Value::String(s) => Ok((currency.clone(), decimal(s)?)),
            _ => Err(invalid(format!(
                "{what}.{currency} must be a decimal string"
            ))),
        })
        .collect()
}

/// A map of decimals as `{currency: "decimal"}` (normalized, no trailing zeros).
pub(crate) fn decimal_map_value(map: &BTreeMap<String, Decimal>) -> Value {
    Value::Object(
        map.iter()
            .map(|(k, v)| (k.clone(), Value::String(format_amount(v))))
            .collect(),
    )
}

/// Any serializable core result as a JSON value.
pub(crate) fn to_value<T: serde::Serialize>(value: &T) -> Result<Value> {
    serde_json::to_value(value).map_err(|e| {
        Error::new(
            ErrorCode::InternalError,
            format!("cannot serialize result: {e}"),
        )
    })
}
