//! Conversions between JavaScript values and core types. Nothing here decides anything:
//! every rule (syntax, bounds, validity) is the core's.

use leasekit::{Decimal, Error, ErrorCode, Lease, LeaseConstraints, Timestamp, wire};
use napi::JsDate;
use napi::bindgen_prelude::{BigInt, Either3, Object, Unknown};
use napi::{JsValue, ValueType};
use serde_json::Value;

/// A decimal amount as JavaScript passes it: a decimal string, a number (converted through
/// its shortest decimal form) or a bigint.
pub type AmountInput = Either3<String, f64, BigInt>;

/// A failed conversion of a JavaScript value is the caller's bad input.
pub fn bad_input(err: napi::Error) -> Error {
    Error::invalid(format!("invalid argument: {}", err.reason))
}

/// Builds a core lease from a plain object (`Record<string, string[]>`) or its JSON text
/// (JSON text lets the core reject duplicate keys).
pub fn lease_from_js(value: &Value) -> leasekit::Result<Lease> {
    match value {
        Value::String(text) => Lease::from_json(text),
        other => Lease::from_value(other),
    }
}

/// The exact decimal of an amount argument (the core's AMOUNT rules apply).
pub fn amount_from_js(value: &AmountInput) -> leasekit::Result<Decimal> {
    match value {
        Either3::A(text) => leasekit::parse_amount(text),
        Either3::B(number) => leasekit::amount_from_f64(*number),
        Either3::C(big) => leasekit::parse_amount(&bigint_text(big)?),
    }
}

/// The decimal text of a bigint (a negative one keeps its sign, for the core to reject).
pub fn bigint_text(big: &BigInt) -> leasekit::Result<String> {
    let (value, lossless) = big.get_i128();
    if !lossless {
        return Err(Error::invalid("invalid amount: bigint out of range"));
    }
    Ok(value.to_string())
}

/// A caller-given amount map `{currency: amount}` as core's wire shape
/// (`leasekit::wire::Amounts`): a number becomes its shortest decimal text and a bigint its
/// digits; the wire decides what is a valid amount.
pub fn amounts_from_js(value: Value) -> leasekit::Result<wire::Amounts> {
    let value = match value {
        Value::Object(map) => Value::Object(
            map.into_iter()
                .map(|(currency, amount)| (currency, number_as_text(amount)))
                .collect(),
        ),
        other => other,
    };
    wire::Amounts::from_value(value, "parentRemaining")
}

/// A JSON number as its decimal text (Rust prints the shortest round-tripping digits of an
/// `f64` and never an exponent); any other value unchanged.
fn number_as_text(value: Value) -> Value {
    match &value {
        Value::Number(n) if n.is_f64() => {
            Value::String(format!("{}", n.as_f64().unwrap_or(f64::NAN)))
        }
        Value::Number(n) => Value::String(n.to_string()),
        _ => value,
    }
}

/// An instant from a `Date`, an RFC 3339 string (parsed strictly) or epoch milliseconds.
pub fn time_from_js(value: &Unknown) -> leasekit::Result<Timestamp> {
    match value.get_type().map_err(bad_input)? {
        ValueType::String => {
            let text: String = unsafe { value.cast() }.map_err(bad_input)?;
            leasekit::parse_expires_at(&text)
        }
        ValueType::Number => {
            millis_to_timestamp(unsafe { value.cast::<f64>() }.map_err(bad_input)?)
        }
        ValueType::Object if value.is_date().map_err(bad_input)? => {
            let date: JsDate = unsafe { value.cast() }.map_err(bad_input)?;
            millis_to_timestamp(date.value_of().map_err(bad_input)?)
        }
        other => Err(Error::invalid(format!(
            "expected a Date, an RFC 3339 string or epoch milliseconds, got {other}"
        ))),
    }
}

/// An instant from epoch milliseconds (fractions kept to the nanosecond).
fn millis_to_timestamp(millis: f64) -> leasekit::Result<Timestamp> {
    if !millis.is_finite() {
        return Err(Error::invalid(
            "invalid time: not a finite number (invalid Date?)",
        ));
    }
    Ok(Timestamp::from_unix_nanos(
        (millis * 1_000_000.0).round() as i128
    ))
}

/// Lease constraints from `undefined`/`null` or an object `{expires_at}` whose value is an
/// RFC 3339 string, a `Date`, epoch milliseconds or `null`. Other keys are rejected by the core.
pub fn constraints_from_js(value: Option<&Unknown>) -> leasekit::Result<LeaseConstraints> {
    let Some(value) = value else {
        return Ok(LeaseConstraints::none());
    };
    match value.get_type().map_err(bad_input)? {
        ValueType::Undefined | ValueType::Null => Ok(LeaseConstraints::none()),
        ValueType::Object if !value.is_date().map_err(bad_input)? => {
            let object: Object = unsafe { value.cast() }.map_err(bad_input)?;
            let mut json = Value::Object(serde_json::Map::new());
            for key in Object::keys(&object).map_err(bad_input)? {
                let field: Unknown = object
                    .get(&key)
                    .map_err(bad_input)?
                    .ok_or_else(|| Error::invalid(format!("missing field {key:?}")))?;
                let field_json = match field.get_type().map_err(bad_input)? {
                    ValueType::Undefined | ValueType::Null => Value::Null,
                    ValueType::String => Value::String(unsafe { field.cast() }.map_err(bad_input)?),
                    _ => Value::String(time_from_js(&field)?.to_rfc3339()),
                };
                json[key.as_str()] = field_json;
            }
            LeaseConstraints::from_value(&json)
        }
        _ => Err(Error::new(
            ErrorCode::InvalidRequest,
            "lease constraints must be an object like {expires_at: \"...\"}",
        )),
    }
}
