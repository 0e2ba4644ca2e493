//! Clocks for `LeaseGuard`: core's system clock, core's manual clock exposed as
//! `leasekit.ManualClock`, or any Python callable returning an aware datetime.

use std::sync::Arc;

use leasekit::{Clock, Error, ErrorCode, Timestamp};
use pyo3::prelude::*;

use crate::convert::{timestamp_from_py, timestamp_to_py};
use crate::error::{invalid, invalid_err};

/// A core clock that calls a Python callable (re-attaching to the interpreter for the call).
struct PyCallableClock {
    callable: Py<PyAny>,
}

impl Clock for PyCallableClock {
    fn now(&self) -> leasekit::Result<Timestamp> {
        Python::attach(|py| {
            let value =
                self.callable.bind(py).call0().map_err(|e| {
                    Error::new(ErrorCode::InternalError, format!("clock raised: {e}"))
                })?;
            timestamp_from_py(&value)
                .map_err(|e| invalid(format!("clock returned an invalid time: {e}")))
        })
    }
}

/// A settable clock implemented in core; calling it returns its time, so it can also be used
/// anywhere a clock callable is expected. Guards using it never need the interpreter lock.
#[pyclass(name = "ManualClock", module = "leasekit", frozen)]
pub struct PyManualClock {
    inner: Arc<leasekit::ManualClock>,
}

#[pymethods]
impl PyManualClock {
    /// ManualClock(now): start at `now` (aware datetime or RFC 3339 string).
    #[new]
    fn new(now: &Bound<'_, PyAny>) -> PyResult<Self> {
        let t = timestamp_from_py(now)?;
        Ok(PyManualClock {
            inner: Arc::new(leasekit::ManualClock::new(t)),
        })
    }

    /// Set the current time (aware datetime or RFC 3339 string).
    fn set(&self, now: &Bound<'_, PyAny>) -> PyResult<()> {
        self.inner.set(timestamp_from_py(now)?);
        Ok(())
    }

    /// The current time as an aware UTC datetime.
    fn get<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        timestamp_to_py(py, self.inner.get())
    }

    /// Same as get(): a ManualClock is itself a clock callable.
    fn __call__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.get(py)
    }
}

/// The core clock for a `clock=` argument: None = system clock, a `ManualClock`, or a callable.
pub fn clock_from_py(obj: Option<&Bound<'_, PyAny>>) -> PyResult<Arc<dyn Clock>> {
    let Some(obj) = obj.filter(|o| !o.is_none()) else {
        return Ok(Arc::new(leasekit::SystemClock));
    };
    if let Ok(m) = obj.cast::<PyManualClock>() {
        return Ok(m.get().inner.clone());
    }
    if obj.is_callable() {
        return Ok(Arc::new(PyCallableClock {
            callable: obj.clone().unbind(),
        }));
    }
    Err(invalid_err(
        obj.py(),
        "clock must be None, a ManualClock or a callable returning an aware datetime",
    ))
}
