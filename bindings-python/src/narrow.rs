//! Narrowing: `narrow_lease` (with its result type `leasekit.Narrowed`) and
//! `narrow_constraints`.

use leasekit::wire;
use pyo3::prelude::*;
use pyo3::types::PyList;

use crate::error::{attached, detached, json_to_py};
use crate::expiry::{PyConstraints, constraints_from_py};
use crate::lease::{PyLease, lease_from_py};

/// The result of narrow_lease: the effective `lease` and the list of `reductions` (dicts).
#[pyclass(name = "Narrowed", module = "leasekit", frozen, get_all)]
pub struct PyNarrowed {
    /// The effective lease (a subset of both inputs).
    lease: Py<PyLease>,
    /// What was reduced: dicts {capability, pattern, action, replacement}.
    reductions: Py<PyList>,
}

#[pymethods]
impl PyNarrowed {
    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "Narrowed(lease={}, reductions={})",
            self.lease.bind(py).repr()?,
            self.reductions.bind(py).repr()?
        ))
    }
}

/// Narrow a requested lease to a ceiling: returns Narrowed(lease, reductions).
#[pyfunction]
pub fn narrow_lease(
    py: Python<'_>,
    requested: &Bound<'_, PyAny>,
    ceiling: &Bound<'_, PyAny>,
) -> PyResult<PyNarrowed> {
    let requested = lease_from_py(requested)?;
    let ceiling = lease_from_py(ceiling)?;
    let (lease, reductions) = detached(py, || {
        let n = leasekit::narrow_lease(&requested, &ceiling)?;
        let reductions = wire::reductions_value(&n.reductions)?;
        Ok((n.lease, reductions))
    })?;
    let list = json_to_py(py, &reductions)?.cast_into::<PyList>()?;
    Ok(PyNarrowed {
        lease: Py::new(py, PyLease { inner: lease })?,
        reductions: list.unbind(),
    })
}

/// Narrow constraints: the earlier expiry wins.
#[pyfunction]
#[pyo3(signature = (requested, ceiling))]
pub fn narrow_constraints(
    py: Python<'_>,
    requested: Option<&Bound<'_, PyAny>>,
    ceiling: Option<&Bound<'_, PyAny>>,
) -> PyResult<PyConstraints> {
    let r = constraints_from_py(requested)?;
    let c = constraints_from_py(ceiling)?;
    let inner = attached(py, || Ok(leasekit::narrow_constraints(&r, &c)))?;
    Ok(PyConstraints { inner })
}
