//! The `LkGovernor` handle (the embedded governor): open on a store string, the wire
//! dispatcher, strict JSON calls with typed helpers, frames, and the manual clock of tests.
//! Every JSON shape is core's (`leasekit::governor::wire`); nothing is decided here.

use std::ffi::c_char;

use leasekit::Error;
use leasekit::governor::EmbeddedGovernor;
use leasekit::governor::wire::decode_request_frame;

use crate::boundary::{call, call_void};
use crate::error::LkStatus;
use crate::text::{
    arg_bytes, arg_handle, arg_str, free_handle, opt_arg_str, out_slot, put_handle, put_string,
};

/// An opaque embedded governor (SEMANTICS 13). Open it with `lk_governor_open`, free it with
/// `lk_governor_free`. One handle may be used from many threads at once.
pub struct LkGovernor {
    inner: EmbeddedGovernor,
}

/// Opens a governor. `store` is `"memory"`, `"sqlite:PATH"` or a SQLite file path;
/// `policy_json` a policy object (NULL: `{}`); `options_json` (NULL: `{}`) the construction
/// options plus `manualClock` (RFC 3339: a manual clock for tests), `ids` (`"random"` or
/// `"deterministic"`) and `synchronous` (`"full"` or `"normal"`, SQLite only). A reopened
/// SQLite store keeps its state and its last activated policy. Writes a new handle to `*out`.
///
/// # Safety
/// `store` is a NUL-terminated string; `policy_json` and `options_json` are NULL or
/// NUL-terminated strings; `out` points to a writable `LkGovernor *`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lk_governor_open(
    store: *const c_char,
    policy_json: *const c_char,
    options_json: *const c_char,
    out: *mut *mut LkGovernor,
) -> LkStatus {
    call(|| {
        // SAFETY: pointer contracts documented above.
        let (slot, store, policy, options) = unsafe {
            (
                out_slot(out, "out")?,
                arg_str(store, "store")?,
                opt_arg_str(policy_json, "policy_json")?,
                opt_arg_str(options_json, "options_json")?,
            )
        };
        let inner = EmbeddedGovernor::open(store, policy.unwrap_or("{}"), options.unwrap_or("{}"))?;
        put_handle(slot, LkGovernor { inner });
        Ok(())
    })
}

/// Frees a governor (closing its store once no call is using it). NULL is ignored.
///
/// # Safety
/// `gov` is NULL or a handle from this library not freed before, not in use by another
/// thread.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lk_governor_free(gov: *mut LkGovernor) {
    // SAFETY: forwarded contract.
    unsafe { free_handle(gov) }
}

/// The wire dispatcher: runs `command` with `payload_json` (NULL: `{}`) as the protocol
/// does (unknown payload fields ignored) and writes the response envelope
/// `{"protocolVersion","success","payloadJson","error"}` to `*out_json`. A refused command
/// is an envelope with `success` false, not a failed call.
///
/// # Safety
/// `gov` is a live handle; `command` a NUL-terminated string; `payload_json` NULL or a
/// NUL-terminated string; `out_json` points to a writable `char *`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lk_governor_handle(
    gov: *const LkGovernor,
    command: *const c_char,
    payload_json: *const c_char,
    out_json: *mut *mut c_char,
) -> LkStatus {
    // SAFETY: forwarded contract.
    call(|| unsafe { json_entry(gov, command, payload_json, Answer::Envelope, out_json) })
}

/// Runs `command` with `payload_json` (NULL: `{}`) strictly (an unknown command, a
/// malformed payload or an unknown field is `LK_INVALID_REQUEST`) and writes the response
/// payload JSON to `*out_json`.
///
/// # Safety
/// As `lk_governor_handle`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lk_governor_call(
    gov: *const LkGovernor,
    command: *const c_char,
    payload_json: *const c_char,
    out_json: *mut *mut c_char,
) -> LkStatus {
    call(|| {
        // SAFETY: pointer contracts documented above (the command is checked first).
        unsafe {
            arg_str(command, "command")?;
            json_entry(gov, command, payload_json, Answer::Strict, out_json)
        }
    })
}

/// A governor handle the JSON entry points serve (`LkGovernor`, `LkGovernorClient`).
pub(crate) trait JsonHandle {
    /// The handle argument's name in error messages.
    const NAME: &'static str;
    /// The payload argument's name in the errors of a strict call.
    const STRICT_PAYLOAD: &'static str;
    /// Core's strict call: the response payload JSON, or the error.
    fn call_json(&self, command: &str, payload: &str) -> leasekit::Result<String>;
    /// Core's wire dispatcher: the response envelope JSON.
    fn handle(&self, command: &str, payload: &str) -> String;
}

impl JsonHandle for LkGovernor {
    const NAME: &'static str = "gov";
    const STRICT_PAYLOAD: &'static str = "request_json";
    fn call_json(&self, command: &str, payload: &str) -> leasekit::Result<String> {
        self.inner.governor().call_json(command, payload)
    }
    fn handle(&self, command: &str, payload: &str) -> String {
        self.inner.governor().handle(command, payload)
    }
}

/// How a JSON entry point answers.
#[derive(Clone, Copy, PartialEq)]
pub(crate) enum Answer {
    /// Core's wire dispatcher: the response envelope (a refused command is not a failure).
    Envelope,
    /// Core's strict call: the response payload, or the error.
    Strict,
}

/// One JSON entry point: reads `out_json`, the handle, `command` and the payload (NULL: `{}`)
/// in that order, runs it on the handle as `answer` says and writes the answer to `*out_json`.
///
/// # Safety
/// `handle` is NULL or a live handle; `command` and `payload_json` are NULL or
/// NUL-terminated strings; `out_json` is NULL or points to a writable `char *`.
pub(crate) unsafe fn json_entry<H: JsonHandle>(
    handle: *const H,
    command: *const c_char,
    payload_json: *const c_char,
    answer: Answer,
    out_json: *mut *mut c_char,
) -> leasekit::Result<()> {
    let payload_name = match answer {
        Answer::Envelope => "payload_json",
        Answer::Strict => H::STRICT_PAYLOAD,
    };
    // SAFETY: forwarded contract.
    let (slot, handle, command, payload) = unsafe {
        (
            out_slot(out_json, "out_json")?,
            arg_handle(handle, H::NAME)?,
            arg_str(command, "command")?,
            opt_arg_str(payload_json, payload_name)?.unwrap_or("{}"),
        )
    };
    if answer == Answer::Envelope {
        put_string(slot, handle.handle(command, payload))
    } else {
        put_string(slot, handle.call_json(command, payload)?)
    }
}

// BEGIN generated (scripts/gen-governor-methods.py)
/// `Acquire`: writes the `AcquireResponse` JSON (a grant or a denial with its reason) to
/// `*out_json`.
///
/// # Safety
/// `gov` is a live handle; `request_json` NULL (`{}`) or a NUL-terminated string;
/// `out_json` points to a writable `char *`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lk_governor_acquire(
    gov: *const LkGovernor,
    request_json: *const c_char,
    out_json: *mut *mut c_char,
) -> LkStatus {
    // SAFETY: forwarded contract.
    unsafe { lk_governor_call(gov, c"Acquire".as_ptr(), request_json, out_json) }
}

/// `Release`: writes the `ReleaseResponse` JSON (the receipt) to `*out_json`.
///
/// # Safety
/// `gov` is a live handle; `request_json` NULL (`{}`) or a NUL-terminated string;
/// `out_json` points to a writable `char *`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lk_governor_release(
    gov: *const LkGovernor,
    request_json: *const c_char,
    out_json: *mut *mut c_char,
) -> LkStatus {
    // SAFETY: forwarded contract.
    unsafe { lk_governor_call(gov, c"Release".as_ptr(), request_json, out_json) }
}

/// `RequestToolSubLease`: writes the `ToolSubLeaseResponse` JSON to `*out_json`.
///
/// # Safety
/// `gov` is a live handle; `request_json` NULL (`{}`) or a NUL-terminated string;
/// `out_json` points to a writable `char *`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lk_governor_request_tool_sub_lease(
    gov: *const LkGovernor,
    request_json: *const c_char,
    out_json: *mut *mut c_char,
) -> LkStatus {
    // SAFETY: forwarded contract.
    unsafe { lk_governor_call(gov, c"RequestToolSubLease".as_ptr(), request_json, out_json) }
}

/// `ExecuteToolCall`: writes the `ToolExecutionResponse` JSON to `*out_json`.
///
/// # Safety
/// `gov` is a live handle; `request_json` NULL (`{}`) or a NUL-terminated string;
/// `out_json` points to a writable `char *`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lk_governor_execute_tool_call(
    gov: *const LkGovernor,
    request_json: *const c_char,
    out_json: *mut *mut c_char,
) -> LkStatus {
    // SAFETY: forwarded contract.
    unsafe { lk_governor_call(gov, c"ExecuteToolCall".as_ptr(), request_json, out_json) }
}

/// `Authorize` (a target against a granted lease): writes the `AuthorizeResponse` JSON to
/// `*out_json`.
///
/// # Safety
/// `gov` is a live handle; `request_json` NULL (`{}`) or a NUL-terminated string;
/// `out_json` points to a writable `char *`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lk_governor_authorize(
    gov: *const LkGovernor,
    request_json: *const c_char,
    out_json: *mut *mut c_char,
) -> LkStatus {
    // SAFETY: forwarded contract.
    unsafe { lk_governor_call(gov, c"Authorize".as_ptr(), request_json, out_json) }
}

/// `GetMetrics` (`request_json` NULL or `{}`): writes the metrics snapshot JSON to
/// `*out_json`.
///
/// # Safety
/// `gov` is a live handle; `request_json` NULL (`{}`) or a NUL-terminated string;
/// `out_json` points to a writable `char *`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lk_governor_metrics(
    gov: *const LkGovernor,
    request_json: *const c_char,
    out_json: *mut *mut c_char,
) -> LkStatus {
    // SAFETY: forwarded contract.
    unsafe { lk_governor_call(gov, c"GetMetrics".as_ptr(), request_json, out_json) }
}

/// `VerifyAudit` (`request_json` NULL: the store's chain): writes `{"ok","records",...}` to
/// `*out_json`.
///
/// # Safety
/// `gov` is a live handle; `request_json` NULL (`{}`) or a NUL-terminated string;
/// `out_json` points to a writable `char *`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lk_governor_verify_audit(
    gov: *const LkGovernor,
    request_json: *const c_char,
    out_json: *mut *mut c_char,
) -> LkStatus {
    // SAFETY: forwarded contract.
    unsafe { lk_governor_call(gov, c"VerifyAudit".as_ptr(), request_json, out_json) }
}
// END generated

/// Decodes a request frame (SEMANTICS 13.1; a 4-byte little-endian length, then the
/// envelope JSON) and writes the request envelope `{"protocolVersion","command",
/// "payloadJson"}` to `*out_json`. A bad length, a truncated frame or a payload that is
/// not an envelope is `LK_INVALID_REQUEST`.
///
/// # Safety
/// `bytes` is NULL (with `len` 0) or points to `len` readable bytes; `out_json` points to
/// a writable `char *`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lk_frame_decode(
    bytes: *const u8,
    len: usize,
    out_json: *mut *mut c_char,
) -> LkStatus {
    call(|| {
        // SAFETY: pointer contracts documented above.
        let (slot, bytes) = unsafe {
            (
                out_slot(out_json, "out_json")?,
                arg_bytes(bytes, len, "bytes")?,
            )
        };
        let env = decode_request_frame(bytes)?;
        put_string(
            slot,
            serde_json::to_string(&env)
                .map_err(|e| Error::new(leasekit::ErrorCode::InternalError, e.to_string()))?,
        )
    })
}

/// Decodes a request frame, dispatches it and writes the response frame to `*out` and its
/// length to `*out_len` (free it with `lk_bytes_free(*out, *out_len)`). A malformed frame
/// is answered with a failure envelope, as the daemon does.
///
/// # Safety
/// `gov` is a live handle; `frame` points to `len` readable bytes; `out` and `out_len`
/// point to writable values.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lk_governor_handle_frame(
    gov: *const LkGovernor,
    frame: *const u8,
    len: usize,
    out: *mut *mut u8,
    out_len: *mut usize,
) -> LkStatus {
    call(|| {
        // SAFETY: pointer contracts documented above.
        let (slot, gov, frame) = unsafe {
            (
                out_slot(out, "out")?,
                arg_handle(gov, "gov")?,
                arg_bytes(frame, len, "frame")?,
            )
        };
        // SAFETY: pointer contract documented above.
        let len_slot = unsafe { out_len.as_mut() }
            .ok_or_else(|| Error::invalid("out_len is a NULL pointer"))?;
        let answer = gov.inner.governor().handle_frame(frame).into_boxed_slice();
        *len_slot = answer.len();
        *slot = Box::into_raw(answer).cast::<u8>();
        Ok(())
    })
}

/// Frees bytes returned by `lk_governor_handle_frame`. NULL is ignored.
///
/// # Safety
/// `ptr` is NULL or bytes returned by leasekit with their length `len`, not freed before.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lk_bytes_free(ptr: *mut u8, len: usize) {
    if !ptr.is_null() {
        // SAFETY: a boxed slice of `len` bytes leaked by lk_governor_handle_frame.
        call_void(|| drop(unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(ptr, len)) }));
    }
}

/// Sets the manual clock of a governor opened with `manualClock` to an RFC 3339 UTC time
/// (`LK_INVALID_REQUEST` for a governor on the system clock).
///
/// # Safety
/// `gov` is a live handle; `time` a NUL-terminated string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lk_governor_set_time(
    gov: *const LkGovernor,
    time: *const c_char,
) -> LkStatus {
    call(|| {
        // SAFETY: pointer contracts documented above.
        let (gov, time) = unsafe { (arg_handle(gov, "gov")?, arg_str(time, "time")?) };
        gov.inner.set_time(time)
    })
}

/// Moves the manual clock `millis` milliseconds forward (`LK_INVALID_REQUEST` for a
/// governor on the system clock).
///
/// # Safety
/// `gov` is a live handle.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lk_governor_advance_ms(gov: *const LkGovernor, millis: u64) -> LkStatus {
    call(|| {
        // SAFETY: pointer contract documented above.
        unsafe { arg_handle(gov, "gov")? }
            .inner
            .advance_millis(millis)
    })
}

/// Writes the manual clock's time (RFC 3339 UTC with milliseconds) to `*out`
/// (`LK_INVALID_REQUEST` for a governor on the system clock).
///
/// # Safety
/// `gov` is a live handle; `out` points to a writable `char *`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lk_governor_time(
    gov: *const LkGovernor,
    out: *mut *mut c_char,
) -> LkStatus {
    call(|| {
        // SAFETY: pointer contracts documented above.
        let (slot, gov) = unsafe { (out_slot(out, "out")?, arg_handle(gov, "gov")?) };
        put_string(slot, gov.inner.time()?)
    })
}
