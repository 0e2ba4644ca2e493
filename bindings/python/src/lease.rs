//! `leasekit.Lease` (and the helper that accepts a `Lease`, a dict or a JSON string wherever a
//! lease is expected), lease validation, the subset check and `lint_lease`.

use leasekit::wire;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};

use crate::convert::{budget_to_py, options_value, py_to_json};
use crate::error::{attached, detached, json_to_py};
use crate::expiry::constraints_from_py;
use crate::text::{Text, str_of};

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

/// Check a lease's shape (dict or JSON string); raises InvalidRequest when invalid.
#[pyfunction]
pub fn validate_lease_shape(py: Python<'_>, lease: &Bound<'_, PyAny>) -> PyResult<()> {
    let value = match lease.cast::<PyLease>() {
        Ok(l) => l.get().inner.to_value(),
        Err(_) => match lease.cast::<PyString>() {
            Ok(s) => {
                let text = str_of(s, "lease")?;
                attached(py, || Ok(leasekit::Lease::from_json(text)?.to_value()))?
            }
            Err(_) => py_to_json(lease)?,
        },
    };
    attached(py, || leasekit::validate_lease_shape(&value))
}

/// Inputs of a subset question, converted from Python; the options are core's wire shape.
struct SubsetArgs {
    child: leasekit::Lease,
    parent: leasekit::Lease,
    options: wire::SubsetOptions,
}

impl SubsetArgs {
    /// `parent_remaining` and any other keyword (`other`) cross as plain data to core's
    /// `wire::SubsetOptions`, which reads the amount map with its one rule and refuses an
    /// unknown key; the constraints are read by core's constraints reader (they may also be a
    /// `LeaseConstraints` or JSON text).
    fn new(
        child: &Bound<'_, PyAny>,
        parent: &Bound<'_, PyAny>,
        parent_remaining: Option<&Bound<'_, PyAny>>,
        child_constraints: Option<&Bound<'_, PyAny>>,
        parent_constraints: Option<&Bound<'_, PyAny>>,
        other: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        let py = child.py();
        let (child, parent) = (lease_from_py(child)?, lease_from_py(parent)?);
        let options = options_value(&[("parent_remaining", parent_remaining)], other)?;
        let mut options = attached(py, || {
            wire::SubsetOptions::from_value(options, wire::KeyStyle::Snake)
        })?;
        options.child_constraints = Some(constraints_from_py(child_constraints)?);
        options.parent_constraints = Some(constraints_from_py(parent_constraints)?);
        Ok(SubsetArgs {
            child,
            parent,
            options,
        })
    }

    fn check(&self) -> leasekit::Result<()> {
        leasekit::check_lease_subset(&self.child, &self.parent, &self.options.as_core())
    }

    fn is_subset(&self) -> bool {
        leasekit::is_lease_subset(&self.child, &self.parent, &self.options.as_core())
    }
}

/// Whether `child` is a subset of `parent` (exact pattern-language inclusion, budget within the
/// parent's remaining, expiry not later). `parent_remaining` is an amount map of `str` or
/// `Decimal` amounts; any other keyword is an unknown option (InvalidRequest). Invalid input
/// raises InvalidRequest.
#[pyfunction]
#[pyo3(signature = (child, parent, *, parent_remaining=None, child_constraints=None, parent_constraints=None, **options))]
pub fn is_lease_subset(
    py: Python<'_>,
    child: &Bound<'_, PyAny>,
    parent: &Bound<'_, PyAny>,
    parent_remaining: Option<&Bound<'_, PyAny>>,
    child_constraints: Option<&Bound<'_, PyAny>>,
    parent_constraints: Option<&Bound<'_, PyAny>>,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<bool> {
    let args = SubsetArgs::new(
        child,
        parent,
        parent_remaining,
        child_constraints,
        parent_constraints,
        options,
    )?;
    detached(py, || Ok(args.is_subset()))
}

/// Like is_lease_subset but raises LeaseSubsetViolation whose `.details` name the capability,
/// the child pattern and a witness the parent does not cover.
#[pyfunction]
#[pyo3(signature = (child, parent, *, parent_remaining=None, child_constraints=None, parent_constraints=None, **options))]
pub fn check_lease_subset(
    py: Python<'_>,
    child: &Bound<'_, PyAny>,
    parent: &Bound<'_, PyAny>,
    parent_remaining: Option<&Bound<'_, PyAny>>,
    child_constraints: Option<&Bound<'_, PyAny>>,
    parent_constraints: Option<&Bound<'_, PyAny>>,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<()> {
    let args = SubsetArgs::new(
        child,
        parent,
        parent_remaining,
        child_constraints,
        parent_constraints,
        options,
    )?;
    detached(py, || args.check())
}

/// Lease-writing mistakes (core's lint): a list of warnings
/// `{"code","capability","pattern","message","hint"}`; empty for a clean lease. An invalid
/// lease is InvalidRequest.
#[pyfunction]
pub fn lint_lease<'py>(lease: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let py = lease.py();
    let lease = lease_from_py(lease)?;
    let warnings = attached(py, || {
        let json = leasekit::lint_lease_json(&lease.to_json())?;
        serde_json::from_str::<serde_json::Value>(&json)
            .map_err(|e| leasekit::Error::new(leasekit::ErrorCode::InternalError, e.to_string()))
    })?;
    json_to_py(py, &warnings["warnings"])
}
