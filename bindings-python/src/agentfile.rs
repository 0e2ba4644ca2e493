//! The agentrc Agentfile: `Agentfile` (parsed file) and the functions around it. The AST,
//! diagnostics, lockfile and policy decisions cross as plain dicts (core's serde form).

use leasekit::agentfile::{self as af, ParseOptions};
use leasekit::wire;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use serde::Serialize;

use crate::convert::py_to_json;
use crate::error::{attached, detached, json_to_py};
use crate::lease::PyLease;
use crate::text::Text;

/// A core value as Python data through its JSON form.
fn to_py<'py, T: Serialize>(py: Python<'py>, value: &T) -> PyResult<Bound<'py, PyAny>> {
    let v = attached(py, || {
        serde_json::to_value(value)
            .map_err(|e| leasekit::Error::new(leasekit::ErrorCode::InternalError, e.to_string()))
    })?;
    json_to_py(py, &v)
}

/// A parsed Agentfile (never raises: problems are in `diagnostics`). Secret values are never
/// stored, so no output of this object can carry one.
#[pyclass(name = "Agentfile", module = "leasekit", frozen)]
pub struct PyAgentfile {
    inner: af::Agentfile,
}

#[pymethods]
impl PyAgentfile {
    /// Parse diagnostics (dicts: code, severity, line, column, message, hint), by position.
    #[getter]
    fn diagnostics<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &self.inner.diagnostics())
    }

    /// True when a parse diagnostic has severity error.
    #[getter]
    fn has_errors(&self) -> bool {
        self.inner.has_errors()
    }

    /// The directives as dicts (name, args, text, line, column, span, block).
    #[getter]
    fn directives<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &self.inner.directives())
    }

    /// The CRED declarations as dicts (name, source, hosts, inject, line); no secret values.
    #[getter]
    fn creds<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &self.inner.creds())
    }

    /// The AGENT name, if any.
    #[getter]
    fn agent(&self) -> Option<String> {
        self.inner.agent().map(str::to_owned)
    }

    /// The AUDIT level ("none", "basic", ...), if any.
    #[getter]
    fn audit(&self) -> Option<&'static str> {
        self.inner.audit().map(af::AuditLevel::as_str)
    }

    /// `sha256:<hex>` of the source text (the text itself is not kept).
    #[getter]
    fn source_digest(&self) -> String {
        self.inner.source_digest().to_owned()
    }

    /// The whole AST as a dict.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &self.inner)
    }

    fn __repr__(&self) -> String {
        let agent = self
            .inner
            .agent()
            .map_or("None".to_owned(), |a| format!("{a:?}"));
        format!(
            "Agentfile(agent={agent}, directives={}, has_errors={})",
            self.inner.directives().len(),
            self.inner.has_errors()
        )
    }
}

/// Parse an Agentfile (strict unless `compat=True`); never raises on bad content.
#[pyfunction]
#[pyo3(signature = (text, *, compat=false))]
pub fn parse_agentfile(py: Python<'_>, text: Text<'_>, compat: bool) -> PyResult<PyAgentfile> {
    let inner = detached(py, || {
        Ok(af::parse_agentfile(&text, &ParseOptions { compat }))
    })?;
    Ok(PyAgentfile { inner })
}

/// Parse and lint diagnostics (list of dicts), sorted by position.
#[pyfunction]
pub fn lint<'py>(py: Python<'py>, agentfile: &PyAgentfile) -> PyResult<Bound<'py, PyAny>> {
    let ds = detached(py, || Ok(af::lint(&agentfile.inner)))?;
    to_py(py, &ds)
}

/// The lease an Agentfile requests (TOOL, URL, SERVER, MOUNT); raises InvalidRequest.
#[pyfunction]
pub fn agentfile_lease(py: Python<'_>, agentfile: &PyAgentfile) -> PyResult<PyLease> {
    let inner = detached(py, || af::agentfile_lease(&agentfile.inner))?;
    Ok(PyLease { inner })
}

/// Parse + lint + derive the lease: {"ok": bool, "diagnostics": [dict], "lease": Lease | None}.
#[pyfunction]
#[pyo3(signature = (text, *, compat=false))]
pub fn check_agentfile<'py>(
    py: Python<'py>,
    text: Text<'_>,
    compat: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let (report, wire) = detached(py, || {
        let report = af::check_agentfile(&text, compat);
        let wire = wire::agentfile_report_value(&report)?;
        Ok((report, wire))
    })?;
    let out = PyDict::new(py);
    out.set_item("ok", json_to_py(py, &wire["ok"])?)?;
    out.set_item("diagnostics", json_to_py(py, &wire["diagnostics"])?)?;
    out.set_item("lease", report.lease.map(|inner| PyLease { inner }))?;
    Ok(out)
}

/// The lockfile as a dict; raises InvalidRequest when lint reports an error.
#[pyfunction]
pub fn lock<'py>(py: Python<'py>, agentfile: &PyAgentfile) -> PyResult<Bound<'py, PyAny>> {
    let lf = detached(py, || af::lock(&agentfile.inner))?;
    to_py(py, &lf)
}

/// The lockfile as deterministic pretty JSON (`agentrc.lock` content).
#[pyfunction]
pub fn lockfile_json(py: Python<'_>, agentfile: &PyAgentfile) -> PyResult<String> {
    detached(py, || Ok(af::lockfile_json(&af::lock(&agentfile.inner)?)))
}

/// `sha256:<hex>` identity of the package (non-placement directives).
#[pyfunction]
pub fn package_digest(py: Python<'_>, agentfile: &PyAgentfile) -> PyResult<String> {
    detached(py, || Ok(af::package_digest(&agentfile.inner)))
}

/// A child Agentfile may only narrow its parent (lease subset, AUDIT not lowered); raises
/// LeaseSubsetViolation or InvalidRequest.
#[pyfunction]
pub fn check_inheritance(
    py: Python<'_>,
    parent: &PyAgentfile,
    child: &PyAgentfile,
) -> PyResult<()> {
    detached(py, || af::check_inheritance(&parent.inner, &child.inner))
}

/// Evaluate a Cedar request against the Agentfile's policies; fails closed. Returns
/// {"allowed": bool, "determining": [ids], "errors": [str]}.
#[pyfunction]
#[pyo3(signature = (agentfile, principal, action, resource, context=None))]
pub fn evaluate_policy<'py>(
    py: Python<'py>,
    agentfile: &PyAgentfile,
    principal: Text<'_>,
    action: Text<'_>,
    resource: Text<'_>,
    context: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let context = context.map(py_to_json).transpose()?.unwrap_or_default();
    let file = &agentfile.inner;
    let (principal, action, resource) = (&*principal, &*action, &*resource);
    let d = detached(py, || {
        Ok(af::evaluate_policy(
            file, principal, action, resource, &context,
        ))
    })?;
    to_py(py, &d)
}
