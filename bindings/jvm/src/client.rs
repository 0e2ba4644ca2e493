//! The daemon client (`dev.leasekit.GovernorClient`) of `dev.leasekit.Native`: core's
//! [`GovernorClient`] behind a handle, with the same lifetime rules as the embedded governor
//! (`governor.rs`): `clientClose` drops the client (and its pooled connections), the memory is
//! freed once by Java's `Cleaner`. Typed calls go through core's strict `call_json`, the wire
//! form through its `handle`; this file only converts.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use jni::EnvUnowned;
use jni::jni_mangle;
use jni::objects::{JClass, JString};
use leasekit::governor::client::{ClientOptions, FallbackMode, GovernorClient};

use crate::convert::{new_string, optional_string_arg, string_arg};
use crate::error::{BindResult, invalid, run};

/// The native object behind a Java `GovernorClient` handle.
struct ClientBox {
    inner: Mutex<Option<Arc<GovernorClient>>>,
}

/// The open client behind a handle (shared, so no lock is held during a call).
fn client(handle: i64) -> BindResult<Arc<GovernorClient>> {
    if handle == 0 {
        return Err(invalid("the governor client is closed"));
    }
    // SAFETY: non-zero handles come from `client_connect` and Java never passes one after
    // `clientFree`.
    let boxed = unsafe { &*(handle as *const ClientBox) };
    boxed
        .inner
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .clone()
        .ok_or_else(|| invalid("the governor client is closed"))
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
        let boxed = Box::new(ClientBox {
            inner: Mutex::new(Some(Arc::new(client))),
        });
        Ok(Box::into_raw(boxed) as i64)
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
    run(env, |env| {
        let command = string_arg(env, &command, "command")?;
        let payload = optional_string_arg(env, &payload_json, "payload")?.unwrap_or_default();
        let out = client(handle)?.call_json(&command, &payload)?;
        new_string(env, &out)
    })
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
    run(env, |env| {
        let command = string_arg(env, &command, "command")?;
        let payload = string_arg(env, &payload_json, "payloadJson")?;
        let out = client(handle)?.handle(&command, &payload);
        new_string(env, &out)
    })
}

/// `Native.clientClose(handle)`: drops the client and its pooled connections. Idempotent.
#[jni_mangle("dev.leasekit.Native")]
pub fn client_close<'local>(env: EnvUnowned<'local>, _class: JClass<'local>, handle: i64) {
    run(env, |_env| {
        if handle != 0 {
            // SAFETY: as in `client`.
            let boxed = unsafe { &*(handle as *const ClientBox) };
            let taken = boxed.inner.lock().unwrap_or_else(|p| p.into_inner()).take();
            drop(taken);
        }
        Ok(())
    })
}

/// `Native.clientFree(handle)`: releases the native memory; called exactly once per handle
/// (from Java's `Cleaner`); `0` is ignored.
#[jni_mangle("dev.leasekit.Native")]
pub fn client_free<'local>(env: EnvUnowned<'local>, _class: JClass<'local>, handle: i64) {
    run(env, |_env| {
        if handle != 0 {
            // SAFETY: the handle came from `client_connect` and Java frees it exactly once.
            drop(unsafe { Box::from_raw(handle as *mut ClientBox) });
        }
        Ok(())
    })
}
