//! `leasekit.Lease` and `leasekit.LeaseConstraints`, plus the helpers that accept either the
//! class or plain Python data (dict / JSON string) wherever a lease or constraints are expected.

use leasekit::LeaseConstraints as CoreConstraints;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};

use crate::convert::{
    Text, budget_to_py, json_to_py, py_to_json, str_of, timestamp_from_py, timestamp_to_py,
};
use crate::errors::{IntoPyResult, attached};

/// An ARCP lease: capability name -> list of patterns, validated and canonicalized by core.
#[pyclass(name = "Lease", module = "leasekit", frozen)]
#[derive(Clone)]
pub struct PyLease {
    /// The core lease.
    pub inner: leasekit::Lease,
}

#[pymethods]
impl PyLease {
    /// Lease(value): build from a dict, a JSON string or another Lease; bad shape raises
    /// InvalidRequest.
    #[new]
    fn new(value: &Bound<'_, PyAny>) -> PyResult<Self> {
        Ok(PyLease {
            inner: lease_from_py(value)?,
        })
    }

    /// Lease.from_json(text): parse the ARCP JSON object (duplicate keys are rejected).
    #[staticmethod]
    fn from_json(py: Python<'_>, text: Text<'_>) -> PyResult<Self> {
        let inner = attached(py, || leasekit::Lease::from_json(&text))?;
        Ok(PyLease { inner })
    }

    /// Lease.from_dict(value): build from a dict of capability -> list of patterns.
    #[staticmethod]
    fn from_dict(value: &Bound<'_, PyDict>) -> PyResult<Self> {
        Ok(PyLease {
            inner: lease_from_py(value.as_any())?,
        })
    }

    /// The lease as a dict (stored, canonical patterns).
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        json_to_py(py, &self.inner.to_value())
    }

    /// The lease as a compact JSON string.
    fn to_json(&self) -> String {
        self.inner.to_json()
    }

    /// The capability names, in the lease's order.
    fn capabilities(&self) -> Vec<String> {
        self.inner.capabilities().map(str::to_owned).collect()
    }

    /// The stored (canonical) patterns of `capability`, or None when it is absent.
    fn patterns(&self, capability: Text<'_>) -> Option<Vec<String>> {
        self.inner.patterns(&capability).map(<[String]>::to_vec)
    }

    /// The summed `cost.budget` as {currency: Decimal}.
    #[getter]
    fn budget<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        budget_to_py(py, self.inner.budget())
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        match other.cast::<PyLease>() {
            Ok(o) => o.get().inner.to_value() == self.inner.to_value(),
            Err(_) => false,
        }
    }

    fn __contains__(&self, capability: Text<'_>) -> bool {
        self.inner.patterns(&capability).is_some()
    }

    fn __repr__(&self) -> String {
        format!("Lease({})", self.inner.to_json())
    }
}

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
        let expires_at = match expires_at {
            Some(v) if !v.is_none() => Some(timestamp_from_py(v)?),
            _ => None,
        };
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

/// A core lease from a `Lease`, a dict or a JSON string.
pub fn lease_from_py(obj: &Bound<'_, PyAny>) -> PyResult<leasekit::Lease> {
    let py = obj.py();
    if let Ok(l) = obj.cast::<PyLease>() {
        return Ok(l.get().inner.clone());
    }
    if let Ok(s) = obj.cast::<PyString>() {
        let text = str_of(s, "lease")?;
        return attached(py, || leasekit::Lease::from_json(text));
    }
    let value = py_to_json(obj)?;
    attached(py, || leasekit::Lease::from_value(&value))
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
    CoreConstraints::from_value(&value).py(py)
}
