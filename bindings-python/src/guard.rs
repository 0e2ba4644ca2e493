//! `leasekit.LeaseGuard`, the thread-safe runtime gate, and `leasekit.Metric`, what it emits.
//! Every call releases the interpreter lock while core works, so many Python threads can share
//! one guard.

use leasekit::{LeaseGuard, wire};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};
use std::borrow::Cow;

use crate::clock::clock_from_py;
use crate::convert::{
    amount_from_py, amount_text, budget_to_py, decimal_to_py, options_value, timestamp_to_py,
};
use crate::error::{attached, detached};
use crate::expiry::constraints_from_py;
use crate::lease::{PyLease, lease_from_py};
use crate::text::{Text, str_of};

/// Enforces one lease: expiry, budget, capability and pattern checks, spend metrics and
/// delegation. Safe to share between threads.
#[pyclass(name = "LeaseGuard", module = "leasekit", frozen)]
pub struct PyLeaseGuard {
    inner: LeaseGuard,
}

/// Targets longer than this many bytes are checked with the interpreter lock released (the
/// match is linear in the target); shorter ones cost less than releasing and re-taking it.
const DETACH_BYTES: usize = 4096;

impl PyLeaseGuard {
    /// `authorize`, handing back the caller's string object when core borrowed it.
    fn authorize_str<'py>(
        &self,
        capability: &str,
        target: &Bound<'py, PyString>,
    ) -> PyResult<Bound<'py, PyString>> {
        let py = target.py();
        let text = str_of(target, "target")?;
        let canonical = if text.len() > DETACH_BYTES {
            detached(py, || self.inner.authorize_cow(capability, text))?
        } else {
            attached(py, || self.inner.authorize_cow(capability, text))?
        };
        Ok(match canonical {
            Cow::Borrowed(_) => target.clone(),
            Cow::Owned(s) => PyString::new(py, &s),
        })
    }
}

#[pymethods]
impl PyLeaseGuard {
    /// LeaseGuard(lease, constraints=None, *, clock=None, grace_millis=0, allow_any_model=False).
    /// `clock` is None (system time), a ManualClock, or a callable returning an aware datetime.
    #[new]
    #[pyo3(signature = (lease, constraints=None, *, clock=None, grace_millis=None, allow_any_model=None))]
    fn new(
        lease: &Bound<'_, PyAny>,
        constraints: Option<&Bound<'_, PyAny>>,
        clock: Option<&Bound<'_, PyAny>>,
        grace_millis: Option<&Bound<'_, PyAny>>,
        allow_any_model: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let py = lease.py();
        let lease = lease_from_py(lease)?;
        let constraints = constraints_from_py(constraints)?;
        let clock = clock_from_py(clock)?;
        // The option keys and their rules are core's wire shape.
        let named = [
            ("grace_millis", grace_millis),
            ("allow_any_model", allow_any_model),
        ];
        let options = options_value(&named, None)?;
        let inner = attached(py, || {
            let options = wire::GuardOptions::from_value(options, wire::KeyStyle::Snake)?;
            let options = options.to_core();
            Ok(LeaseGuard::with_options(lease, constraints, clock, options))
        })?;
        Ok(PyLeaseGuard { inner })
    }

    /// Authorize `capability` on `target`; returns the canonical target to operate on (the
    /// very `target` object when it is already canonical).
    /// Raises LeaseExpired, BudgetExhausted, InvalidRequest or PermissionDenied.
    fn authorize<'py>(
        &self,
        capability: Text<'_>,
        target: &Bound<'py, PyString>,
    ) -> PyResult<Bound<'py, PyString>> {
        self.authorize_str(&capability, target)
    }

    /// Authorize the use of model `model_id` (`model.use`); returns the model id.
    fn authorize_model<'py>(
        &self,
        model_id: &Bound<'py, PyString>,
    ) -> PyResult<Bound<'py, PyString>> {
        self.authorize_str("model.use", model_id)
    }

    /// Record a metric; `cost.*` metrics in a budgeted currency spend budget. `value` is a
    /// Decimal, str or int. Returns the metrics to emit (e.g. `cost.budget.remaining`).
    fn record_metric(
        &self,
        py: Python<'_>,
        name: Text<'_>,
        value: &Bound<'_, PyAny>,
        unit: Text<'_>,
    ) -> PyResult<Vec<PyMetric>> {
        let value = amount_text(value)?;
        let ms = detached(py, || self.inner.record_metric(&name, &value, &unit))?;
        PyMetric::list(py, &ms)
    }

    /// Atomically reserve `amount` of `currency`; raises BudgetExhausted (nothing changes)
    /// when the counter would drop below zero. Returns the metrics to emit.
    fn reserve(
        &self,
        py: Python<'_>,
        currency: Text<'_>,
        amount: &Bound<'_, PyAny>,
    ) -> PyResult<Vec<PyMetric>> {
        let amount = amount_from_py(amount)?;
        let ms = detached(py, || self.inner.reserve(&currency, amount))?;
        PyMetric::list(py, &ms)
    }

    /// The remaining budget per currency, {currency: Decimal}.
    fn remaining<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let m = detached(py, || Ok(self.inner.remaining()))?;
        budget_to_py(py, &m)
    }

    /// Delegate a child lease (must be a subset: LeaseSubsetViolation otherwise). The child's
    /// budget is reserved from this guard at once and returned by `close()` on the child.
    #[pyo3(signature = (child, constraints=None))]
    fn delegate(
        &self,
        py: Python<'_>,
        child: &Bound<'_, PyAny>,
        constraints: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyLeaseGuard> {
        let child = lease_from_py(child)?;
        let constraints = constraints_from_py(constraints)?;
        let inner = detached(py, || self.inner.delegate(child, constraints))?;
        Ok(PyLeaseGuard { inner })
    }

    /// Close the guard (a child returns its unspent budget to its parent); idempotent.
    fn close(&self, py: Python<'_>) -> PyResult<Vec<PyMetric>> {
        let ms = detached(py, || Ok(self.inner.close()))?;
        PyMetric::list(py, &ms)
    }

    /// True once `close()` has been called.
    #[getter]
    fn closed(&self) -> bool {
        self.inner.is_closed()
    }

    /// The guarded lease.
    #[getter]
    fn lease(&self) -> PyLease {
        PyLease {
            inner: self.inner.lease().clone(),
        }
    }

    /// The effective (inherited) expiry as an aware UTC datetime, or None.
    #[getter]
    fn expires_at<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.inner
            .expires_at()
            .map(|t| timestamp_to_py(py, t))
            .transpose()
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    /// Closes the guard on leaving a `with` block.
    #[pyo3(signature = (*_args))]
    fn __exit__(&self, py: Python<'_>, _args: &Bound<'_, pyo3::types::PyTuple>) -> PyResult<bool> {
        self.close(py)?;
        Ok(false)
    }

    fn __repr__(&self) -> String {
        format!(
            "LeaseGuard({}, closed={})",
            self.inner.lease().to_json(),
            self.inner.is_closed()
        )
    }
}

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
    /// Converts a list of core metrics.
    fn list(py: Python<'_>, ms: &[leasekit::Metric]) -> PyResult<Vec<PyMetric>> {
        ms.iter()
            .map(|m| {
                let (name, unit) = (m.name.clone(), m.unit.clone());
                let value = decimal_to_py(py, &m.value)?.unbind();
                Ok(PyMetric { name, value, unit })
            })
            .collect()
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

/// The native MCP guard behind `leasekit.mcp` (core's `ClientGuard`): JSON text in, Python
/// data out. Every decision runs with the interpreter lock released (a configured governor is
/// a socket round trip).
#[pyclass(name = "McpGuardCore", module = "leasekit._native", frozen)]
pub struct PyMcpGuardCore {
    inner: std::sync::Arc<leasekit::mcp::ClientGuard>,
}

#[pymethods]
impl PyMcpGuardCore {
    /// McpGuardCore(config_json): see `leasekit.mcp.McpGuard`.
    #[new]
    fn new(py: Python<'_>, config_json: &Bound<'_, PyString>) -> PyResult<Self> {
        let config = str_of(config_json, "config")?.to_owned();
        let inner = detached(py, || leasekit::mcp::ClientGuard::from_json(&config))?;
        Ok(PyMcpGuardCore {
            inner: std::sync::Arc::new(inner),
        })
    }

    /// The server name calls are checked against (`mcp:<server>.<tool>`).
    #[getter]
    fn server(&self) -> String {
        self.inner.server()
    }

    /// decide_call(params_json) -> dict: the decision on one `tools/call`.
    fn decide_call<'py>(
        &self,
        py: Python<'py>,
        params_json: &Bound<'py, PyString>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let params = str_of(params_json, "params")?.to_owned();
        let g = self.inner.clone();
        let out = detached(py, move || Ok(g.decide_call(&params)))?;
        crate::convert::answer(py, &out)
    }

    /// finish_call(call_id, outcome) -> list of log lines: `success`, `toolError`, `error`
    /// or `cancelled`.
    fn finish_call<'py>(
        &self,
        py: Python<'py>,
        call_id: u64,
        outcome: Text<'_>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let outcome = attached(py, || leasekit::mcp::CallOutcome::parse(&outcome))?;
        let g = self.inner.clone();
        let out = detached(py, move || Ok(g.finish_call(call_id, outcome)))?;
        crate::convert::answer(py, &out)
    }

    /// filter_tools(result_json) -> dict: a `tools/list` result filtered to the allowed tools.
    fn filter_tools<'py>(
        &self,
        py: Python<'py>,
        result_json: &Bound<'py, PyString>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let result = str_of(result_json, "result")?.to_owned();
        let g = self.inner.clone();
        let out = detached(py, move || g.filter_tools(&result))?;
        crate::convert::answer(py, &out)
    }

    /// decide_resource(uri) -> dict: the decision on one `resources/read`.
    fn decide_resource<'py>(&self, py: Python<'py>, uri: Text<'_>) -> PyResult<Bound<'py, PyAny>> {
        let uri = (*uri).to_owned();
        let g = self.inner.clone();
        let out = detached(py, move || Ok(g.decide_resource(&uri)))?;
        crate::convert::answer(py, &out)
    }
}
