//! The one text conversion every string argument goes through: a Python `str` holding a lone
//! surrogate has no UTF-8 form and is `InvalidRequest` (never a `UnicodeEncodeError`, never
//! replaced), so core checks exactly the caller's text.

use pyo3::exceptions::PyUnicodeEncodeError;
use pyo3::prelude::*;
use pyo3::types::PyString;

use crate::error::invalid_err;

/// The UTF-8 text of a Python `str`: the one conversion every string argument goes through. A
/// `str` holding a lone surrogate has no UTF-8 form and is `InvalidRequest` (never a
/// `UnicodeEncodeError`, never replaced): the core must check exactly the caller's text.
pub fn str_of<'a>(s: &'a Bound<'_, PyString>, what: &str) -> PyResult<&'a str> {
    s.to_str().map_err(|e| not_unicode(s.py(), e, what))
}

/// A `UnicodeEncodeError` (a lone surrogate) as `InvalidRequest`; any other error unchanged.
fn not_unicode(py: Python<'_>, err: PyErr, what: &str) -> PyErr {
    if err.is_instance_of::<PyUnicodeEncodeError>(py) {
        invalid_err(
            py,
            format!("the {what} contains a lone surrogate (not valid Unicode)"),
        )
    } else {
        err
    }
}

/// A `str` argument, borrowed as UTF-8 with the rule of [`str_of`]. A non-`str` is a
/// `TypeError`, as for any Python argument of the wrong type.
pub struct Text<'a>(&'a str);

impl<'a, 'py> FromPyObject<'a, 'py> for Text<'a> {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        <&'a str>::extract(obj)
            .map(Text)
            .map_err(|e| not_unicode(obj.py(), e, "argument"))
    }
}

impl std::ops::Deref for Text<'_> {
    type Target = str;

    fn deref(&self) -> &str {
        self.0
    }
}

/// A `str` or `os.PathLike` argument (a store or socket path) as text, through [`str_of`].
pub fn path_text(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<String> {
    let py = obj.py();
    let text = match obj.cast::<PyString>() {
        Ok(s) => s.clone(),
        Err(_) => py
            .import("os")?
            .getattr("fspath")?
            .call1((obj,))?
            .cast_into::<PyString>()
            .map_err(|_| invalid_err(py, format!("the {what} must be a str path")))?,
    };
    Ok(str_of(&text, what)?.to_owned())
}
