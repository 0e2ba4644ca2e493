//! The `LkGovernorClient` handle: the governor of a `leasekit serve` daemon reached over its
//! Unix socket (core's `GovernorClient`), with the strict call and the wire dispatcher of the
//! embedded `LkGovernor`. Options, fallback and every JSON shape are core's.

use std::ffi::c_char;

use leasekit::governor::client::{ClientOptions, GovernorClient};

use crate::boundary::call;
use crate::error::LkStatus;
use crate::governor::{Answer, JsonHandle, json_entry};
use crate::text::{free_handle, opt_arg_str, out_slot, put_handle};

/// An opaque client of a governor daemon. Create it with `lk_governor_client_connect`, free
/// it with `lk_governor_client_free`. One handle may be used from many threads at once
/// (connections are pooled and reused).
pub struct LkGovernorClient {
    inner: GovernorClient,
}

/// Creates a client of the daemon at `socket_path` (NULL: the default socket,
/// `$LEASEKIT_SOCKET`, else `$XDG_RUNTIME_DIR/leasekit.sock`, else under the default state
/// directory). `options_json` (NULL: `{}`): `timeoutMs` (per call, default 10000),
/// `fallback` (`"off"`, `"dev"` or `"prod"`, the default: what an `Acquire` does when the
/// daemon cannot be reached, SEMANTICS 13.13), `maxIdleMs`, `maxPooled`; an unknown field is
/// `LK_INVALID_REQUEST`. Nothing is connected yet: the first call connects. Writes a new
/// handle to `*out`.
///
/// # Safety
/// `socket_path` and `options_json` are NULL or NUL-terminated strings; `out` points to a
/// writable `LkGovernorClient *`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lk_governor_client_connect(
    socket_path: *const c_char,
    options_json: *const c_char,
    out: *mut *mut LkGovernorClient,
) -> LkStatus {
    call(|| {
        // SAFETY: pointer contracts documented above.
        let (slot, socket, options) = unsafe {
            (
                out_slot(out, "out")?,
                opt_arg_str(socket_path, "socket_path")?,
                opt_arg_str(options_json, "options_json")?,
            )
        };
        let options = ClientOptions::from_json(options.unwrap_or("{}"))?;
        let socket = match socket {
            Some(s) => std::path::PathBuf::from(s),
            None => GovernorClient::connect_default()?.socket().to_path_buf(),
        };
        put_handle(
            slot,
            LkGovernorClient {
                inner: GovernorClient::with_options(socket, options),
            },
        );
        Ok(())
    })
}

/// Frees a client (closing its pooled connections). NULL is ignored.
///
/// # Safety
/// `client` is NULL or a handle from this library not freed before, not in use by another
/// thread.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lk_governor_client_free(client: *mut LkGovernorClient) {
    // SAFETY: forwarded contract.
    unsafe { free_handle(client) }
}

/// Runs `command` with `payload_json` (NULL: `{}`) on the daemon strictly, as
/// `lk_governor_call`: an unknown command, a malformed payload or an unknown field is
/// `LK_INVALID_REQUEST` before anything is sent. Writes the response payload JSON to
/// `*out_json`. An answer with `success: false` is an error (`LK_PERMISSION_DENIED` for a
/// refused admin command, else `LK_INTERNAL_ERROR` with `details.reason` `daemon_error`); an
/// unreachable daemon is `LK_INTERNAL_ERROR` with `details.reason` `daemon_unreachable`,
/// except an `Acquire` under a fallback mode, answered by the local rules (a local grant or
/// a denial with `degradedMode` true).
///
/// # Safety
/// `client` is a live handle; `command` a NUL-terminated string; `payload_json` NULL or a
/// NUL-terminated string; `out_json` points to a writable `char *`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lk_governor_client_call(
    client: *const LkGovernorClient,
    command: *const c_char,
    payload_json: *const c_char,
    out_json: *mut *mut c_char,
) -> LkStatus {
    // SAFETY: forwarded contract.
    call(|| unsafe { json_entry(client, command, payload_json, Answer::Strict, out_json) })
}

/// The wire dispatcher over the socket, as `lk_governor_handle`: writes the daemon's response
/// envelope `{"protocolVersion","success","payloadJson","error"}` to `*out_json`. A refused
/// command or a transport failure is an envelope with `success` false, not a failed call.
///
/// # Safety
/// As `lk_governor_client_call`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lk_governor_client_handle(
    client: *const LkGovernorClient,
    command: *const c_char,
    payload_json: *const c_char,
    out_json: *mut *mut c_char,
) -> LkStatus {
    // SAFETY: forwarded contract.
    call(|| unsafe { json_entry(client, command, payload_json, Answer::Envelope, out_json) })
}

impl JsonHandle for LkGovernorClient {
    const NAME: &'static str = "client";
    const STRICT_PAYLOAD: &'static str = "payload_json";
    fn call_json(&self, command: &str, payload: &str) -> leasekit::Result<String> {
        self.inner.call_json(command, payload)
    }
    fn handle(&self, command: &str, payload: &str) -> String {
        self.inner.handle(command, payload)
    }
}
