//! Error mapping: every core `leasekit::Error` becomes the `leasekit.LeaseError` subclass for its
//! code (classes live in `python/leasekit/_errors.py`), and every Rust panic is caught at the
//! boundary and reported as `INTERNAL_ERROR`.
//!
//! This module depends on no other module of the binding (every converter raises through it),
//! so it also holds the JSON -> Python value conversion that an error's details need; the
//! converters and the core answers use the same one.

use std::panic::{AssertUnwindSafe, catch_unwind};

use leasekit::{Error, ErrorCode};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;

use pyo3::types::{PyBool, PyDict, PyList, PyString};
use serde_json::{Map, Value};

/// The Python factory `leasekit._errors._from_native(code, message, retryable, details)`.
static FROM_NATIVE: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// Converts a core error into the matching Python exception (or, should the exception module
/// itself fail, that failure).
pub fn to_py_err(py: Python<'_>, err: Error) -> PyErr {
    build(py, &err).unwrap_or_else(|e| e)
}

fn build(py: Python<'_>, err: &Error) -> PyResult<PyErr> {
    let factory = FROM_NATIVE.get_or_try_init(py, || {
        Ok::<_, PyErr>(
            py.import("leasekit._errors")?
                .getattr("_from_native")?
                .unbind(),
        )
    })?;
    let details = json_map_to_py(py, err.details())?;
    let exc =
        factory
            .bind(py)
            .call1((err.code().as_str(), err.message(), err.retryable(), details))?;
    Ok(PyErr::from_value(exc))
}

/// Shorthand for an `INVALID_REQUEST` core error.
pub fn invalid(message: impl Into<String>) -> Error {
    Error::new(ErrorCode::InvalidRequest, message)
}

/// Runs `f` with the GIL released, catching panics; core errors become Python exceptions.
pub fn detached<T, F>(py: Python<'_>, f: F) -> PyResult<T>
where
    T: Send,
    F: FnOnce() -> leasekit::Result<T> + Send,
{
    let out = py.detach(|| catch_unwind(AssertUnwindSafe(f)));
    finish(py, out)
}

/// Runs `f` while attached to Python (it may touch Python objects), catching panics.
pub fn attached<T, F>(py: Python<'_>, f: F) -> PyResult<T>
where
    F: FnOnce() -> leasekit::Result<T>,
{
    finish(py, catch_unwind(AssertUnwindSafe(f)))
}

fn finish<T>(py: Python<'_>, out: std::thread::Result<leasekit::Result<T>>) -> PyResult<T> {
    match out {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(e)) => Err(to_py_err(py, e)),
        Err(payload) => Err(to_py_err(py, Error::internal_from_panic(payload.as_ref()))),
    }
}

/// `[(code, retryable), ...]` for every code core knows, in core's order.
#[pyfunction]
pub fn error_codes() -> Vec<(&'static str, bool)> {
    ErrorCode::ALL
        .iter()
        .map(|c| (c.as_str(), c.retryable()))
        .collect()
}

/// An `INVALID_REQUEST` core error as its Python exception (`InvalidRequest`).
pub fn invalid_err(py: Python<'_>, message: impl Into<String>) -> PyErr {
    to_py_err(py, invalid(message))
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
