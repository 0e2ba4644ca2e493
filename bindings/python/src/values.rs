//! Small immutable result types: `Metric` and `BudgetEntry`.

use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::convert::decimal_to_py;

/// A metric emitted by a guard (e.g. `cost.budget.remaining`); `value` is a Decimal.
#[pyclass(name = "Metric", module = "leasekit", frozen, get_all)]
pub struct PyMetric {
    /// Metric name.
    name: String,
    /// Metric value (decimal.Decimal).
    value: Py<PyAny>,
    /// Unit (the currency for budget metrics).
    unit: String,
}

impl PyMetric {
    /// Converts a core metric.
    pub fn from_core(py: Python<'_>, m: &leasekit::Metric) -> PyResult<Self> {
        Ok(PyMetric {
            name: m.name.clone(),
            value: decimal_to_py(py, &m.value)?.unbind(),
            unit: m.unit.clone(),
        })
    }

    /// Converts a list of core metrics.
    pub fn list(py: Python<'_>, ms: &[leasekit::Metric]) -> PyResult<Vec<PyMetric>> {
        ms.iter().map(|m| PyMetric::from_core(py, m)).collect()
    }
}

#[pymethods]
impl PyMetric {
    /// {"name", "value" (Decimal), "unit"}.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("name", &self.name)?;
        d.set_item("value", self.value.bind(py))?;
        d.set_item("unit", &self.unit)?;
        Ok(d)
    }

    fn __eq__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<bool> {
        let Ok(o) = other.cast::<PyMetric>() else {
            return Ok(false);
        };
        let o = o.get();
        Ok(o.name == self.name
            && o.unit == self.unit
            && o.value.bind(py).eq(self.value.bind(py))?)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "Metric(name={:?}, value=Decimal('{}'), unit={:?})",
            self.name,
            self.value.bind(py).str()?,
            self.unit
        ))
    }
}

/// A parsed `cost.budget` entry: `currency` (str) and `amount` (Decimal).
#[pyclass(name = "BudgetEntry", module = "leasekit", frozen, get_all)]
pub struct PyBudgetEntry {
    /// Currency code (case-sensitive).
    currency: String,
    /// Amount (decimal.Decimal, normalized).
    amount: Py<PyAny>,
}

impl PyBudgetEntry {
    /// Converts a core entry.
    pub fn from_core(py: Python<'_>, e: &leasekit::BudgetEntry) -> PyResult<Self> {
        Ok(PyBudgetEntry {
            currency: e.currency.clone(),
            amount: decimal_to_py(py, &e.amount)?.unbind(),
        })
    }
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
