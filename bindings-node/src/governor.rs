//! `Governor` (the embedded governor of SEMANTICS 13), `decodeFrame`, and the Promise
//! variants of the governor and client calls ([`CallTask`]).
//!
//! Only conversion happens here: JavaScript data to core's wire JSON (own enumerable keys of
//! plain objects only, see `convert.rs`) and back, core errors to thrown `LeaseError`s. Every
//! typed method of `index.js` runs through [`Governor::call`], i.e. core's strict
//! `call_json`; `handle` is core's lenient wire dispatcher. Calls are synchronous: a SQLite
//! store with `synchronous: "full"` blocks the calling thread for the commit (an fsync).

use std::cell::RefCell;
use std::panic::{AssertUnwindSafe, catch_unwind};

use leasekit::governor::EmbeddedGovernor;
use leasekit::governor::wire::decode_request_frame;
use leasekit::{Error, ErrorCode};
use napi::ValueType;
use napi::bindgen_prelude::{AsyncTask, Buffer, Env, Task, Uint8Array};
use napi_derive::napi;
use serde_json::{Map, Value, json};

use crate::convert::JsArg;
use crate::error::{Result, run};
use crate::text::Text;

/// JSON text for core from a JavaScript argument: `undefined`/`null` is `{}`, a string is
/// taken as JSON text (core parses it), anything else is read as plain data.
pub(crate) fn json_text(arg: Option<&JsArg>) -> leasekit::Result<String> {
    match arg.filter(|a| !a.is_nullish()) {
        None => Ok("{}".to_string()),
        Some(a) if a.type_of()? == ValueType::String => a.text("JSON text"),
        Some(a) => Ok(a.json()?.to_string()),
    }
}

/// The open options as JSON text: as [`json_text`], except that `manualClock` may also be a
/// `Date` or epoch milliseconds (converted to RFC 3339; core reads the string strictly).
fn open_options(arg: Option<&JsArg>) -> leasekit::Result<String> {
    let Some(a) = arg.filter(|a| !a.is_nullish()) else {
        return Ok("{}".to_string());
    };
    if a.type_of()? == ValueType::String {
        return a.text("options");
    }
    let mut map = Map::new();
    for (key, field) in a.entries("governor options")? {
        let value = match (key.as_str(), field.type_of()?) {
            ("manualClock", ValueType::Number | ValueType::Object) => {
                Value::String(field.time()?.to_rfc3339())
            }
            _ => field.json()?,
        };
        map.insert(key, value);
    }
    Ok(Value::Object(map).to_string())
}

/// An embedded governor: LeaseGate's admission protocol over an in-memory or SQLite store
/// (open it with `Governor.open`). Calls are synchronous; on a SQLite store with
/// `synchronous: "full"` (the default) each command waits for its commit.
#[napi]
pub struct Governor {
    inner: Slot<EmbeddedGovernor>,
}

/// A governor a JavaScript class wraps (the embedded governor, the daemon client): core's
/// strict call and wire dispatcher.
pub(crate) trait JsonGovernor: Clone + Send + 'static {
    /// The message of a call on a closed object.
    const CLOSED: &'static str;
    /// Core's strict call: the response payload JSON, or the error.
    fn call_json(&self, command: &str, payload: &str) -> leasekit::Result<String>;
    /// Core's wire dispatcher: the response envelope JSON.
    fn handle(&self, command: &str, payload: &str) -> String;
}

impl JsonGovernor for EmbeddedGovernor {
    const CLOSED: &'static str = "the governor is closed";
    fn call_json(&self, command: &str, payload: &str) -> leasekit::Result<String> {
        self.governor().call_json(command, payload)
    }
    fn handle(&self, command: &str, payload: &str) -> String {
        self.governor().handle(command, payload)
    }
}

/// The governor inside a JavaScript object, `None` once closed. A cell, so `close` takes
/// `&self`: napi-rs refuses a `&mut self` call while a Promise call of the same object is
/// pending.
pub(crate) struct Slot<G>(pub(crate) RefCell<Option<G>>);

impl<G: JsonGovernor> Slot<G> {
    /// An open slot.
    pub(crate) fn new(gov: G) -> Self {
        Slot(RefCell::new(Some(gov)))
    }

    /// The open governor (a cheap clone: calls queued on the thread pool keep it alive).
    pub(crate) fn get(&self) -> leasekit::Result<G> {
        let gov = self.0.borrow().clone();
        gov.ok_or_else(|| Error::invalid(G::CLOSED))
    }

    /// The strict call of `command` with `request` (read by [`json_text`]).
    pub(crate) fn call(&self, command: &str, request: Option<&JsArg>) -> Result<String> {
        run(|| {
            let payload = json_text(request)?;
            self.get()?.call_json(command, &payload)
        })
    }

    /// As [`Slot::call`], as a task for the thread pool (the request is read now).
    pub(crate) fn call_async(
        &self,
        command: Text,
        request: Option<&JsArg>,
    ) -> Result<AsyncTask<CallTask>> {
        run(|| {
            let payload = json_text(request)?;
            let gov = self.get()?;
            let call = move || gov.call_json(&command, &payload);
            Ok(AsyncTask::new(CallTask(Box::new(call))))
        })
    }

    /// The wire dispatcher.
    pub(crate) fn handle(&self, command: &str, payload_json: &str) -> Result<String> {
        run(|| Ok(self.get()?.handle(command, payload_json)))
    }
}

#[napi]
impl Governor {
    /// Opens a governor on `store` (`"memory"`, `"sqlite:PATH"` or a SQLite file path) with
    /// `policy` (the policy JSON as a plain object or JSON text; omitted: the defaults).
    /// `options`: the construction options (limits, `allowedPublicKeysBase64`,
    /// `requireSignedBundles`) plus `synchronous` (`"full"`, the default, or `"normal"`) and,
    /// for tests, `manualClock` (a manual clock starting at that instant) and `ids`
    /// (`"deterministic"`: `lease-1`, `approval-1`, ...). A reopened SQLite store keeps its
    /// leases, approvals, idempotency records, policy and audit chain.
    #[napi(
        factory,
        ts_args_type = "store: string, policy?: GovernorPolicy | string | null, options?: GovernorOpenOptions | string | null"
    )]
    pub fn open(store: Text, policy: Option<JsArg>, options: Option<JsArg>) -> Result<Self> {
        run(|| {
            let policy = json_text(policy.as_ref())?;
            let options = open_options(options.as_ref())?;
            let gov = EmbeddedGovernor::open(&store, &policy, &options)?;
            Ok(Governor {
                inner: Slot::new(gov),
            })
        })
    }

    /// Runs any command strictly (core's `call_json`): `request` is a plain object in the
    /// protocol's field names (or JSON text); an unknown command or field is
    /// `InvalidRequestError`. Answers the response payload as a plain object (the native
    /// method answers core's JSON text; `index.js` parses it, which is cheaper than building
    /// the object through Node-API).
    #[napi(
        ts_args_type = "command: GovernorCommand, request?: GovernorRequest | string | null",
        ts_return_type = "GovernorResponse"
    )]
    pub fn call(&self, command: Text, request: Option<JsArg>) -> Result<String> {
        self.inner.call(&command, request.as_ref())
    }

    /// As `call`, run on the thread pool: the event loop does not wait for the commit.
    /// The request is read now; `index.js` settles the Promise with the response or a
    /// `LeaseError`.
    #[napi(js_name = "__callAsync", skip_typescript)]
    pub fn call_async(&self, command: Text, request: Option<JsArg>) -> Result<AsyncTask<CallTask>> {
        self.inner.call_async(command, request.as_ref())
    }

    /// The wire dispatcher: `payloadJson` in (unknown fields ignored, as LeaseGate), the
    /// response envelope `{"protocolVersion","success","payloadJson","error"}` as JSON text.
    #[napi(ts_args_type = "command: string, payloadJson: string")]
    pub fn handle(&self, command: Text, payload_json: Text) -> Result<String> {
        self.inner.handle(&command, &payload_json)
    }

    /// One request frame (4-byte little-endian length + envelope JSON; a `Buffer` or any
    /// `Uint8Array`) in, the response frame (a `Buffer`) out; a malformed frame is answered
    /// with a failure envelope.
    #[napi(ts_args_type = "frame: Uint8Array", ts_return_type = "Uint8Array")]
    pub fn handle_frame(&self, frame: Uint8Array) -> Result<Buffer> {
        run(|| Ok(self.inner.get()?.governor().handle_frame(&frame).into()))
    }

    /// Sets the manual clock (only for a governor opened with `manualClock`): a `Date`, an
    /// RFC 3339 string or epoch milliseconds.
    #[napi(ts_args_type = "time: TimeInput")]
    pub fn set_time(&self, time: JsArg) -> Result<()> {
        run(|| self.inner.get()?.set_time(&time.time()?.to_rfc3339()))
    }

    /// Moves the manual clock forward by `milliseconds`.
    #[napi]
    pub fn advance_time(&self, milliseconds: i64) -> Result<()> {
        run(|| {
            let ms = u64::try_from(milliseconds)
                .map_err(|_| Error::invalid("milliseconds must not be negative"))?;
            self.inner.get()?.advance_millis(ms)
        })
    }

    /// The manual clock's time, RFC 3339 UTC with milliseconds (`2026-01-01T00:00:00.000Z`).
    #[napi]
    pub fn time(&self) -> Result<String> {
        run(|| self.inner.get()?.time())
    }

    /// Closes this governor (the store closes once no call is using it). Idempotent.
    #[napi]
    pub fn close(&self) {
        self.inner.0.borrow_mut().take();
    }

    /// True once closed.
    #[napi(getter)]
    pub fn closed(&self) -> bool {
        self.inner.0.borrow().is_none()
    }
}

/// The request envelope of one frame (4-byte little-endian length + envelope JSON; a
/// `Buffer` or any `Uint8Array`): `{protocolVersion, command, payloadJson}`. A malformed
/// frame is `InvalidRequestError`.
#[napi(ts_args_type = "frame: Uint8Array", ts_return_type = "RequestEnvelope")]
pub fn decode_frame(frame: Uint8Array) -> Result<Value> {
    run(|| {
        let env = decode_request_frame(&frame)?;
        serde_json::to_value(&env).map_err(|e| Error::new(ErrorCode::InternalError, e.to_string()))
    })
}

// The Promise variants of the governor calls (`callAsync`, and the typed `...Async` methods
// of `index.js`): the same strict call as the synchronous form, run on the libuv thread pool
// so a SQLite commit or a daemon round trip does not block the event loop. Concurrent calls
// on one SQLite governor share commits (group commit).
//
// The request is converted on the JavaScript thread before the task is queued; the task
// resolves to the JSON text `{"ok": response}` or `{"error": {code, message, retryable,
// details}}` (core's error JSON), which `index.js` turns into the value or a rejected
// `LeaseError`, since a napi-rs task can only reject with a napi status, not an ARCP code.

/// One strict call, run off the JavaScript thread.
pub struct CallTask(Box<dyn Fn() -> leasekit::Result<String> + Send>);

impl Task for CallTask {
    type Output = leasekit::Result<String>;
    type JsValue = String;

    fn compute(&mut self) -> napi::Result<Self::Output> {
        Ok(catch_unwind(AssertUnwindSafe(&self.0))
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
