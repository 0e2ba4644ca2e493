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

/// The native object behind a Java `Governor` handle.
struct GovernorBox {
    inner: Mutex<Option<EmbeddedGovernor>>,
}

/// The open governor behind a handle (a cheap clone, so no lock is held during a call).
fn governor(handle: i64) -> BindResult<EmbeddedGovernor> {
    if handle == 0 {
        return Err(invalid("the governor is closed"));
    }
    // SAFETY: non-zero handles come from `governor_open` and Java never passes one after
    // `governorFree` (see the module documentation).
    let boxed = unsafe { &*(handle as *const GovernorBox) };
    boxed
        .inner
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .clone()
        .ok_or_else(|| invalid("the governor is closed"))
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
        let boxed = Box::new(GovernorBox {
            inner: Mutex::new(Some(gov)),
        });
        Ok(Box::into_raw(boxed) as i64)
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
    run(env, |env| {
        let command = string_arg(env, &command, "command")?;
        let payload = json_or_empty(optional_string_arg(env, &payload_json, "payload")?);
        let out = governor(handle)?.governor().call_json(&command, &payload)?;
        new_string(env, &out)
    })
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
    run(env, |env| {
        let command = string_arg(env, &command, "command")?;
        let payload = string_arg(env, &payload_json, "payloadJson")?;
        let out = governor(handle)?.governor().handle(&command, &payload);
        new_string(env, &out)
    })
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
        let out = governor(handle)?.governor().handle_frame(&bytes);
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
        Ok(governor(handle)?.set_time(&time)?)
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
        Ok(governor(handle)?.advance_millis(millis)?)
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
        let t = governor(handle)?.time()?;
        new_string(env, &t)
    })
}

/// `Native.governorClose(handle)`: drops this handle's governor (the store closes once no
/// call is using it). Idempotent.
#[jni_mangle("dev.leasekit.Native")]
pub fn governor_close<'local>(env: EnvUnowned<'local>, _class: JClass<'local>, handle: i64) {
    run(env, |_env| {
        if handle != 0 {
            // SAFETY: as in `governor`.
            let boxed = unsafe { &*(handle as *const GovernorBox) };
            let taken = boxed.inner.lock().unwrap_or_else(|p| p.into_inner()).take();
            drop(taken);
        }
        Ok(())
    })
}

/// `Native.governorFree(handle)`: releases the native memory. Java calls it exactly once per
/// handle (from its `Cleaner`); `0` is ignored.
#[jni_mangle("dev.leasekit.Native")]
pub fn governor_free<'local>(env: EnvUnowned<'local>, _class: JClass<'local>, handle: i64) {
    run(env, |_env| {
        if handle != 0 {
            // SAFETY: the handle came from `governor_open` and Java frees it exactly once.
            drop(unsafe { Box::from_raw(handle as *mut GovernorBox) });
        }
        Ok(())
    })
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
