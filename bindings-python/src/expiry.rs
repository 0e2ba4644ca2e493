//! Expiry: `leasekit.LeaseConstraints` (and the helper that accepts constraints as the class,
//! a dict or JSON text), `parse_expires_at` and `validate_lease_constraints`.

use leasekit::LeaseConstraints as CoreConstraints;
use pyo3::prelude::*;
use pyo3::types::PyString;

use crate::convert::{py_to_json, timestamp_from_py, timestamp_to_py};
use crate::error::{attached, json_to_py};
use crate::text::{Text, str_of};

/// Lease constraints (`expires_at`), built from a datetime or an RFC 3339 string.
#[pyclass(name = "LeaseConstraints", module = "leasekit", frozen)]
#[derive(Clone)]
pub struct PyConstraints {
    /// The core constraints.
    pub inner: CoreConstraints,
}

#[pymethods]
impl PyConstraints {
    /// LeaseConstraints(expires_at=None): `expires_at` is an aware datetime or a strict RFC 3339
    /// `Z` string.
    #[new]
    #[pyo3(signature = (expires_at=None))]
    fn new(expires_at: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        let expires_at = expires_at.filter(|v| !v.is_none());
        let expires_at = expires_at.map(timestamp_from_py).transpose()?;
        Ok(PyConstraints {
            inner: CoreConstraints { expires_at },
        })
    }

    /// The expiry as an aware UTC datetime, or None.
    #[getter]
    fn expires_at<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.inner
            .expires_at
            .map(|t| timestamp_to_py(py, t))
            .transpose()
    }

    /// The constraints as a dict ({"expires_at": "...Z"} or {}).
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        json_to_py(py, &self.inner.to_value())
    }

    fn __repr__(&self) -> String {
        format!("LeaseConstraints({})", self.inner.to_value())
    }
}

/// Core constraints from None, a `LeaseConstraints`, a dict or a JSON string.
pub fn constraints_from_py(obj: Option<&Bound<'_, PyAny>>) -> PyResult<CoreConstraints> {
    let Some(obj) = obj.filter(|o| !o.is_none()) else {
        return Ok(CoreConstraints { expires_at: None });
    };
    let py = obj.py();
    if let Ok(c) = obj.cast::<PyConstraints>() {
        return Ok(c.get().inner);
    }
    if let Ok(s) = obj.cast::<PyString>() {
        let text = str_of(s, "constraints")?;
        return attached(py, || CoreConstraints::from_json(text));
    }
    let value = py_to_json(obj)?;
    attached(py, || CoreConstraints::from_value(&value))
}

/// Parse a strict `YYYY-MM-DDTHH:MM:SS[.f]Z` time into an aware UTC datetime.
#[pyfunction]
pub fn parse_expires_at<'py>(py: Python<'py>, text: Text<'_>) -> PyResult<Bound<'py, PyAny>> {
    let t = attached(py, || leasekit::parse_expires_at(&text))?;
    timestamp_to_py(py, t)
}

/// Check constraints at submit: `expires_at` must be strictly after `now` (default: the system
/// time); raises InvalidRequest.
#[pyfunction]
#[pyo3(signature = (constraints, now=None))]
pub fn validate_lease_constraints(
    py: Python<'_>,
    constraints: &Bound<'_, PyAny>,
    now: Option<&Bound<'_, PyAny>>,
) -> PyResult<()> {
    let c = constraints_from_py(Some(constraints))?;
    let now = match now.filter(|n| !n.is_none()) {
        Some(n) => timestamp_from_py(n)?,
        None => attached(py, || leasekit::Clock::now(&leasekit::SystemClock))?,
    };
    attached(py, || leasekit::validate_lease_constraints(&c, now))
}
