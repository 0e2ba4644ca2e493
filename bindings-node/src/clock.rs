//! Injected clocks: a guard given a JavaScript `clock` function holds a core `ManualClock` and
//! sets it from that function (called synchronously, on the JavaScript thread) right before
//! each time-gated operation.

use std::sync::Arc;

use leasekit::{Error, ErrorCode, ManualClock, Timestamp};
use napi::Env;
use napi::JsValue;
use napi::bindgen_prelude::{Function, FunctionRef, Unknown};

use crate::convert::JsArg;

/// A JavaScript clock function and the core clock it drives.
pub(crate) struct JsClock {
    pub(crate) manual: Arc<ManualClock>,
    func: FunctionRef<(), Unknown<'static>>,
}

impl JsClock {
    /// Keeps the JavaScript function `func` (the `clock` option).
    pub(crate) fn new(func: &JsArg) -> leasekit::Result<JsClock> {
        let func: Function<(), Unknown<'static>> = func.cast("the clock option")?;
        let func = func
            .create_ref()
            .map_err(|e| Error::invalid(format!("cannot keep the clock: {}", e.reason)))?;
        let manual = Arc::new(ManualClock::new(Timestamp::from_unix_nanos(0)));
        Ok(JsClock { manual, func })
    }

    /// Reads the JavaScript clock and sets the core clock to its answer.
    pub(crate) fn refresh(&self, env: &Env) -> leasekit::Result<()> {
        let answer = (self.func.borrow_back(env).and_then(|f| f.call(()))).map_err(|e| {
            let message = format!("the clock function failed: {}", e.reason);
            Error::new(ErrorCode::InternalError, message)
        })?;
        // SAFETY: the clock's answer is a live value of the current call on `env`.
        let answer = unsafe { JsArg::from_raw(env.raw(), answer.raw()) };
        self.manual.set(answer.time()?);
        Ok(())
    }
}
