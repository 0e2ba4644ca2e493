//! Free functions: capability names, canonicalization, matching, lease shape, budgets, expiry,
//! subset and narrowing. Each converts its arguments, calls core, and converts the result.

use leasekit::wire;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};

use crate::convert::{
    Text, amount_text, amounts_from_py, budget_to_py, decimal_to_py, json_to_py, py_to_json,
    str_of, timestamp_from_py, timestamp_to_py,
};
use crate::errors::{attached, detached};
use crate::lease::{PyConstraints, PyLease, constraints_from_py, lease_from_py};
use crate::values::PyBudgetEntry;

/// True for the seven reserved ARCP capability names.
#[pyfunction]
pub fn is_reserved_capability_name(py: Python<'_>, name: Text<'_>) -> PyResult<bool> {
    attached(py, || Ok(leasekit::is_reserved_capability_name(&name)))
}

/// True for a reserved name or a well-formed `x-vendor.<vendor>.<cap>` name.
#[pyfunction]
pub fn is_valid_capability_name(py: Python<'_>, name: Text<'_>) -> PyResult<bool> {
    attached(py, || Ok(leasekit::is_valid_capability_name(&name)))
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

/// The canonical form of `target` for `capability` (paths, URLs); raises InvalidRequest.
#[pyfunction]
pub fn canonicalize_target(
    py: Python<'_>,
    capability: Text<'_>,
    target: Text<'_>,
) -> PyResult<String> {
    attached(py, || leasekit::canonicalize_target(&capability, &target))
}

/// Validate a pattern for `capability`; returns the stored (canonical) pattern.
#[pyfunction]
pub fn validate_pattern(
    py: Python<'_>,
    capability: Text<'_>,
    pattern: Text<'_>,
) -> PyResult<String> {
    attached(py, || leasekit::validate_pattern(&capability, &pattern))
}

/// Whether `pattern` matches `target` (canonicalized first) for `capability`.
#[pyfunction]
pub fn match_pattern(
    py: Python<'_>,
    capability: Text<'_>,
    pattern: Text<'_>,
    target: Text<'_>,
) -> PyResult<bool> {
    attached(py, || {
        leasekit::match_pattern(&capability, &pattern, &target)
    })
}

/// Parse a `cost.budget` entry such as "USD:2.50" into a BudgetEntry(currency, amount).
#[pyfunction]
pub fn parse_budget_amount(py: Python<'_>, entry: Text<'_>) -> PyResult<PyBudgetEntry> {
    let e = attached(py, || leasekit::parse_budget_amount(&entry))?;
    PyBudgetEntry::from_core(py, &e)
}

/// Parse an AMOUNT ("2.50", a Decimal or an int) into a normalized Decimal.
#[pyfunction]
pub fn parse_amount<'py>(value: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let py = value.py();
    let text = amount_text(value)?;
    let d = attached(py, || leasekit::parse_amount(&text))?;
    decimal_to_py(py, &d)
}

/// Normalized text of an amount (no trailing zeros), e.g. Decimal("2.50") -> "2.5".
#[pyfunction]
pub fn format_amount(value: &Bound<'_, PyAny>) -> PyResult<String> {
    let d = crate::convert::amount_from_py(value)?;
    attached(value.py(), || Ok(leasekit::format_amount(&d)))
}

/// Sum `cost.budget` entries per currency: {currency: Decimal}.
#[pyfunction]
pub fn sum_budget_entries<'py>(entries: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyDict>> {
    let py = entries.py();
    let entries = str_items(entries)?;
    let m = attached(py, || leasekit::sum_budget_entries(&entries))?;
    budget_to_py(py, &m)
}

/// The initial budget of a lease (its summed `cost.budget`): {currency: Decimal}.
#[pyfunction]
pub fn initial_budget<'py>(lease: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyDict>> {
    let py = lease.py();
    let lease = lease_from_py(lease)?;
    let m = attached(py, || Ok(leasekit::initial_budget(&lease)))?;
    budget_to_py(py, &m)
}

/// Raise `BudgetExhausted` when a caller-tracked remaining counter {currency: amount} is <= 0.
#[pyfunction]
pub fn check_budget_remaining(remaining: &Bound<'_, PyAny>) -> PyResult<()> {
    let m = amounts_from_py(remaining)?;
    attached(remaining.py(), || leasekit::check_budget_remaining(&m.0))
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
        let mut options = serde_json::Map::new();
        if let Some(r) = parent_remaining.filter(|r| !r.is_none()) {
            options.insert("parent_remaining".to_owned(), py_to_json(r)?);
        }
        for (key, value) in other.into_iter().flat_map(|d| d.iter()) {
            let key = key.cast_into::<PyString>()?;
            options.insert(str_of(&key, "option name")?.to_owned(), py_to_json(&value)?);
        }
        let mut options = attached(py, || {
            wire::SubsetOptions::from_value(options.into(), wire::KeyStyle::Snake)
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

/// The items of a list/tuple of `str`; anything else is InvalidRequest.
fn str_items(seq: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
    let py = seq.py();
    let bad = |m: &str| crate::errors::to_py_err(py, crate::errors::invalid(m));
    // Read from the list's or tuple's own storage, never through an overridable `__iter__`.
    let items: Vec<Bound<'_, PyAny>> = if let Ok(list) = seq.cast::<PyList>() {
        list.iter().collect()
    } else if let Ok(tuple) = seq.cast::<pyo3::types::PyTuple>() {
        tuple.iter().collect()
    } else {
        return Err(bad("expected a list of budget entry strings"));
    };
    let mut out = Vec::new();
    for item in items {
        let s = item
            .cast::<PyString>()
            .map_err(|_| bad("budget entries must be str"))?;
        out.push(str_of(s, "budget entry")?.to_owned());
    }
    Ok(out)
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
