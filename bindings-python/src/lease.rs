//! `leasekit.Lease` (and the helper that accepts a `Lease`, a dict or a JSON string wherever a
//! lease is expected), lease validation, the subset check and `lint_lease`.

use leasekit::wire;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};

use crate::convert::{answer, budget_to_py, options_value, py_to_json};
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
    let value = if lease.is_instance_of::<PyLease>() || lease.is_instance_of::<PyString>() {
        lease_from_py(lease)?.to_value()
    } else {
        py_to_json(lease)?
    };
    attached(py, || leasekit::validate_lease_shape(&value))
}

/// The two subset functions share one signature: `parent_remaining` and any other keyword
/// (`options`) cross as plain data to core's `wire::SubsetOptions`, which reads the amount map
/// with its one rule and refuses an unknown key; the constraints are read by core's constraints
/// reader (they may also be a `LeaseConstraints` or JSON text). `$run` answers from the
/// converted `(child, parent, options)` with the interpreter lock released.
macro_rules! subset_fn {
    ($(#[$doc:meta])* $name:ident -> $ret:ty, $run:expr) => {
        $(#[$doc])*
        #[pyfunction]
        #[pyo3(signature = (child, parent, *, parent_remaining=None, child_constraints=None, parent_constraints=None, **options))]
        pub fn $name(
            py: Python<'_>,
            child: &Bound<'_, PyAny>,
            parent: &Bound<'_, PyAny>,
            parent_remaining: Option<&Bound<'_, PyAny>>,
            child_constraints: Option<&Bound<'_, PyAny>>,
            parent_constraints: Option<&Bound<'_, PyAny>>,
            options: Option<&Bound<'_, PyDict>>,
        ) -> PyResult<$ret> {
            let (child, parent) = (lease_from_py(child)?, lease_from_py(parent)?);
            let options = options_value(&[("parent_remaining", parent_remaining)], options)?;
            let mut options = attached(py, || {
                wire::SubsetOptions::from_value(options, wire::KeyStyle::Snake)
            })?;
            options.child_constraints = Some(constraints_from_py(child_constraints)?);
            options.parent_constraints = Some(constraints_from_py(parent_constraints)?);
            detached(py, || ($run)(&child, &parent, &options.as_core()))
        }
    };
}

subset_fn!(
    /// Whether `child` is a subset of `parent` (exact pattern-language inclusion, budget within
    /// the parent's remaining, expiry not later). `parent_remaining` is an amount map of `str`
    /// or `Decimal` amounts; any other keyword is an unknown option (InvalidRequest). Invalid
    /// input raises InvalidRequest.
    is_lease_subset -> bool,
    |c, p, o| Ok(leasekit::is_lease_subset(c, p, o))
);

subset_fn!(
    /// Like is_lease_subset but raises LeaseSubsetViolation whose `.details` name the
    /// capability, the child pattern and a witness the parent does not cover.
    check_lease_subset -> (),
    leasekit::check_lease_subset
);

/// Lease-writing mistakes (core's lint): a list of warnings
/// `{"code","capability","pattern","message","hint"}`; empty for a clean lease. An invalid
/// lease is InvalidRequest.
#[pyfunction]
pub fn lint_lease<'py>(lease: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let py = lease.py();
    let lease = lease_from_py(lease)?;
    let json = attached(py, || leasekit::lint_lease_json(&lease.to_json()))?;
    answer(py, &json)?.get_item("warnings")
}
