//! The Promise variants of the governor calls (`callAsync`, and the typed `...Async` methods
//! of `index.js`): the same strict call as the synchronous form, run on the libuv thread pool
//! so a SQLite commit or a daemon round trip does not block the event loop. Concurrent calls
//! on one SQLite governor share commits (group commit).
//!
//! The request is converted on the JavaScript thread before the task is queued; the task
//! resolves to the JSON text `{"ok": response}` or `{"error": {code, message, retryable,
//! details}}` (core's error JSON), which `index.js` turns into the value or a rejected
//! `LeaseError`, since a napi-rs task can only reject with a napi status, not an ARCP code.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

use leasekit::Error;
use leasekit::governor::EmbeddedGovernor;
use leasekit::governor::client::GovernorClient as CoreClient;
use napi::bindgen_prelude::{Env, Task};
use serde_json::json;

/// What runs a call.
pub(crate) enum Target {
    /// An embedded governor.
    Embedded(EmbeddedGovernor),
    /// A daemon client.
    Client(Arc<CoreClient>),
}

/// One strict call, run off the JavaScript thread.
pub struct CallTask {
    target: Target,
    command: String,
    payload: String,
}

impl CallTask {
    /// A call of `command` with `payload` (JSON text) on `target`.
    pub(crate) fn new(target: Target, command: String, payload: String) -> CallTask {
        CallTask {
            target,
            command,
            payload,
        }
    }
}

impl Task for CallTask {
    type Output = leasekit::Result<String>;
    type JsValue = String;

    fn compute(&mut self) -> napi::Result<Self::Output> {
        let run = || match &self.target {
            Target::Embedded(g) => g.governor().call_json(&self.command, &self.payload),
            Target::Client(c) => c.call_json(&self.command, &self.payload),
        };
        Ok(catch_unwind(AssertUnwindSafe(run))
            .unwrap_or_else(|p| Err(Error::internal_from_panic(&*p))))
    }

    fn resolve(&mut self, _env: Env, output: Self::Output) -> napi::Result<String> {
        // core's answer is one JSON value, so it nests as it is.
        Ok(match output {
            Ok(payload) => format!("{{\"ok\":{payload}}}"),
            Err(e) => json!({ "error": e.to_json() }).to_string(),
        })
    }
}
