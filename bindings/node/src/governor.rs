//! `Governor` (the embedded governor of SEMANTICS 13) and `decodeFrame`.
//!
//! Only conversion happens here: JavaScript data to core's wire JSON (own enumerable keys of
//! plain objects only, see `convert.rs`) and back, core errors to thrown `LeaseError`s. Every
//! typed method of `index.js` runs through [`Governor::call`], i.e. core's strict
//! `call_json`; `handle` is core's lenient wire dispatcher. Calls are synchronous: a SQLite
//! store with `synchronous: "full"` blocks the calling thread for the commit (an fsync).

use std::cell::RefCell;

use leasekit::governor::EmbeddedGovernor;
use leasekit::governor::wire::decode_request_frame;
use leasekit::{Error, ErrorCode};
use napi::ValueType;
use napi::bindgen_prelude::{AsyncTask, Buffer, Uint8Array};
use napi_derive::napi;
use serde_json::{Map, Value};

use crate::boundary::{Result, run};
use crate::convert::{JsArg, Text};
use crate::task::{CallTask, Target};

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

/// Core's answer (JSON text) as JavaScript data.
pub(crate) fn answer(json: &str) -> leasekit::Result<Value> {
    serde_json::from_str(json).map_err(|e| Error::new(ErrorCode::InternalError, e.to_string()))
}

/// An embedded governor: LeaseGate's admission protocol over an in-memory or SQLite store
/// (open it with `Governor.open`). Calls are synchronous; on a SQLite store with
/// `synchronous: "full"` (the default) each command waits for its commit.
#[napi]
pub struct Governor {
    /// `None` once closed. A cell, so `close` takes `&self`: napi-rs refuses a `&mut self`
    /// call while a Promise call of the same object is pending.
    inner: RefCell<Option<EmbeddedGovernor>>,
}

impl Governor {
    /// The open governor (a cheap clone: calls queued on the thread pool keep it alive).
    fn gov(&self) -> leasekit::Result<EmbeddedGovernor> {
        self.inner
            .borrow()
            .clone()
            .ok_or_else(|| Error::invalid("the governor is closed"))
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
                inner: RefCell::new(Some(gov)),
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
        run(|| {
            let payload = json_text(request.as_ref())?;
            self.gov()?.governor().call_json(&command, &payload)
        })
    }

    /// As `call`, run on the thread pool: the event loop does not wait for the commit.
    /// The request is read now; `index.js` settles the Promise with the response or a
    /// `LeaseError`.
    #[napi(js_name = "__callAsync", skip_typescript)]
    pub fn call_async(&self, command: Text, request: Option<JsArg>) -> Result<AsyncTask<CallTask>> {
        run(|| {
            let payload = json_text(request.as_ref())?;
            let target = Target::Embedded(self.gov()?);
            Ok(AsyncTask::new(CallTask::new(target, command.0, payload)))
        })
    }

    /// The wire dispatcher: `payloadJson` in (unknown fields ignored, as LeaseGate), the
    /// response envelope `{"protocolVersion","success","payloadJson","error"}` as JSON text.
    #[napi(ts_args_type = "command: string, payloadJson: string")]
    pub fn handle(&self, command: Text, payload_json: Text) -> Result<String> {
        run(|| Ok(self.gov()?.governor().handle(&command, &payload_json)))
    }

    /// One request frame (4-byte little-endian length + envelope JSON; a `Buffer` or any
    /// `Uint8Array`) in, the response frame (a `Buffer`) out; a malformed frame is answered
    /// with a failure envelope.
    #[napi(ts_args_type = "frame: Uint8Array", ts_return_type = "Uint8Array")]
    pub fn handle_frame(&self, frame: Uint8Array) -> Result<Buffer> {
        run(|| Ok(self.gov()?.governor().handle_frame(&frame).into()))
    }

    /// Sets the manual clock (only for a governor opened with `manualClock`): a `Date`, an
    /// RFC 3339 string or epoch milliseconds.
    #[napi(ts_args_type = "time: TimeInput")]
    pub fn set_time(&self, time: JsArg) -> Result<()> {
        run(|| self.gov()?.set_time(&time.time()?.to_rfc3339()))
    }

    /// Moves the manual clock forward by `milliseconds`.
    #[napi]
    pub fn advance_time(&self, milliseconds: i64) -> Result<()> {
        run(|| {
            let ms = u64::try_from(milliseconds)
                .map_err(|_| Error::invalid("milliseconds must not be negative"))?;
            self.gov()?.advance_millis(ms)
        })
    }

    /// The manual clock's time, RFC 3339 UTC with milliseconds (`2026-01-01T00:00:00.000Z`).
    #[napi]
    pub fn time(&self) -> Result<String> {
        run(|| self.gov()?.time())
    }

    /// Closes this governor (the store closes once no call is using it). Idempotent.
    #[napi]
    pub fn close(&self) {
        self.inner.borrow_mut().take();
    }

    /// True once closed.
    #[napi(getter)]
    pub fn closed(&self) -> bool {
        self.inner.borrow().is_none()
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

/// The lint warnings of `lease` (SEMANTICS-valid patterns that are almost never meant, such
/// as `https://api.example.com**`), in capability and pattern order: `{code, capability,
/// pattern, message, hint}` with stable kebab-case codes. An invalid lease throws
/// `InvalidRequestError`.
#[napi(ts_args_type = "lease: LeaseInput", ts_return_type = "LeaseWarning[]")]
pub fn lint_lease(lease: crate::compiled::LeaseArg<'_>) -> Result<Value> {
    run(|| {
        let lease = crate::compiled::lease_arg(&lease)?;
        let json = leasekit::lint_lease_json(&lease.to_json())?;
        let mut out = answer(&json)?;
        Ok(out
            .get_mut("warnings")
            .map(Value::take)
            .unwrap_or(Value::Array(Vec::new())))
    })
}
