//! `GovernorClient`: the governor of a `leasekit serve` daemon over its Unix socket, core's
//! `leasekit::governor::client::GovernorClient` (connection reuse, a timeout per call, the
//! local fallback of SEMANTICS 13.13). Same methods as `Governor`: typed methods (in
//! `index.js`) through core's strict `call_json`, and the wire dispatcher `handle`.
//! Calls are synchronous: each blocks the calling thread for at most `timeoutMs`.

use std::sync::Arc;

use leasekit::Error;
use leasekit::governor::client::{ClientOptions, GovernorClient as CoreClient};
use napi::ValueType;
use napi::bindgen_prelude::AsyncTask;
use napi_derive::napi;
use serde_json::Value;

use crate::convert::JsArg;
use crate::error::{Result, run};
use crate::governor::{CallTask, JsonGovernor, Slot};
use crate::text::Text;

/// `{timeoutMs?, fallback?, maxIdleMs?, maxPooled?}`: the plain object read as JSON and handed
/// to core's `ClientOptions::from_json`, so Node accepts and refuses exactly what C, Python and
/// the JVM do (ranges, unknown keys); an omitted or `null` option keeps core's default.
fn client_options(arg: Option<&JsArg>) -> leasekit::Result<ClientOptions> {
    let Some(arg) = arg.filter(|a| !a.is_nullish()) else {
        return Ok(ClientOptions::default());
    };
    let mut map = serde_json::Map::new();
    for (key, field) in arg.entries("client options")? {
        map.insert(key, field.json()?);
    }
    ClientOptions::from_json(&Value::Object(map).to_string())
}

/// A client of a `leasekit serve` daemon (open it with `GovernorClient.connect`): the same
/// methods as `Governor`. Nothing is connected until the first call; when the daemon cannot
/// be reached an `acquire` is decided by the local fallback rules (`fallback`: `"prod"`,
/// the default, `"dev"` or `"off"`), and every other call throws.
#[napi]
pub struct GovernorClient {
    inner: Slot<Arc<CoreClient>>,
}

impl JsonGovernor for Arc<CoreClient> {
    const CLOSED: &'static str = "the governor client is closed";
    fn call_json(&self, command: &str, payload: &str) -> leasekit::Result<String> {
        CoreClient::call_json(self, command, payload)
    }
    fn handle(&self, command: &str, payload: &str) -> String {
        CoreClient::handle(self, command, payload)
    }
}

#[napi]
impl GovernorClient {
    /// A client of the daemon at `socketPath` (default: `$LEASEKIT_SOCKET`, else
    /// `$XDG_RUNTIME_DIR/leasekit.sock`, else under the state dir) with `options`:
    /// `timeoutMs` (per call, default 10 000), `fallback` (`"off"`, `"dev"` or `"prod"`, the
    /// default), `maxIdleMs` (an idle connection older than this is not reused, default
    /// 60 000), `maxPooled` (idle connections kept, default 16).
    #[napi(
        factory,
        ts_args_type = "socketPath?: string | null, options?: ClientOptions | null"
    )]
    pub fn connect(socket_path: Option<JsArg>, options: Option<JsArg>) -> Result<Self> {
        run(|| {
            let options = client_options(options.as_ref())?;
            let socket = match socket_path.filter(|s| !s.is_nullish()) {
                Some(s) if s.type_of()? == ValueType::String => s.text("socketPath")?.into(),
                Some(_) => return Err(Error::invalid("socketPath must be a string")),
                None => leasekit::governor::client::default_socket().ok_or_else(|| {
                    Error::invalid(
                        "no default governor socket: set LEASEKIT_SOCKET, XDG_RUNTIME_DIR or HOME",
                    )
                })?,
            };
            Ok(GovernorClient {
                inner: Slot::new(Arc::new(CoreClient::with_options(socket, options))),
            })
        })
    }

    /// The socket this client talks to.
    #[napi(getter)]
    pub fn socket_path(&self) -> Result<String> {
        run(|| Ok(self.inner.get()?.socket().to_string_lossy().into_owned()))
    }

    /// Runs any command strictly on the daemon (core's `call_json`): an unknown command or
    /// field is `InvalidRequestError` before anything is sent; a refused command or a
    /// transport failure throws. Answers the response payload as a plain object (the native
    /// method answers core's JSON text; `index.js` parses it).
    #[napi(
        ts_args_type = "command: GovernorCommand, request?: GovernorRequest | string | null",
        ts_return_type = "GovernorResponse"
    )]
    pub fn call(&self, command: Text, request: Option<JsArg>) -> Result<String> {
        self.inner.call(&command, request.as_ref())
    }

    /// As `call`, run on the thread pool: the event loop does not wait for the daemon.
    /// The request is read now; `index.js` settles the Promise with the response or a
    /// `LeaseError`.
    #[napi(js_name = "__callAsync", skip_typescript)]
    pub fn call_async(&self, command: Text, request: Option<JsArg>) -> Result<AsyncTask<CallTask>> {
        self.inner.call_async(command, request.as_ref())
    }

    /// The wire dispatcher on the daemon: the response envelope
    /// `{"protocolVersion","success","payloadJson","error"}` as JSON text (a transport
    /// failure is a `success: false` envelope, except a fallback `Acquire`).
    #[napi(ts_args_type = "command: string, payloadJson: string")]
    pub fn handle(&self, command: Text, payload_json: Text) -> Result<String> {
        self.inner.handle(&command, &payload_json)
    }

    /// Closes this client's pooled connections. Idempotent.
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
