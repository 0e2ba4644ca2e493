//! The daemon client (`dev.leasekit.GovernorClient`) of `dev.leasekit.Native`: core's
//! [`GovernorClient`] behind a handle, with the same lifetime rules as the embedded governor
//! (`governor.rs`): `clientClose` drops the client (and its pooled connections), the memory is
//! freed once by Java's `Cleaner`. Typed calls go through core's strict `call_json`, the wire
//! form through its `handle`; this file only converts.

use std::sync::Arc;
use std::time::Duration;

use jni::EnvUnowned;
use jni::jni_mangle;
use jni::objects::{JClass, JString};
use leasekit::governor::client::{ClientOptions, FallbackMode, GovernorClient};

use crate::convert::string_arg;
use crate::error::{invalid, run};
use crate::governor::{JsonGovernor, close_handle, free_handle, json_native, new_handle};

impl JsonGovernor for Arc<GovernorClient> {
    const CLOSED: &'static str = "the governor client is closed";
    fn call_json(&self, command: &str, payload: Option<String>) -> leasekit::Result<String> {
        GovernorClient::call_json(self, command, &payload.unwrap_or_default())
    }
    fn handle(&self, command: &str, payload: &str) -> String {
        GovernorClient::handle(self, command, payload)
    }
}

/// `Native.clientConnect(socket, timeoutMillis, fallback)`: a client of the daemon at `socket`
/// (nothing is connected until the first call). `timeoutMillis` > 0 is the time allowed per
/// call; `fallback` is `off`, `dev` or `prod` (SEMANTICS 13.13).
#[jni_mangle("dev.leasekit.Native")]
pub fn client_connect<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    socket: JString<'local>,
    timeout_millis: i64,
    fallback: JString<'local>,
) -> i64 {
    run(env, |env| {
        let socket = string_arg(env, &socket, "socket")?;
        if socket.is_empty() {
            return Err(invalid("socket must not be empty"));
        }
        let fallback = string_arg(env, &fallback, "fallback")?;
        let fallback = FallbackMode::parse(&fallback).ok_or_else(|| {
            invalid(format!(
                "fallback must be \"off\", \"dev\" or \"prod\", not {fallback:?}"
            ))
        })?;
        let timeout = u64::try_from(timeout_millis)
            .ok()
            .filter(|&ms| ms > 0)
            .ok_or_else(|| invalid("timeout must be positive"))?;
        let options = ClientOptions {
            timeout: Duration::from_millis(timeout),
            fallback,
            ..ClientOptions::default()
        };
        let client = GovernorClient::with_options(socket, options);
        Ok(new_handle(Arc::new(client)))
    })
}

/// `Native.clientCall(handle, command, payloadJson)`: core's strict call over the socket;
/// the response payload JSON (a refusal or transport failure is an exception).
#[jni_mangle("dev.leasekit.Native")]
pub fn client_call<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: i64,
    command: JString<'local>,
    payload_json: JString<'local>,
) -> JString<'local> {
    json_native::<Arc<GovernorClient>>(env, handle, command, payload_json, true)
}

/// `Native.clientHandle(handle, command, payloadJson)`: the wire dispatcher over the socket;
/// the response envelope JSON.
#[jni_mangle("dev.leasekit.Native")]
pub fn client_handle<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: i64,
    command: JString<'local>,
    payload_json: JString<'local>,
) -> JString<'local> {
    json_native::<Arc<GovernorClient>>(env, handle, command, payload_json, false)
}

/// `Native.clientClose(handle)`: drops the client and its pooled connections. Idempotent.
#[jni_mangle("dev.leasekit.Native")]
pub fn client_close<'local>(env: EnvUnowned<'local>, _class: JClass<'local>, handle: i64) {
    run(env, |_env| close_handle::<Arc<GovernorClient>>(handle))
}

/// `Native.clientFree(handle)`: releases the native memory; called exactly once per handle
/// (from Java's `Cleaner`); `0` is ignored.
#[jni_mangle("dev.leasekit.Native")]
pub fn client_free<'local>(env: EnvUnowned<'local>, _class: JClass<'local>, handle: i64) {
    run(env, |_env| free_handle::<Arc<GovernorClient>>(handle))
}
