//! `leasekit._native.GovernorClientCore`: core's `GovernorClient` (a `leasekit serve` daemon
//! reached over its Unix socket). The typed surface is shared with the embedded governor in
//! `python/leasekit/governor.py`; this file only converts. Every call runs with the
//! interpreter lock released, so threads share one client (and its pooled connections).

use std::sync::{Arc, Mutex};

use leasekit::governor::client::{ClientOptions, GovernorClient};
use pyo3::prelude::*;
use pyo3::types::PyString;

use crate::convert::{governor_call, governor_handle, json_arg};
use crate::error::{detached, invalid_err};
use crate::text::path_text;

/// The native daemon client behind `leasekit.GovernorClient`.
#[pyclass(name = "GovernorClientCore", module = "leasekit._native", frozen)]
pub struct PyGovernorClientCore {
    inner: Mutex<Option<Arc<GovernorClient>>>,
    socket: String,
}

impl PyGovernorClientCore {
    /// The open client (an `Arc` clone, so the lock is not held during a call).
    fn client(&self, py: Python<'_>) -> PyResult<Arc<GovernorClient>> {
        let c = self.inner.lock().unwrap_or_else(|p| p.into_inner()).clone();
        c.ok_or_else(|| invalid_err(py, "the governor client is closed"))
    }
}

#[pymethods]
impl PyGovernorClientCore {
    /// connect(socket, options): see `leasekit.GovernorClient.connect`. `socket` None: the
    /// default socket; `options` a dict or JSON text of core's client options.
    #[staticmethod]
    #[pyo3(signature = (socket=None, options=None))]
    fn connect(
        py: Python<'_>,
        socket: Option<&Bound<'_, PyAny>>,
        options: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let socket = socket
            .filter(|s| !s.is_none())
            .map(|s| path_text(s, "socket"))
            .transpose()?;
        let options = json_arg(options, "options")?;
        let client = detached(py, || {
            let options = ClientOptions::from_json(&options)?;
            let socket = match socket {
                Some(s) => std::path::PathBuf::from(s),
                None => GovernorClient::connect_default()?.socket().to_path_buf(),
            };
            Ok(GovernorClient::with_options(socket, options))
        })?;
        Ok(PyGovernorClientCore {
            socket: client.socket().to_string_lossy().into_owned(),
            inner: Mutex::new(Some(Arc::new(client))),
        })
    }

    /// call(command, payload): the strict call on the daemon; the response payload as Python
    /// data.
    #[pyo3(signature = (command, payload=None))]
    fn call<'py>(
        &self,
        py: Python<'py>,
        command: &Bound<'py, PyString>,
        payload: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let client = self.client(py)?;
        governor_call(py, command, payload, |c, p| client.call_json(c, p))
    }

    /// handle(command, payload_json): the wire dispatcher over the socket; the response
    /// envelope JSON text.
    fn handle(
        &self,
        py: Python<'_>,
        command: &Bound<'_, PyString>,
        payload_json: &Bound<'_, PyString>,
    ) -> PyResult<String> {
        let client = self.client(py)?;
        governor_handle(py, command, payload_json, |c, p| client.handle(c, p))
    }

    /// The socket path this client talks to.
    #[getter]
    fn socket(&self) -> String {
        self.socket.clone()
    }

    /// close(): drops this handle's client (its pooled connections close once no call is
    /// using it).
    fn close(&self) {
        let c = self.inner.lock().unwrap_or_else(|p| p.into_inner()).take();
        drop(c);
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
