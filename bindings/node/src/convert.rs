//! Conversions between JavaScript values and core types. Nothing here decides anything:
//! every rule (syntax, bounds, validity, which keys an options object has) is the core's
//! (`leasekit::wire` for the shapes).
//!
//! Two rules hold for every value a JavaScript caller hands in:
//! * **Text**: every string is read by [`read_text`] (`text.rs`, the one text conversion), as
//!   an argument ([`crate::text::Text`]), inside an object ([`JsArg::json`]) or on the authorize
//!   fast path (`fast/`). A lone surrogate has no UTF-8 form and is refused with `INVALID_REQUEST`,
//!   never replaced: the core must check exactly the caller's string.
//! * **Own data only**: an object is read through its own enumerable string keys
//!   ([`JsArg::entries`]), never through its prototype chain, so a polluted `Object.prototype`
//!   cannot add a capability, a pattern or an option to anything (issue 18).

use std::ptr;

use leasekit::{Decimal, Error, Lease, LeaseConstraints, Timestamp};
use napi::ValueType;
use napi::bindgen_prelude::{BigInt, FromNapiValue, TypeName, ValidateNapiValue};
use napi::sys::{self, Status, napi_env, napi_value};
use serde_json::{Map, Number, Value};

use crate::text::{not_text, read_text};

/// The intrinsic prototypes a plain value may have.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Intrinsic {
    /// `Object.prototype` (or `null`).
    Object,
    /// `Array.prototype`.
    Array,
}

/// Nesting deeper than this is refused (a lease is two levels deep; this bounds recursion on
/// cyclic or hostile objects).
const MAX_DEPTH: usize = 64;

/// Any JavaScript argument, kept as the raw value of the current call and read on demand
/// (inside the call's error boundary) by the readers below.
#[derive(Clone, Copy)]
pub struct JsArg {
    env: napi_env,
    value: napi_value,
}

impl TypeName for JsArg {
    fn type_name() -> &'static str {
        "unknown"
    }

    fn value_type() -> ValueType {
        ValueType::Unknown
    }
}

impl ValidateNapiValue for JsArg {}

impl FromNapiValue for JsArg {
    unsafe fn from_napi_value(env: napi_env, value: napi_value) -> napi::Result<Self> {
        // SAFETY: the value of the current call.
        Ok(unsafe { JsArg::from_raw(env, value) })
    }
}

/// A Node-API call that failed: `INVALID_REQUEST` naming what was read (a pending JavaScript
/// exception, e.g. from a getter, is thrown instead by napi-rs).
fn check(status: sys::napi_status, what: &str) -> leasekit::Result<()> {
    if status == Status::napi_ok {
        Ok(())
    } else {
        Err(Error::invalid(format!("cannot read {what}")))
    }
}

impl JsArg {
    /// Wraps a raw value.
    ///
    /// # Safety
    /// `env` is the environment of the current call and `value` a live value of it; the
    /// `JsArg` must not outlive the call.
    pub(crate) unsafe fn from_raw(env: napi_env, value: napi_value) -> JsArg {
        JsArg { env, value }
    }

    /// The environment of the call.
    pub(crate) fn env(&self) -> napi_env {
        self.env
    }

    /// The raw value.
    pub(crate) fn raw(&self) -> napi_value {
        self.value
    }

    /// The JavaScript type of the value.
    pub(crate) fn type_of(&self) -> leasekit::Result<ValueType> {
        let mut t = 0;
        // SAFETY: a live value of the current call.
        check(
            unsafe { sys::napi_typeof(self.env, self.value, &mut t) },
            "a value",
        )?;
        Ok(ValueType::from(t))
    }

    /// Whether the value is `undefined` or `null`.
    pub(crate) fn is_nullish(&self) -> bool {
        matches!(self.type_of(), Ok(ValueType::Undefined | ValueType::Null))
    }

    /// The value as text (see [`read_text`]).
    pub(crate) fn text(&self, what: &str) -> leasekit::Result<String> {
        let (mut units, mut out) = (Vec::new(), Vec::new());
        // SAFETY: a live value of the current call.
        let text = unsafe { read_text(self.env, self.value, &mut units, &mut out) }
            .map_err(|why| not_text(what, why))?;
        Ok(text.to_owned())
    }

    /// The value as a number.
    fn number(&self) -> leasekit::Result<f64> {
        let mut n = f64::NAN;
        // SAFETY: a live value of the current call.
        check(
            unsafe { sys::napi_get_value_double(self.env, self.value, &mut n) },
            "a number",
        )?;
        Ok(n)
    }

    /// Whether the value is a `Date`.
    fn is_date(&self) -> leasekit::Result<bool> {
        let mut is_date = false;
        // SAFETY: a live value of the current call.
        check(
            unsafe { sys::napi_is_date(self.env, self.value, &mut is_date) },
            "a Date",
        )?;
        Ok(is_date)
    }

    /// The own enumerable string-keyed properties of a plain object, in property order, with
    /// `undefined` values left out (as `JSON.stringify` does). Inherited properties are never
    /// read, and an object that is not plain (a class instance, a `Map`, a `Date`, an array)
    /// is `INVALID_REQUEST`. `what` names the object in errors.
    pub(crate) fn entries(&self, what: &str) -> leasekit::Result<Vec<(String, JsArg)>> {
        if self.type_of()? != ValueType::Object || self.is_array()? {
            return Err(Error::invalid(format!("{what} must be a plain object")));
        }
        self.expect_prototype(Intrinsic::Object, what)?;
        let mut out = Vec::new();
        for key in self.own_keys(what)? {
            let mut field = ptr::null_mut();
            // SAFETY: `key` is one of this live object's own keys.
            check(
                unsafe { sys::napi_get_property(self.env, self.value, key.raw(), &mut field) },
                what,
            )?;
            // SAFETY: a value of the current call.
            let field = unsafe { JsArg::from_raw(self.env, field) };
            if field.type_of()? == ValueType::Undefined {
                continue;
            }
            out.push((key.text("property name")?, field));
        }
        Ok(out)
    }

    /// The own enumerable string keys of an object (array indexes as strings), in order.
    fn own_keys(&self, what: &str) -> leasekit::Result<Vec<JsArg>> {
        let mut names = ptr::null_mut();
        // SAFETY: a live object of the current call.
        check(
            unsafe {
                sys::napi_get_all_property_names(
                    self.env,
                    self.value,
                    sys::KeyCollectionMode::own_only,
                    sys::KeyFilter::enumerable | sys::KeyFilter::skip_symbols,
                    sys::KeyConversion::numbers_to_strings,
                    &mut names,
                )
            },
            what,
        )?;
        // SAFETY: `names` is the (dense, fresh) array just returned.
        unsafe { JsArg::from_raw(self.env, names) }.elements_unchecked(what)
    }

    /// Refuses an object whose prototype is not the intrinsic one of `kind` (or `null` for a
    /// plain object): only plain data crosses into native code.
    fn expect_prototype(&self, kind: Intrinsic, what: &str) -> leasekit::Result<()> {
        let mut proto = ptr::null_mut();
        let mut fresh = ptr::null_mut();
        let mut intrinsic = ptr::null_mut();
        let mut same = false;
        // SAFETY: plain Node-API calls on live values of the current call. A fresh object or
        // array has this realm's intrinsic prototype, whatever globals a caller replaced.
        unsafe {
            check(
                sys::napi_get_prototype(self.env, self.value, &mut proto),
                what,
            )?;
            let made = match kind {
                Intrinsic::Object => sys::napi_create_object(self.env, &mut fresh),
                Intrinsic::Array => sys::napi_create_array(self.env, &mut fresh),
            };
            check(made, what)?;
            check(
                sys::napi_get_prototype(self.env, fresh, &mut intrinsic),
                what,
            )?;
            check(
                sys::napi_strict_equals(self.env, proto, intrinsic, &mut same),
                what,
            )?;
        }
        // SAFETY: a value of the current call.
        let null_proto = unsafe { JsArg::from_raw(self.env, proto) }.type_of()? == ValueType::Null;
        if same || (null_proto && kind == Intrinsic::Object) {
            Ok(())
        } else {
            Err(Error::invalid(format!(
                "{what} must be a plain {} (not a class instance or other special object)",
                match kind {
                    Intrinsic::Object => "object",
                    Intrinsic::Array => "array",
                }
            )))
        }
    }

    /// The elements of a plain, dense array: its own elements only. A hole (which would read
    /// through to `Array.prototype`) or an extra named property is `INVALID_REQUEST`.
    fn elements(&self, what: &str) -> leasekit::Result<Vec<JsArg>> {
        self.expect_prototype(Intrinsic::Array, what)?;
        let elements = self.elements_unchecked(what)?;
        let keys = self.own_keys(what)?;
        let dense = keys.len() == elements.len()
            && keys
                .iter()
                .enumerate()
                .all(|(i, k)| k.text("index").is_ok_and(|k| k == i.to_string()));
        if !dense {
            return Err(Error::invalid(format!(
                "{what} must be a dense array without holes or extra properties"
            )));
        }
        Ok(elements)
    }

    /// The elements of an array read by index, from 0 to its length.
    fn elements_unchecked(&self, what: &str) -> leasekit::Result<Vec<JsArg>> {
        let mut len = 0u32;
        // SAFETY: a live array of the current call.
        check(
            unsafe { sys::napi_get_array_length(self.env, self.value, &mut len) },
            what,
        )?;
        let mut out = Vec::with_capacity(len as usize);
        for i in 0..len {
            let mut element = ptr::null_mut();
            // SAFETY: a live array of the current call.
            check(
                unsafe { sys::napi_get_element(self.env, self.value, i, &mut element) },
                what,
            )?;
            // SAFETY: a value of the current call.
            out.push(unsafe { JsArg::from_raw(self.env, element) });
        }
        Ok(out)
    }

    /// Whether the value is an array.
    fn is_array(&self) -> leasekit::Result<bool> {
        let mut is_array = false;
        // SAFETY: a live value of the current call.
        check(
            unsafe { sys::napi_is_array(self.env, self.value, &mut is_array) },
            "an array",
        )?;
        Ok(is_array)
    }

    /// The value as JSON data: strings, finite numbers, booleans, `null`, arrays and objects
    /// (own enumerable string keys only); a bigint that fits 64 bits becomes a number.
    /// Anything else (`undefined` outside an object, a function, a symbol, a non-finite number,
    /// nesting deeper than 64) is `INVALID_REQUEST`.
    pub(crate) fn json(&self) -> leasekit::Result<Value> {
        self.json_at(MAX_DEPTH)
    }

    fn json_at(&self, depth: usize) -> leasekit::Result<Value> {
        match self.type_of()? {
            ValueType::Null => Ok(Value::Null),
            ValueType::Boolean => {
                let mut b = false;
                // SAFETY: a live boolean of the current call.
                check(
                    unsafe { sys::napi_get_value_bool(self.env, self.value, &mut b) },
                    "a boolean",
                )?;
                Ok(Value::Bool(b))
            }
            ValueType::Number => number_json(self.number()?),
            ValueType::String => self.text("string").map(Value::String),
            ValueType::BigInt => {
                // SAFETY: a live bigint of the current call.
                let big = unsafe { BigInt::from_napi_value(self.env, self.value) }
                    .map_err(|e| Error::invalid(e.reason.clone()))?;
                let (value, lossless) = big.get_i128();
                match (lossless, i64::try_from(value), u64::try_from(value)) {
                    (true, Ok(v), _) => Ok(Value::from(v)),
                    (true, _, Ok(v)) => Ok(Value::from(v)),
                    _ => Err(Error::invalid("a bigint out of the 64-bit range")),
                }
            }
            ValueType::Object if depth == 0 => Err(Error::invalid("data nested too deeply")),
            ValueType::Object if self.is_array()? => self
                .elements("array")?
                .iter()
                .map(|e| e.json_at(depth - 1))
                .collect::<leasekit::Result<Vec<_>>>()
                .map(Value::Array),
            ValueType::Object => {
                let mut map = Map::new();
                for (key, field) in self.entries("object")? {
                    map.insert(key, field.json_at(depth - 1)?);
                }
                Ok(Value::Object(map))
            }
            other => Err(Error::invalid(format!("a {other} is not JSON data"))),
        }
    }

    /// An instant from a `Date`, an RFC 3339 string (parsed strictly) or epoch milliseconds.
    pub(crate) fn time(&self) -> leasekit::Result<Timestamp> {
        match self.type_of()? {
            ValueType::String => leasekit::parse_expires_at(&self.text("time")?),
            ValueType::Number => millis_to_timestamp(self.number()?),
            ValueType::Object if self.is_date()? => {
                let mut millis = f64::NAN;
                // SAFETY: a live Date of the current call.
                check(
                    unsafe { sys::napi_get_date_value(self.env, self.value, &mut millis) },
                    "a Date",
                )?;
                millis_to_timestamp(millis)
            }
            other => Err(Error::invalid(format!(
                "expected a Date, an RFC 3339 string or epoch milliseconds, got {other}"
            ))),
        }
    }
}

/// A JavaScript number as JSON: an integer when it is one (exactly, below 2^53), else a float.
fn number_json(n: f64) -> leasekit::Result<Value> {
    const EXACT: f64 = 9_007_199_254_740_992.0; // 2^53
    if n.fract() == 0.0 && n.abs() < EXACT {
        return Ok(Value::from(n as i64));
    }
    Number::from_f64(n)
        .map(Value::Number)
        .ok_or_else(|| Error::invalid("NaN and infinities are not JSON numbers"))
}

/// Builds a core lease from a plain object (`Record<string, string[]>`) or its JSON text
/// (JSON text lets the core reject duplicate keys).
pub fn lease_from_js(value: &Value) -> leasekit::Result<Lease> {
    match value {
        Value::String(text) => Lease::from_json(text),
        other => Lease::from_value(other),
    }
}

/// A decimal amount as JavaScript passes it: a decimal string, a number (converted through
/// its shortest decimal form) or a bigint.
pub enum AmountInput {
    /// A decimal string.
    Text(String),
    /// A number.
    Number(f64),
    /// A bigint, as its decimal text.
    BigInt(String),
}

impl TypeName for AmountInput {
    fn type_name() -> &'static str {
        "AmountInput"
    }

    fn value_type() -> ValueType {
        ValueType::Unknown
    }
}

impl ValidateNapiValue for AmountInput {}

impl FromNapiValue for AmountInput {
    unsafe fn from_napi_value(env: napi_env, value: napi_value) -> napi::Result<Self> {
        // SAFETY: a live value of the current call.
        let arg = unsafe { JsArg::from_raw(env, value) };
        let converted = match arg.type_of() {
            Ok(ValueType::String) => arg.text("amount").map(AmountInput::Text),
            Ok(ValueType::Number) => arg.number().map(AmountInput::Number),
            Ok(ValueType::BigInt) => {
                // SAFETY: a live bigint of the current call.
                let big = unsafe { BigInt::from_napi_value(env, value) }?;
                let (v, lossless) = big.get_i128();
                if lossless {
                    Ok(AmountInput::BigInt(v.to_string()))
                } else {
                    Err(Error::invalid("invalid amount: bigint out of range"))
                }
            }
            _ => Err(Error::invalid(
                "an amount must be a decimal string, a number or a bigint",
            )),
        };
        converted.map_err(|e| napi::Error::new(napi::Status::InvalidArg, e.message().to_owned()))
    }
}

/// The exact decimal of an amount argument (the core's AMOUNT rules apply).
pub fn amount_from_js(value: &AmountInput) -> leasekit::Result<Decimal> {
    match value {
        AmountInput::Text(text) | AmountInput::BigInt(text) => leasekit::parse_amount(text),
        AmountInput::Number(number) => leasekit::amount_from_f64(*number),
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
pub fn constraints_from_js(value: Option<&JsArg>) -> leasekit::Result<LeaseConstraints> {
    let Some(value) = value.filter(|v| !v.is_nullish()) else {
        return Ok(LeaseConstraints::none());
    };
    if value.type_of()? != ValueType::Object || value.is_date()? {
        return Err(Error::invalid(
            "lease constraints must be an object like {expires_at: \"...\"}",
        ));
    }
    let mut json = Map::new();
    for (key, field) in value.entries("lease constraints")? {
        let field_json = match field.type_of()? {
            ValueType::Null => Value::Null,
            ValueType::String => Value::String(field.text("expires_at")?),
            ValueType::Number | ValueType::Object if key == "expires_at" => {
                Value::String(field.time()?.to_rfc3339())
            }
            _ => field.json()?,
        };
        json.insert(key, field_json);
    }
    LeaseConstraints::from_value(&Value::Object(json))
}
