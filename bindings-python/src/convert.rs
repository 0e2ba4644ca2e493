//! Thin adapters between Python values and core's values and wire layer (`leasekit::wire`):
//! Python data to JSON for core's readers, decimals (always through their exact text, never
//! floats), amount maps, timestamps (aware `datetime` or RFC 3339) and core's JSON answers.

use std::collections::BTreeMap;

use leasekit::{Decimal, Timestamp, wire};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple, PyType};
use serde_json::{Map, Value};

use crate::error::{attached, detached, invalid_err, json_to_py};
use crate::text::str_of;

static DECIMAL: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static DATETIME: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static TIMEDELTA: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static EPOCH: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
static FORMAT: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

fn decimal_type(py: Python<'_>) -> PyResult<&Bound<'_, PyType>> {
    DECIMAL.import(py, "decimal", "Decimal")
}

fn datetime_type(py: Python<'_>) -> PyResult<&Bound<'_, PyType>> {
    DATETIME.import(py, "datetime", "datetime")
}

/// `datetime(1970, 1, 1, tzinfo=timezone.utc)`.
fn epoch(py: Python<'_>) -> PyResult<&Bound<'_, PyAny>> {
    let e = EPOCH.get_or_try_init(py, || {
        let utc = py.import("datetime")?.getattr("timezone")?.getattr("utc")?;
        let epoch = datetime_type(py)?.call1((1970, 1, 1, 0, 0, 0, 0, utc))?;
        Ok::<_, PyErr>(epoch.unbind())
    })?;
    Ok(e.bind(py))
}

/// An options object for one of core's wire readers: each named keyword that was passed (a
/// `None` crosses as `null`, which core reads as "not given") and every keyword in `other`
/// unchanged, so that core, not the binding, refuses an unknown key.
pub fn options_value(
    named: &[(&str, Option<&Bound<'_, PyAny>>)],
    other: Option<&Bound<'_, PyDict>>,
) -> PyResult<Value> {
    let mut options = Map::new();
    for (key, value) in named {
        if let Some(v) = value {
            options.insert((*key).to_owned(), py_to_json(v)?);
        }
    }
    for (key, value) in other.into_iter().flat_map(|d| d.iter()) {
        let key = key.cast_into::<PyString>()?;
        options.insert(str_of(&key, "option name")?.to_owned(), py_to_json(&value)?);
    }
    Ok(Value::Object(options))
}

/// Converts Python data to JSON. `Decimal` becomes its plain-notation string and an aware
/// `datetime` its RFC 3339 `Z` string; other types are `INVALID_REQUEST`.
pub fn py_to_json(obj: &Bound<'_, PyAny>) -> PyResult<Value> {
    let py = obj.py();
    if obj.is_none() {
        return Ok(Value::Null);
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(Value::String(str_of(s, "string")?.to_owned()));
    }
    if let Ok(b) = obj.cast::<PyBool>() {
        return Ok(Value::Bool(b.is_true()));
    }
    if obj.cast::<PyInt>().is_ok() {
        if let Ok(i) = obj.extract::<i64>() {
            return Ok(Value::from(i));
        }
        if let Ok(u) = obj.extract::<u64>() {
            return Ok(Value::from(u));
        }
        return Err(invalid_err(py, "integer out of range"));
    }
    if let Ok(f) = obj.cast::<PyFloat>() {
        return serde_json::Number::from_f64(f.value())
            .map(Value::Number)
            .ok_or_else(|| invalid_err(py, "NaN and infinity are not JSON"));
    }
    if let Ok(d) = obj.cast::<PyDict>() {
        let mut m = Map::new();
        for (k, v) in d.iter() {
            let key = k.cast::<PyString>().map_err(|_| {
                invalid_err(
                    py,
                    format!("object keys must be str, got {}", type_name(&k)),
                )
            })?;
            m.insert(str_of(key, "key")?.to_owned(), py_to_json(&v)?);
        }
        return Ok(Value::Object(m));
    }
    // A list or tuple (or a subclass) is read from its own storage, never through an
    // overridable `__iter__`: exactly the items `len()`, indexing and `json.dumps` see.
    if let Ok(list) = obj.cast::<PyList>() {
        return json_array(list.iter());
    }
    if let Ok(tuple) = obj.cast::<PyTuple>() {
        return json_array(tuple.iter());
    }
    if obj.get_type().is(decimal_type(py)?) {
        return Ok(Value::String(decimal_text(obj)?));
    }
    if obj.is_instance(datetime_type(py)?)? {
        return Ok(Value::String(timestamp_from_py(obj)?.to_rfc3339()));
    }
    Err(invalid_err(
        py,
        format!("unsupported type {} in lease data", type_name(obj)),
    ))
}

/// A JSON array of the items' JSON forms.
fn json_array<'py>(items: impl Iterator<Item = Bound<'py, PyAny>>) -> PyResult<Value> {
    items
        .map(|item| py_to_json(&item))
        .collect::<PyResult<_>>()
        .map(Value::Array)
}

fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "?".into())
}

/// `format(d, 'f')`: the exact plain-notation text of a `decimal.Decimal`.
fn decimal_text(obj: &Bound<'_, PyAny>) -> PyResult<String> {
    let format = FORMAT.import(obj.py(), "builtins", "format")?;
    format.call1((obj, "f"))?.extract()
}

/// The exact text of an amount given as `str`, `decimal.Decimal` or `int` (floats are refused:
/// a binary float cannot carry an exact amount). An `int` or `Decimal` must be exactly that type:
/// a subclass could override `__str__` / `__format__` and report another amount than its value
/// (a `str` subclass is fine: its text is read from its storage).
pub fn amount_text(obj: &Bound<'_, PyAny>) -> PyResult<String> {
    let py = obj.py();
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(str_of(s, "amount")?.to_owned());
    }
    if obj.is_exact_instance_of::<PyInt>() {
        return Ok(obj.str()?.to_str()?.to_owned());
    }
    if obj.get_type().is(decimal_type(py)?) {
        return decimal_text(obj);
    }
    Err(invalid_err(
        py,
        format!(
            "an amount must be decimal.Decimal, str or int, not {} (binary floats are not exact)",
            type_name(obj)
        ),
    ))
}

/// Parses an amount argument through core's AMOUNT syntax.
pub fn amount_from_py(obj: &Bound<'_, PyAny>) -> PyResult<Decimal> {
    let text = amount_text(obj)?;
    attached(obj.py(), || leasekit::parse_amount(&text))
}

/// A core decimal as a Python `decimal.Decimal` (normalized, no trailing zeros).
pub fn decimal_to_py<'py>(py: Python<'py>, d: &Decimal) -> PyResult<Bound<'py, PyAny>> {
    decimal_type(py)?.call1((leasekit::format_amount(d),))
}

/// `{currency: Decimal}` from a core budget map.
pub fn budget_to_py<'py>(
    py: Python<'py>,
    m: &BTreeMap<String, Decimal>,
) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    for (k, v) in m {
        dict.set_item(k, decimal_to_py(py, v)?)?;
    }
    Ok(dict)
}

/// A caller-given amount map `{currency: amount}`, read with core's one rule for such maps
/// (`leasekit::wire::Amounts`, docs/semantics.md 6). The Python data crosses as plain data:
/// a `str` or `decimal.Decimal` amount as its exact text, an `int` or `float` as a JSON number,
/// which core refuses (an amount map takes strings only); anything but a dict is refused too.
pub fn amounts_from_py(obj: &Bound<'_, PyAny>) -> PyResult<wire::Amounts> {
    let value = py_to_json(obj)?;
    attached(obj.py(), || wire::Amounts::from_value(value, "amounts"))
}

/// A timestamp from an aware `datetime` (any offset; converted exactly to UTC) or an RFC 3339
/// string in the strict ARCP form. Naive datetimes are `INVALID_REQUEST`.
pub fn timestamp_from_py(obj: &Bound<'_, PyAny>) -> PyResult<Timestamp> {
    let py = obj.py();
    if let Ok(s) = obj.cast::<PyString>() {
        let text = str_of(s, "time")?;
        return attached(py, || leasekit::parse_expires_at(text));
    }
    if !obj.is_instance(datetime_type(py)?)? {
        return Err(invalid_err(
            py,
            format!(
                "a time must be an aware datetime or an RFC 3339 string, not {}",
                type_name(obj)
            ),
        ));
    }
    if obj.call_method0("utcoffset")?.is_none() {
        return Err(invalid_err(
            py,
            "naive datetime: attach a timezone (e.g. timezone.utc)",
        ));
    }
    let delta = obj.call_method1("__sub__", (epoch(py)?,))?;
    let days: i64 = delta.getattr("days")?.extract()?;
    let secs: i64 = delta.getattr("seconds")?.extract()?;
    let micros: i64 = delta.getattr("microseconds")?.extract()?;
    let nanos = ((days as i128 * 86_400 + secs as i128) * 1_000_000 + micros as i128) * 1_000;
    Ok(Timestamp::from_unix_nanos(nanos))
}

/// An aware UTC `datetime` (sub-microsecond digits are truncated: `datetime` has no nanoseconds).
pub fn timestamp_to_py(py: Python<'_>, t: Timestamp) -> PyResult<Bound<'_, PyAny>> {
    let micros = t.unix_nanos().div_euclid(1_000);
    let micros = i64::try_from(micros).map_err(|_| invalid_err(py, "time out of range"))?;
    let delta = TIMEDELTA
        .import(py, "datetime", "timedelta")?
        .call1((0, 0, micros))?;
    epoch(py)?.call_method1("__add__", (delta,))
}

/// Python data (dict, JSON text or None) as JSON text for core; `what` names it in errors.
pub(crate) fn json_arg(obj: Option<&Bound<'_, PyAny>>, what: &str) -> PyResult<String> {
    let Some(obj) = obj.filter(|o| !o.is_none()) else {
        return Ok("{}".to_string());
    };
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(str_of(s, what)?.to_owned());
    }
    Ok(py_to_json(obj)?.to_string())
}

/// Core's answer (JSON text) as Python data.
pub(crate) fn answer<'py>(py: Python<'py>, json: &str) -> PyResult<Bound<'py, PyAny>> {
    let v: Value = attached(py, || {
        serde_json::from_str(json)
            .map_err(|e| leasekit::Error::new(leasekit::ErrorCode::InternalError, e.to_string()))
    })?;
    json_to_py(py, &v)
}

/// A governor's strict call (embedded or through the daemon): `command` through the text
/// conversion, `payload` as JSON text ([`json_arg`]), `call` run with the interpreter lock
/// released, the answer as Python data.
pub(crate) fn governor_call<'py>(
    py: Python<'py>,
    command: &Bound<'py, PyString>,
    payload: Option<&Bound<'py, PyAny>>,
    call: impl FnOnce(&str, &str) -> leasekit::Result<String> + Send,
) -> PyResult<Bound<'py, PyAny>> {
    let command = str_of(command, "command")?;
    let payload = json_arg(payload, "payload")?;
    let out = detached(py, || call(command, &payload))?;
    answer(py, &out)
}

/// A governor's wire dispatcher (embedded or through the daemon): both arguments through the
/// text conversion, `handle` run with the interpreter lock released; the envelope JSON text.
pub(crate) fn governor_handle(
    py: Python<'_>,
    command: &Bound<'_, PyString>,
    payload_json: &Bound<'_, PyString>,
    handle: impl FnOnce(&str, &str) -> String + Send,
) -> PyResult<String> {
    let command = str_of(command, "command")?;
    let payload = str_of(payload_json, "payload_json")?;
    detached(py, || Ok(handle(command, payload)))
}
