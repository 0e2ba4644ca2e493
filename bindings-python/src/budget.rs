//! Budget and amount functions, and `leasekit.BudgetEntry`.

use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::convert::{amount_from_py, amounts_from_py, budget_to_py, decimal_to_py, py_to_json};
use crate::error::{attached, invalid};
use crate::lease::lease_from_py;
use crate::text::Text;

/// Parse a `cost.budget` entry such as "USD:2.50" into a BudgetEntry(currency, amount).
#[pyfunction]
pub fn parse_budget_amount(py: Python<'_>, entry: Text<'_>) -> PyResult<PyBudgetEntry> {
    let e = attached(py, || leasekit::parse_budget_amount(&entry))?;
    let amount = decimal_to_py(py, &e.amount)?.unbind();
    Ok(PyBudgetEntry {
        currency: e.currency,
        amount,
    })
}

/// Parse an AMOUNT ("2.50", a Decimal or an int) into a normalized Decimal.
#[pyfunction]
pub fn parse_amount<'py>(value: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    decimal_to_py(value.py(), &amount_from_py(value)?)
}

/// Normalized text of an amount (no trailing zeros), e.g. Decimal("2.50") -> "2.5".
#[pyfunction]
pub fn format_amount(value: &Bound<'_, PyAny>) -> PyResult<String> {
    let d = amount_from_py(value)?;
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

/// The items of a list/tuple of `str` (read as plain data, from its own storage); anything else
/// is InvalidRequest.
fn str_items(seq: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
    let value = py_to_json(seq)?;
    attached(seq.py(), || {
        serde_json::from_value(value).map_err(|_| invalid("budget entries must be a list of str"))
    })
}

/// A parsed `cost.budget` entry: `currency` (str) and `amount` (Decimal).
#[pyclass(name = "BudgetEntry", module = "leasekit", frozen, get_all)]
pub struct PyBudgetEntry {
    /// Currency code (case-sensitive).
    currency: String,
    /// Amount (decimal.Decimal, normalized).
    amount: Py<PyAny>,
}

#[pymethods]
impl PyBudgetEntry {
    /// (currency, amount), so `currency, amount = parse_budget_amount(...)` works.
    fn __iter__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        (self.currency.clone(), self.amount.clone_ref(py))
            .into_pyobject(py)?
            .try_iter()
            .map(Bound::into_any)
    }

    fn __eq__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<bool> {
        let Ok(o) = other.cast::<PyBudgetEntry>() else {
            return Ok(false);
        };
        let o = o.get();
        Ok(o.currency == self.currency && o.amount.bind(py).eq(self.amount.bind(py))?)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "BudgetEntry(currency={:?}, amount=Decimal('{}'))",
            self.currency,
            self.amount.bind(py).str()?
        ))
    }
}
