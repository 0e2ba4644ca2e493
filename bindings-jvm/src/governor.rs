//! The embedded governor (`dev.leasekit.Governor`) and frame decoding of `dev.leasekit.Native`.
//!
//! A governor lives in a `Box` whose address is the Java handle (`long`), as a guard does
//! (`guard.rs`): Java's `NativeHandle` frees it exactly once, by its `Cleaner`, so no call can
//! follow or overlap the free. `close()` (`governorClose`) only takes the core governor out of
//! the box; the store closes once no call is still using it (each call works on a cheap clone),
//! and later calls fail with `INVALID_REQUEST` ("the governor is closed"). Every command goes
//! through core's strict `call_json` or its wire dispatcher: this file only converts.

use std::sync::Mutex;

use jni::EnvUnowned;
use jni::jni_mangle;
use jni::objects::{JByteArray, JClass, JString};
use leasekit::governor::EmbeddedGovernor;
use leasekit::governor::wire::decode_request_frame;
use leasekit::{Error, ErrorCode};

use crate::convert::{new_string, optional_string_arg, string_arg};
use crate::error::{BindResult, invalid, run};

/// A governor behind a Java handle (a boxed `Mutex<Option<_>>`, emptied by `close()`): the
/// embedded governor or the daemon client.
pub(crate) trait JsonGovernor: Clone {
    /// The message of a call on a closed handle.
    const CLOSED: &'static str;
    /// Core's strict call (`payload`: the optional payload argument as given).
    fn call_json(&self, command: &str, payload: Option<String>) -> leasekit::Result<String>;
    /// Core's wire dispatcher.
    fn handle(&self, command: &str, payload: &str) -> String;
}

impl JsonGovernor for EmbeddedGovernor {
    const CLOSED: &'static str = "the governor is closed";
    fn call_json(&self, command: &str, payload: Option<String>) -> leasekit::Result<String> {
        self.governor().call_json(command, &json_or_empty(payload))
    }
    fn handle(&self, command: &str, payload: &str) -> String {
        self.governor().handle(command, payload)
    }
}

/// A new handle owning `value`.
pub(crate) fn new_handle<T>(value: T) -> i64 {
    Box::into_raw(Box::new(Mutex::new(Some(value)))) as i64
}

/// The open value behind a handle (a cheap clone, so no lock is held during a call).
pub(crate) fn open<T: JsonGovernor>(handle: i64) -> BindResult<T> {
    if handle == 0 {
        return Err(invalid(T::CLOSED));
    }
    // SAFETY: non-zero handles come from `new_handle::<T>` and Java never passes one after
    // its free (see the module documentation).
    let boxed = unsafe { &*(handle as *const Mutex<Option<T>>) };
    let value = boxed.lock().unwrap_or_else(|p| p.into_inner()).clone();
    value.ok_or_else(|| invalid(T::CLOSED))
}

/// Drops the value behind a handle (the `close()` natives). Idempotent.
pub(crate) fn close_handle<T>(handle: i64) -> BindResult<()> {
    if handle != 0 {
        // SAFETY: as in `open`.
        let boxed = unsafe { &*(handle as *const Mutex<Option<T>>) };
        let taken = boxed.lock().unwrap_or_else(|p| p.into_inner()).take();
        drop(taken);
    }
    Ok(())
}

/// Frees a handle's memory (the `free` natives: Java calls them exactly once per handle, from
/// its `Cleaner`); `0` is ignored.
pub(crate) fn free_handle<T>(handle: i64) -> BindResult<()> {
    if handle != 0 {
        // SAFETY: the handle came from `new_handle::<T>` and Java frees it exactly once.
        drop(unsafe { Box::from_raw(handle as *mut Mutex<Option<T>>) });
    }
    Ok(())
}

/// The JSON natives of a governor handle: reads `command` and the payload, then runs core's
/// strict call (`strict`; the optional argument `payload`) or its wire dispatcher (the
/// required argument `payloadJson`) and answers the JSON.
pub(crate) fn json_native<'local, G: JsonGovernor>(
    env: EnvUnowned<'local>,
    handle: i64,
    command: JString<'local>,
    payload_json: JString<'local>,
    strict: bool,
) -> JString<'local> {
    run(env, |env| {
        let command = string_arg(env, &command, "command")?;
        let out = if strict {
            let payload = optional_string_arg(env, &payload_json, "payload")?;
            open::<G>(handle)?.call_json(&command, payload)?
        } else {
            let payload = string_arg(env, &payload_json, "payloadJson")?;
            open::<G>(handle)?.handle(&command, &payload)
        };
        new_string(env, &out)
    })
}

/// An optional JSON argument (`null` or blank: `{}`).
fn json_or_empty(text: Option<String>) -> String {
    match text {
        Some(t) if !t.trim().is_empty() => t,
        _ => "{}".to_string(),
    }
}

/// `Native.governorOpen(store, policyJson, optionsJson)`: opens a governor (see
/// [`EmbeddedGovernor::open`]); `null` policy or options are `{}`. Returns the handle.
#[jni_mangle("dev.leasekit.Native")]
pub fn governor_open<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    store: JString<'local>,
    policy_json: JString<'local>,
    options_json: JString<'local>,
) -> i64 {
    run(env, |env| {
        let store = string_arg(env, &store, "store")?;
        let policy = json_or_empty(optional_string_arg(env, &policy_json, "policy")?);
        let options = json_or_empty(optional_string_arg(env, &options_json, "options")?);
        let gov = EmbeddedGovernor::open(&store, &policy, &options)?;
        Ok(new_handle(gov))
    })
}

/// `Native.governorCall(handle, command, payloadJson)`: the strict call (unknown command or
/// field, malformed payload: `INVALID_REQUEST`); the response payload JSON.
#[jni_mangle("dev.leasekit.Native")]
pub fn governor_call<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: i64,
    command: JString<'local>,
    payload_json: JString<'local>,
) -> JString<'local> {
    json_native::<EmbeddedGovernor>(env, handle, command, payload_json, true)
}

/// `Native.governorHandle(handle, command, payloadJson)`: the wire dispatcher; the response
/// envelope JSON (a refused command is `success: false`, not an exception).
#[jni_mangle("dev.leasekit.Native")]
pub fn governor_handle<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: i64,
    command: JString<'local>,
    payload_json: JString<'local>,
) -> JString<'local> {
    json_native::<EmbeddedGovernor>(env, handle, command, payload_json, false)
}

/// `Native.governorHandleFrame(handle, frame)`: one request frame in, one response frame out.
#[jni_mangle("dev.leasekit.Native")]
pub fn governor_handle_frame<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: i64,
    frame: JByteArray<'local>,
) -> JByteArray<'local> {
    run(env, |env| {
        if frame.is_null() {
            return Err(invalid("frame must not be null"));
        }
        let bytes = env.convert_byte_array(&frame)?;
        let out = open::<EmbeddedGovernor>(handle)?
            .governor()
            .handle_frame(&bytes);
        Ok(env.byte_array_from_slice(&out)?)
    })
}

/// `Native.governorSetTime(handle, time)`: sets the manual clock (RFC 3339 UTC).
#[jni_mangle("dev.leasekit.Native")]
pub fn governor_set_time<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: i64,
    time: JString<'local>,
) {
    run(env, |env| {
        let time = string_arg(env, &time, "time")?;
        Ok(open::<EmbeddedGovernor>(handle)?.set_time(&time)?)
    })
}

/// `Native.governorAdvanceMillis(handle, millis)`: moves the manual clock forward.
#[jni_mangle("dev.leasekit.Native")]
pub fn governor_advance_millis<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: i64,
    millis: i64,
) {
    run(env, |_env| {
        let millis =
            u64::try_from(millis).map_err(|_| invalid("milliseconds must not be negative"))?;
        Ok(open::<EmbeddedGovernor>(handle)?.advance_millis(millis)?)
    })
}

/// `Native.governorTime(handle)`: the manual clock's time, RFC 3339 UTC with milliseconds.
#[jni_mangle("dev.leasekit.Native")]
pub fn governor_time<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: i64,
) -> JString<'local> {
    run(env, |env| {
        let t = open::<EmbeddedGovernor>(handle)?.time()?;
        new_string(env, &t)
    })
}

/// `Native.governorClose(handle)`: drops this handle's governor (the store closes once no
/// call is using it). Idempotent.
#[jni_mangle("dev.leasekit.Native")]
pub fn governor_close<'local>(env: EnvUnowned<'local>, _class: JClass<'local>, handle: i64) {
    run(env, |_env| close_handle::<EmbeddedGovernor>(handle))
}

/// `Native.governorFree(handle)`: releases the native memory. Java calls it exactly once per
/// handle (from its `Cleaner`); `0` is ignored.
#[jni_mangle("dev.leasekit.Native")]
pub fn governor_free<'local>(env: EnvUnowned<'local>, _class: JClass<'local>, handle: i64) {
    run(env, |_env| free_handle::<EmbeddedGovernor>(handle))
}

/// `Native.decodeFrame(frame)`: the request envelope of one frame as JSON
/// (`protocolVersion`, `command`, `payloadJson`); a malformed frame is `INVALID_REQUEST`.
#[jni_mangle("dev.leasekit.Native")]
pub fn decode_frame<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    frame: JByteArray<'local>,
) -> JString<'local> {
    run(env, |env| {
        if frame.is_null() {
            return Err(invalid("frame must not be null"));
        }
        let bytes = env.convert_byte_array(&frame)?;
        let envelope = decode_request_frame(&bytes)?;
        let json = serde_json::to_string(&envelope)
            .map_err(|e| Error::new(ErrorCode::InternalError, e.to_string()))?;
        new_string(env, &json)
    })
}
