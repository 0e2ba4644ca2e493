//! Type conversions between Python values and core values: JSON-like data, decimals
//! (always through their exact text, never floats) and timestamps (aware `datetime` or RFC 3339).

use std::collections::BTreeMap;

use leasekit::{Decimal, Timestamp, wire};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple, PyType};
use serde_json::{Map, Value};

use crate::error::{attached, invalid};
use crate::text::{str_of, text};

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
        let kwargs = PyDict::new(py);
        kwargs.set_item("tzinfo", utc)?;
        Ok::<_, PyErr>(
            datetime_type(py)?
                .call((1970, 1, 1), Some(&kwargs))?
                .unbind(),
        )
    })?;
    Ok(e.bind(py))
}

/// A Python error from a core error (shorthand used by the converters).
pub(crate) fn bad(py: Python<'_>, message: String) -> PyErr {
    crate::error::to_py_err(py, invalid(message))
}

/// Converts JSON to Python (`dict`, `list`, `str`, `int`, `float`, `bool`, `None`).
pub fn json_to_py<'py>(py: Python<'py>, v: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match v {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                i.into_pyobject(py)?.into_any()
            } else if let Some(u) = n.as_u64() {
                u.into_pyobject(py)?.into_any()
            } else {
                n.as_f64().unwrap_or(f64::NAN).into_pyobject(py)?.into_any()
            }
        }
        Value::String(s) => PyString::new(py, s).into_any(),
        Value::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(json_to_py(py, item)?)?;
            }
            list.into_any()
        }
        Value::Object(m) => json_map_to_py(py, m)?.into_any(),
    })
}

/// Converts a JSON object to a Python `dict`.
pub fn json_map_to_py<'py>(
    py: Python<'py>,
    m: &Map<String, Value>,
) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    for (k, v) in m {
        dict.set_item(k, json_to_py(py, v)?)?;
    }
    Ok(dict)
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
        return Err(bad(py, "integer out of range".into()));
    }
    if let Ok(f) = obj.cast::<PyFloat>() {
        return serde_json::Number::from_f64(f.value())
            .map(Value::Number)
            .ok_or_else(|| bad(py, "NaN and infinity are not JSON".into()));
    }
    if let Ok(d) = obj.cast::<PyDict>() {
        let mut m = Map::new();
        for (k, v) in d.iter() {
            let key = k.cast::<PyString>().map_err(|_| {
                bad(
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
        return list
            .iter()
            .map(|item| py_to_json(&item))
            .collect::<PyResult<_>>()
            .map(Value::Array);
    }
    if let Ok(tuple) = obj.cast::<PyTuple>() {
        return tuple
            .iter()
            .map(|item| py_to_json(&item))
            .collect::<PyResult<_>>()
            .map(Value::Array);
    }
    if obj.get_type().is(decimal_type(py)?) {
        return Ok(Value::String(decimal_text(obj)?));
    }
    if obj.is_instance(datetime_type(py)?)? {
        return Ok(Value::String(timestamp_from_py(obj)?.to_rfc3339()));
    }
    Err(bad(
        py,
        format!("unsupported type {} in lease data", type_name(obj)),
    ))
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
    Err(bad(
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
    crate::error::attached(obj.py(), || leasekit::parse_amount(&text))
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
    crate::error::attached(obj.py(), || wire::Amounts::from_value(value, "amounts"))
}

/// A timestamp from an aware `datetime` (any offset; converted exactly to UTC) or an RFC 3339
/// string in the strict ARCP form. Naive datetimes are `INVALID_REQUEST`.
pub fn timestamp_from_py(obj: &Bound<'_, PyAny>) -> PyResult<Timestamp> {
    let py = obj.py();
    if let Ok(s) = obj.cast::<PyString>() {
        let text = str_of(s, "time")?;
        return crate::error::attached(py, || leasekit::parse_expires_at(text));
    }
    if !obj.is_instance(datetime_type(py)?)? {
        return Err(bad(
            py,
            format!(
                "a time must be an aware datetime or an RFC 3339 string, not {}",
                type_name(obj)
            ),
        ));
    }
    if obj.call_method0("utcoffset")?.is_none() {
        return Err(bad(
            py,
            "naive datetime: attach a timezone (e.g. timezone.utc)".into(),
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
    let micros = i64::try_from(micros).map_err(|_| bad(py, "time out of range".into()))?;
    let kwargs = PyDict::new(py);
    kwargs.set_item("microseconds", micros)?;
    let delta = TIMEDELTA
        .import(py, "datetime", "timedelta")?
        .call((), Some(&kwargs))?;
    epoch(py)?.call_method1("__add__", (delta,))
}

/// Python data (dict, JSON text or None) as JSON text for core; `what` names it in errors.
pub(crate) fn json_arg(obj: Option<&Bound<'_, PyAny>>, what: &str) -> PyResult<String> {
    let Some(obj) = obj.filter(|o| !o.is_none()) else {
        return Ok("{}".to_string());
    };
    if let Ok(s) = obj.cast::<PyString>() {
        return text(s, what);
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
