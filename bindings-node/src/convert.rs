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
//!   cannot add a capability, a pattern or an option to anything.

use leasekit::{Decimal, Error, LeaseConstraints, Timestamp};
use napi::bindgen_prelude::{
    Array, BigInt, FromNapiValue, JsObjectValue, KeyCollectionMode, KeyConversion, KeyFilter,
    Object, Unknown,
};
use napi::sys::{napi_env, napi_value};
use napi::{Env, JsDate, JsValue, ValueType};
use serde_json::{Map, Number, Value};

use crate::error::invalid_arg;
use crate::text::{not_text, read_text};

/// Nesting deeper than this is refused (a lease is two levels deep; this bounds recursion on
/// cyclic or hostile objects).
const MAX_DEPTH: usize = 64;

/// Any JavaScript argument, kept as the raw value of the current call and read on demand
/// (inside the call's error boundary) by the readers below.
#[derive(Clone, Copy)]
pub struct JsArg(Unknown<'static>);

impl FromNapiValue for JsArg {
    unsafe fn from_napi_value(env: napi_env, value: napi_value) -> napi::Result<Self> {
        // SAFETY: the value of the current call.
        Ok(unsafe { JsArg::from_raw(env, value) })
    }
}

/// A failed Node-API call: `INVALID_REQUEST` naming what was read (a pending JavaScript
/// exception, e.g. from a getter, is thrown instead by napi-rs).
fn read<T>(result: napi::Result<T>, what: &str) -> leasekit::Result<T> {
    result.map_err(|_| Error::invalid(format!("cannot read {what}")))
}

impl JsArg {
    /// Wraps a raw value.
    ///
    /// # Safety
    /// `env` is the environment of the current call and `value` a live value of it; the
    /// `JsArg` must not outlive the call.
    pub(crate) unsafe fn from_raw(env: napi_env, value: napi_value) -> JsArg {
        // SAFETY: as the caller promises.
        JsArg(unsafe { Unknown::from_raw_unchecked(env, value) })
    }

    /// The value converted by napi-rs (a value of another type fails, `INVALID_REQUEST`).
    pub(crate) fn cast<T: FromNapiValue>(&self, what: &str) -> leasekit::Result<T> {
        // SAFETY: a live value of the current call.
        read(unsafe { self.0.cast() }, what)
    }

    /// The value as an object, to read its properties.
    fn object(&self) -> Object<'static> {
        Object::from_raw(self.0.value().env, self.0.raw())
    }

    /// The JavaScript type of the value.
    pub(crate) fn type_of(&self) -> leasekit::Result<ValueType> {
        read(self.0.get_type(), "a value")
    }

    /// Whether the value is `undefined` or `null`.
    pub(crate) fn is_nullish(&self) -> bool {
        matches!(self.type_of(), Ok(ValueType::Undefined | ValueType::Null))
    }

    /// The value as text (see [`read_text`]).
    pub(crate) fn text(&self, what: &str) -> leasekit::Result<String> {
        let (mut units, mut out) = (Vec::new(), Vec::new());
        // SAFETY: a live value of the current call.
        let text = unsafe { read_text(self.0.value().env, self.0.raw(), &mut units, &mut out) };
        Ok(text.map_err(|why| not_text(what, why))?.to_owned())
    }

    /// A bigint's value, `None` when it does not fit 128 bits.
    fn bigint(&self) -> leasekit::Result<Option<i128>> {
        let (value, lossless) = self.cast::<BigInt>("a bigint")?.get_i128();
        Ok(lossless.then_some(value))
    }

    /// The own enumerable string-keyed properties of a plain object, in property order, with
    /// `undefined` values left out (as `JSON.stringify` does). Inherited properties are never
    /// read, and an object that is not plain (a class instance, a `Map`, a `Date`, an array)
    /// is `INVALID_REQUEST`. `what` names the object in errors.
    pub(crate) fn entries(&self, what: &str) -> leasekit::Result<Vec<(String, JsArg)>> {
        if self.type_of()? != ValueType::Object || read(self.0.is_array(), what)? {
            return Err(Error::invalid(format!("{what} must be a plain object")));
        }
        self.expect_prototype(false, what)?;
        let mut out = Vec::new();
        for key in self.own_keys(what)? {
            let field: JsArg = read(self.object().get_property_unchecked(key.0), what)?;
            if field.type_of()? != ValueType::Undefined {
                out.push((key.text("property name")?, field));
            }
        }
        Ok(out)
    }

    /// The own enumerable string keys of an object (array indexes as strings), in order.
    fn own_keys(&self, what: &str) -> leasekit::Result<Vec<JsArg>> {
        let (own, strings) = (KeyCollectionMode::OwnOnly, KeyConversion::NumbersToStrings);
        let names = self
            .object()
            .get_all_property_names(own, KeyFilter::Enumerable, strings);
        let names = JsArg(read(names, what)?.to_unknown()).elements_unchecked(what)?;
        let string = |k: &JsArg| k.type_of().is_ok_and(|t| t != ValueType::Symbol);
        Ok(names.into_iter().filter(string).collect())
    }

    /// Refuses an object whose prototype is not the intrinsic one of a plain array or object
    /// (or `null` for an object): only plain data crosses into native code.
    fn expect_prototype(&self, array: bool, what: &str) -> leasekit::Result<()> {
        let env = Env::from_raw(self.0.value().env);
        let proto = read(self.object().get_prototype(), what)?;
        // A fresh object or array has this realm's intrinsic prototype, whatever globals a
        // caller replaced.
        let intrinsic = read(
            match array {
                true => env.create_array(0).and_then(|a| a.get_prototype()),
                false => Object::new(&env).and_then(|o| o.get_prototype()),
            },
            what,
        )?;
        let null = !array && read(proto.get_type(), what)? == ValueType::Null;
        if null || read(env.strict_equals(proto, intrinsic), what)? {
            return Ok(());
        }
        let kind = if array { "array" } else { "object" };
        Err(Error::invalid(format!(
            "{what} must be a plain {kind} (not a class instance or other special object)"
        )))
    }

    /// The elements of a plain, dense array: its own elements only. A hole (which would read
    /// through to `Array.prototype`) or an extra named property is `INVALID_REQUEST`.
    fn elements(&self, what: &str) -> leasekit::Result<Vec<JsArg>> {
        self.expect_prototype(true, what)?;
        let elements = self.elements_unchecked(what)?;
        let keys = self.own_keys(what)?;
        let dense = keys.len() == elements.len()
            && (keys.iter().enumerate())
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
        let array: Array = self.cast(what)?;
        (0..array.len())
            .map(|i| read(array.get_element(i), what))
            .collect()
    }

    /// The value as JSON data: strings, finite numbers, booleans, `null`, arrays and objects
    /// (own enumerable string keys only); a bigint that fits 64 bits becomes a number.
    /// Anything else (`undefined` outside an object, a function, a symbol, a non-finite number,
    /// nesting deeper than 64) is `INVALID_REQUEST`.
    pub(crate) fn json(&self) -> leasekit::Result<Value> {
        self.json_at(MAX_DEPTH)
    }

    fn json_at(&self, depth: usize) -> leasekit::Result<Value> {
        Ok(match self.type_of()? {
            ValueType::Null => Value::Null,
            ValueType::Boolean => Value::Bool(self.cast("a boolean")?),
            ValueType::Number => number_json(self.cast("a number")?)?,
            ValueType::String => Value::String(self.text("string")?),
            ValueType::BigInt => match self.bigint()? {
                Some(v) if i64::try_from(v).is_ok() => Value::from(v as i64),
                Some(v) if u64::try_from(v).is_ok() => Value::from(v as u64),
                _ => return Err(Error::invalid("a bigint out of the 64-bit range")),
            },
            ValueType::Object if depth == 0 => {
                return Err(Error::invalid("data nested too deeply"));
            }
            ValueType::Object if read(self.0.is_array(), "an array")? => Value::Array(
                (self.elements("array")?.iter())
                    .map(|e| e.json_at(depth - 1))
                    .collect::<leasekit::Result<_>>()?,
            ),
            ValueType::Object => Value::Object(
                (self.entries("object")?.into_iter())
                    .map(|(key, field)| Ok((key, field.json_at(depth - 1)?)))
                    .collect::<leasekit::Result<_>>()?,
            ),
            other => return Err(Error::invalid(format!("a {other} is not JSON data"))),
        })
    }

    /// An instant from a `Date`, an RFC 3339 string (parsed strictly) or epoch milliseconds.
    pub(crate) fn time(&self) -> leasekit::Result<Timestamp> {
        let millis = match self.type_of()? {
            ValueType::String => return leasekit::parse_expires_at(&self.text("time")?),
            ValueType::Number => self.cast("a number")?,
            ValueType::Object if read(self.0.is_date(), "a Date")? => {
                read(self.cast::<JsDate>("a Date")?.value_of(), "a Date")?
            }
            other => {
                return Err(Error::invalid(format!(
                    "expected a Date, an RFC 3339 string or epoch milliseconds, got {other}"
                )));
            }
        };
        if !millis.is_finite() {
            return Err(Error::invalid(
                "invalid time: not a finite number (invalid Date?)",
            ));
        }
        // Fractions of a millisecond are kept, to the nanosecond.
        Ok(Timestamp::from_unix_nanos(
            (millis * 1_000_000.0).round() as i128
        ))
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

/// An options object as JSON data for a core wire shape: its own entries, each read by
/// `field` (which converts what JSON cannot hold, such as a `Date`, reads the rest with
/// [`JsArg::json`], and answers `None` to leave an entry out). `undefined` or `null` is `null`.
pub(crate) fn options_json(
    options: Option<&JsArg>,
    what: &str,
    mut field: impl FnMut(&str, JsArg) -> leasekit::Result<Option<Value>>,
) -> leasekit::Result<Value> {
    let Some(options) = options.filter(|o| !o.is_nullish()) else {
        return Ok(Value::Null);
    };
    let mut map = Map::new();
    for (key, value) in options.entries(what)? {
        if let Some(value) = field(&key, value)? {
            map.insert(key, value);
        }
    }
    Ok(Value::Object(map))
}

/// A decimal amount as JavaScript passes it: a decimal string or a bigint (as its decimal
/// text), or a number (converted through its shortest decimal form).
pub enum AmountInput {
    /// A decimal string, or a bigint's decimal text.
    Text(String),
    /// A number.
    Number(f64),
}

impl FromNapiValue for AmountInput {
    unsafe fn from_napi_value(env: napi_env, value: napi_value) -> napi::Result<Self> {
        // SAFETY: a live value of the current call.
        let arg = unsafe { JsArg::from_raw(env, value) };
        match arg.type_of() {
            Ok(ValueType::String) => arg.text("amount").map(AmountInput::Text),
            Ok(ValueType::Number) => arg.cast("a number").map(AmountInput::Number),
            Ok(ValueType::BigInt) => arg.bigint().and_then(|v| {
                let v = v.ok_or_else(|| Error::invalid("invalid amount: bigint out of range"))?;
                Ok(AmountInput::Text(v.to_string()))
            }),
            _ => Err(Error::invalid(
                "an amount must be a decimal string, a number or a bigint",
            )),
        }
        .map_err(invalid_arg)
    }
}

impl AmountInput {
    /// The amount as text; a number as its shortest round-tripping decimal (never an exponent).
    pub fn text(&self) -> std::borrow::Cow<'_, str> {
        match self {
            AmountInput::Text(text) => text.into(),
            AmountInput::Number(number) => number.to_string().into(),
        }
    }

    /// The exact decimal (the core's AMOUNT rules apply).
    pub fn decimal(&self) -> leasekit::Result<Decimal> {
        match self {
            AmountInput::Text(text) => leasekit::parse_amount(text),
            AmountInput::Number(number) => leasekit::amount_from_f64(*number),
        }
    }
}

/// Lease constraints from `undefined`/`null` or an object `{expires_at}` whose value is an
/// RFC 3339 string, a `Date`, epoch milliseconds or `null`. Other keys are rejected by the core.
pub fn constraints_from_js(value: Option<&JsArg>) -> leasekit::Result<LeaseConstraints> {
    let json = options_json(value, "lease constraints", |key, field| {
        Ok(Some(match field.type_of()? {
            ValueType::Number | ValueType::Object if key == "expires_at" => {
                Value::String(field.time()?.to_rfc3339())
            }
            _ => field.json()?,
        }))
    })?;
    match json {
        Value::Null => Ok(LeaseConstraints::none()),
        json => LeaseConstraints::from_value(&json),
    }
}
