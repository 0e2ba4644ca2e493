//! `leasekit._native.GovernorCore` (the embedded governor) and `decode_frame`. The typed,
//! snake_case surface is `python/leasekit/governor.py`; this file only converts: Python data
//! to core's wire JSON and back, core errors to `LeaseError` subclasses. Core calls run with
//! the interpreter lock released, so threads share one governor (and its group commit).

use std::sync::Mutex;

use leasekit::governor::EmbeddedGovernor;
use leasekit::governor::wire::decode_request_frame;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};

use crate::convert::{
    governor_call, governor_handle, json_arg, timestamp_from_py, timestamp_to_py,
};
use crate::error::{attached, detached, invalid_err, json_to_py, to_py_err};
use crate::text::path_text;

/// The native embedded governor behind `leasekit.Governor`.
#[pyclass(name = "GovernorCore", module = "leasekit._native", frozen)]
pub struct PyGovernorCore {
    inner: Mutex<Option<EmbeddedGovernor>>,
}

impl PyGovernorCore {
    /// The open governor (a cheap clone, so the lock is not held during a call).
    fn gov(&self, py: Python<'_>) -> PyResult<EmbeddedGovernor> {
        let g = self.inner.lock().unwrap_or_else(|p| p.into_inner()).clone();
        g.ok_or_else(|| invalid_err(py, "the governor is closed"))
    }
}

#[pymethods]
impl PyGovernorCore {
    /// open(store, policy, options): see `leasekit.Governor.open`.
    #[staticmethod]
    #[pyo3(signature = (store, policy=None, options=None))]
    fn open(
        py: Python<'_>,
        store: &Bound<'_, PyAny>,
        policy: Option<&Bound<'_, PyAny>>,
        options: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let store = path_text(store, "store")?;
        let policy = json_arg(policy, "policy")?;
        let options = json_arg(options, "options")?;
        let gov = detached(py, || EmbeddedGovernor::open(&store, &policy, &options))?;
        Ok(PyGovernorCore {
            inner: Mutex::new(Some(gov)),
        })
    }

    /// call(command, payload): the strict call; the response payload as Python data.
    #[pyo3(signature = (command, payload=None))]
    fn call<'py>(
        &self,
        py: Python<'py>,
        command: &Bound<'py, PyString>,
        payload: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let gov = self.gov(py)?;
        governor_call(py, command, payload, |c, p| gov.governor().call_json(c, p))
    }

    /// handle(command, payload_json): the wire dispatcher; the response envelope JSON text.
    fn handle(
        &self,
        py: Python<'_>,
        command: &Bound<'_, PyString>,
        payload_json: &Bound<'_, PyString>,
    ) -> PyResult<String> {
        let gov = self.gov(py)?;
        governor_handle(py, command, payload_json, |c, p| {
            gov.governor().handle(c, p)
        })
    }

    /// handle_frame(frame): one request frame in, one response frame out.
    fn handle_frame<'py>(&self, py: Python<'py>, frame: &[u8]) -> PyResult<Bound<'py, PyBytes>> {
        let gov = self.gov(py)?;
        let frame = frame.to_vec();
        let out = detached(py, || Ok(gov.governor().handle_frame(&frame)))?;
        Ok(PyBytes::new(py, &out))
    }

    /// set_time(time): sets the manual clock (aware datetime or RFC 3339 string).
    fn set_time(&self, py: Python<'_>, time: &Bound<'_, PyAny>) -> PyResult<()> {
        let t = timestamp_from_py(time)?;
        let gov = self.gov(py)?;
        attached(py, || gov.set_time(&t.to_rfc3339()))
    }

    /// advance_time(milliseconds): moves the manual clock forward.
    fn advance_time(&self, py: Python<'_>, milliseconds: u64) -> PyResult<()> {
        let gov = self.gov(py)?;
        attached(py, || gov.advance_millis(milliseconds))
    }

    /// time(): the manual clock's time as an aware UTC datetime.
    fn time<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let gov = self.gov(py)?;
        let t = attached(py, || leasekit::parse_expires_at(&gov.time()?))?;
        timestamp_to_py(py, t)
    }

    /// close(): drops this handle's governor (the store closes once no call is using it).
    fn close(&self) {
        let g = self.inner.lock().unwrap_or_else(|p| p.into_inner()).take();
        drop(g);
    }

    /// True once closed.
    #[getter]
    fn closed(&self) -> bool {
        self.inner
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .is_none()
    }
}

/// decode_frame(data): the request envelope of one frame as a dict
/// (`protocolVersion`, `command`, `payloadJson`); a malformed frame is `InvalidRequest`.
#[pyfunction]
pub fn decode_frame<'py>(py: Python<'py>, data: &[u8]) -> PyResult<Bound<'py, PyAny>> {
    let env = attached(py, || decode_request_frame(data))?;
    let v = serde_json::to_value(&env).map_err(|e| {
        to_py_err(
            py,
            leasekit::Error::new(leasekit::ErrorCode::InternalError, e.to_string()),
        )
    })?;
    json_to_py(py, &v)
}
