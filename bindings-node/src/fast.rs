//! The per-call hot path, `LeaseGuard.prototype.authorize` / `authorizeModel`, as plain
//! Node-API callbacks.
//!
//! Why not `#[napi]`: napi-rs 3.16 opens a native-borrow scope (a mutex-guarded registry,
//! several allocations) and checks class identity on every call, which cost ~600 ns of the
//! ~800 ns an authorize took. These callbacks do only conversions: read two strings into
//! reused per-thread buffers, call core's `LeaseGuard::authorize_cow`, and hand back the
//! caller's own string when core borrowed it (a new string only when canonicalization
//! changed it). A lone surrogate is refused (`INVALID_REQUEST`), never replaced.
//!
//! The guard reaches them as a *handle*: an external value owning a clone of the core guard
//! (and of the JavaScript clock), tagged with [`HANDLE_TAG`] so a foreign external is refused.
//! `index.js` asks each guard for its handle once (`__fastHandle`) and keeps it under a
//! symbol. Errors are thrown exactly as `boundary::run` throws them (`code` = ARCP code,
//! message = the core error's JSON), and panics are caught, so `index.js` converts both the
//! same way.

use std::borrow::Cow;
use std::ffi::{CStr, CString, c_char, c_void};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::ptr;
use std::sync::Arc;

use leasekit::{Error, ErrorCode};
use napi::Env;
use napi::sys::{self, Status, napi_callback_info, napi_env, napi_value};

use crate::guard::JsClock;

/// Tags handle externals (a random 128-bit value, fixed for this library).
const HANDLE_TAG: sys::napi_type_tag = sys::napi_type_tag {
    lower: 0x6c65_6173_656b_6974, // "leasekit"
    upper: 0x8f3a_52c1_d0e7_4b96,
};

/// What a handle owns: the core guard (shared with its `LeaseGuard` object) and its clock.
pub(crate) struct FastGuard {
    pub(crate) guard: leasekit::LeaseGuard,
    pub(crate) clock: Option<Arc<JsClock>>,
}

/// An error to throw: the `code` property and the message.
struct Thrown {
    code: &'static str,
    message: String,
}

impl From<Error> for Thrown {
    fn from(e: Error) -> Thrown {
        Thrown {
            code: e.code().as_str(),
            message: e.to_json().to_string(),
        }
    }
}

/// A wrong-type argument: thrown with napi-rs's status name, which `index.js` maps to
/// `InvalidRequestError` like every other argument of the wrong type.
fn bad_argument(what: &str, expected: &str) -> Thrown {
    Thrown {
        code: "InvalidArg",
        message: format!("{what} must be {expected}"),
    }
}

/// Creates the handle external for `fast` (called by `LeaseGuard.__fastHandle`).
pub(crate) fn create_handle(env: napi_env, fast: FastGuard) -> napi::Result<napi_value> {
    unsafe extern "C" fn finalize(_env: napi_env, data: *mut c_void, _hint: *mut c_void) {
        // SAFETY: `data` is the Box leaked below, finalized exactly once by Node.
        drop(unsafe { Box::from_raw(data.cast::<FastGuard>()) });
    }
    let data = Box::into_raw(Box::new(fast)).cast::<c_void>();
    let mut out = ptr::null_mut();
    // SAFETY: plain Node-API calls on the current env; on failure the box is reclaimed.
    unsafe {
        if sys::napi_create_external(env, data, Some(finalize), ptr::null_mut(), &mut out)
            != Status::napi_ok
        {
            drop(Box::from_raw(data.cast::<FastGuard>()));
            return Err(napi::Error::from_reason("cannot create the guard handle"));
        }
        if sys::napi_type_tag_object(env, out, &HANDLE_TAG) != Status::napi_ok {
            return Err(napi::Error::from_reason("cannot tag the guard handle"));
        }
    }
    Ok(out)
}

/// Installs `__authorize` and `__authorizeModel` on the module's exports.
pub(crate) fn install(env: napi_env, exports: napi_value) -> napi::Result<()> {
    let functions: [(&CStr, sys::napi_callback); 2] = [
        (c"__authorize", Some(authorize)),
        (c"__authorizeModel", Some(authorize_model)),
    ];
    for (name, cb) in functions {
        let mut f = ptr::null_mut();
        // SAFETY: plain Node-API calls with a NUL-terminated name.
        let ok = unsafe {
            sys::napi_create_function(env, name.as_ptr(), -1, cb, ptr::null_mut(), &mut f)
                == Status::napi_ok
                && sys::napi_set_named_property(env, exports, name.as_ptr(), f) == Status::napi_ok
        };
        if !ok {
            return Err(napi::Error::from_reason("cannot install the fast path"));
        }
    }
    Ok(())
}

/// `__authorize(handle, capability, target)`.
unsafe extern "C" fn authorize(env: napi_env, info: napi_callback_info) -> napi_value {
    // SAFETY: called by Node with a valid env and callback info.
    unsafe { call(env, info, 3) }
}

/// `__authorizeModel(handle, modelId)`.
unsafe extern "C" fn authorize_model(env: napi_env, info: napi_callback_info) -> napi_value {
    // SAFETY: as above.
    unsafe { call(env, info, 2) }
}

/// Shared body: `argc` 3 = (handle, capability, target), 2 = (handle, model id).
unsafe fn call(env: napi_env, info: napi_callback_info, argc: usize) -> napi_value {
    let mut argv = [ptr::null_mut(); 3];
    let mut got = argc;
    // SAFETY: argv has room for `argc` values; missing arguments are filled with undefined.
    if unsafe {
        sys::napi_get_cb_info(
            env,
            info,
            &mut got,
            argv.as_mut_ptr(),
            ptr::null_mut(),
            ptr::null_mut(),
        )
    } != Status::napi_ok
    {
        return throw(env, bad_argument("arguments", "readable"));
    }
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: the env and values come from this very call.
        unsafe { authorize_args(env, &argv, argc) }
    }));
    match outcome {
        Ok(Ok(Some(value))) => value,
        Ok(Ok(None)) => argv[argc - 1], // canonical already: the caller's own string
        Ok(Err(thrown)) => throw(env, thrown),
        Err(payload) => throw(env, Error::internal_from_panic(&*payload).into()),
    }
}

/// Reads the arguments, runs the core, and returns `None` when the target is returned as
/// given, or the new canonical string.
unsafe fn authorize_args(
    env: napi_env,
    argv: &[napi_value; 3],
    argc: usize,
) -> Result<Option<napi_value>, Thrown> {
    // SAFETY: argv[0] is a value of this call.
    let fast = unsafe { handle(env, argv[0]) }?;
    let mut scratch = SCRATCH.take();
    let Scratch {
        units,
        capability,
        target,
    } = &mut scratch;
    let result = (|| {
        let cap: &str = if argc == 3 {
            // SAFETY: argv[1] is a value of this call.
            unsafe { read_str(env, argv[1], units, capability) }
                .map_err(|why| not_text("capability", why))?
        } else {
            "model.use"
        };
        let what = if argc == 3 { "target" } else { "modelId" };
        // SAFETY: the target is a value of this call.
        let target = unsafe { read_str(env, argv[argc - 1], units, target) }
            .map_err(|why| not_text(what, why))?;
        run_core(env, fast, cap, target)
    })();
    if scratch.units.capacity() <= KEEP_UNITS {
        SCRATCH.set(scratch); // else drop it: do not pin one huge target's buffers
    }
    result
}

/// Scratch buffers that grew past this many code units are not kept.
const KEEP_UNITS: usize = 1 << 16;

/// Reusable per-thread buffers, so a call allocates nothing once warm.
#[derive(Default)]
struct Scratch {
    units: Vec<u16>,
    capability: String,
    target: String,
}

thread_local! {
    static SCRATCH: std::cell::Cell<Scratch> = std::cell::Cell::new(Scratch::default());
}

/// Ticks the clock, runs core, and builds the answer (see [`authorize_args`]).
fn run_core(
    env: napi_env,
    fast: &FastGuard,
    capability: &str,
    target: &str,
) -> Result<Option<napi_value>, Thrown> {
    if let Some(clock) = &fast.clock {
        clock.refresh(&Env::from_raw(env))?;
    }
    match fast.guard.authorize_cow(capability, target)? {
        Cow::Borrowed(_) => Ok(None),
        Cow::Owned(text) => new_string(env, &text).map(Some),
    }
}

/// The guard behind a handle value, if it is one of ours.
unsafe fn handle<'a>(env: napi_env, value: napi_value) -> Result<&'a FastGuard, Thrown> {
    let mut tagged = false;
    let mut data = ptr::null_mut();
    // SAFETY: plain Node-API queries; a tagged external's data is a live `FastGuard` (the
    // external keeps it alive while the caller holds the handle, which it does during the
    // call because it is an argument).
    let mut kind = sys::ValueType::napi_undefined;
    unsafe {
        if sys::napi_typeof(env, value, &mut kind) != Status::napi_ok
            || kind != sys::ValueType::napi_external
            || sys::napi_check_object_type_tag(env, value, &HANDLE_TAG, &mut tagged)
                != Status::napi_ok
            || !tagged
            || sys::napi_get_value_external(env, value, &mut data) != Status::napi_ok
            || data.is_null()
        {
            return Err(bad_argument("the guard handle", "a LeaseGuard handle"));
        }
        Ok(&*data.cast::<FastGuard>())
    }
}

/// What reading a JavaScript string can find besides text.
enum NotText {
    /// Not a string at all.
    NotAString,
    /// A string with a lone surrogate: it has no UTF-8 form.
    LoneSurrogate,
}

/// Reads a JavaScript string as UTF-8. A lone surrogate is refused rather than replaced:
/// the text core checks must be exactly the caller's string.
///
/// Reads the UTF-16 code units (a plain copy in V8, unlike its UTF-8 writer) and encodes
/// them here, with a fast path for ASCII.
unsafe fn read_str<'b>(
    env: napi_env,
    value: napi_value,
    units: &mut Vec<u16>,
    out: &'b mut String,
) -> Result<&'b str, NotText> {
    let mut len = 0usize;
    // SAFETY: a NULL buffer asks for the length in code units.
    if unsafe { sys::napi_get_value_string_utf16(env, value, ptr::null_mut(), 0, &mut len) }
        != Status::napi_ok
    {
        return Err(NotText::NotAString);
    }
    units.clear();
    units.reserve(len + 1);
    let mut copied = 0usize;
    // SAFETY: `units` has room for `len` code units plus the terminating NUL Node writes;
    // `copied` of them are initialized afterwards.
    unsafe {
        if sys::napi_get_value_string_utf16(env, value, units.as_mut_ptr(), len + 1, &mut copied)
            != Status::napi_ok
        {
            return Err(NotText::NotAString);
        }
        units.set_len(copied.min(len));
    }
    out.clear();
    // Branch-free (vectorizable) test, then a plain narrowing copy.
    if units.iter().fold(0u16, |acc, &u| acc | u) < 0x80 {
        // SAFETY: every unit is ASCII, so these bytes are valid UTF-8.
        unsafe { out.as_mut_vec() }.extend(units.iter().map(|&u| u as u8));
    } else {
        for c in char::decode_utf16(units.iter().copied()) {
            out.push(c.map_err(|_| NotText::LoneSurrogate)?);
        }
    }
    Ok(out)
}

/// The error for an argument that is not text.
fn not_text(what: &str, why: NotText) -> Thrown {
    match why {
        NotText::NotAString => bad_argument(what, "a string"),
        NotText::LoneSurrogate => Error::invalid(format!(
            "the {what} contains a lone surrogate (not valid Unicode)"
        ))
        .into(),
    }
}

/// A new JavaScript string.
fn new_string(env: napi_env, text: &str) -> Result<napi_value, Thrown> {
    let mut out = ptr::null_mut();
    // SAFETY: `text` is valid UTF-8 of the given length.
    let status = unsafe {
        sys::napi_create_string_utf8(
            env,
            text.as_ptr().cast::<c_char>(),
            text.len() as isize,
            &mut out,
        )
    };
    if status != Status::napi_ok {
        return Err(Error::new(ErrorCode::InternalError, "cannot create a string").into());
    }
    Ok(out)
}

/// Throws `thrown` (unless an exception is already pending, e.g. from the clock) and
/// returns the `undefined` placeholder Node expects.
///
/// What is thrown is a plain `{code, message}` object, not an `Error`: `index.js` always
/// converts it into a `LeaseError` subclass, and skipping the native `Error` saves a stack
/// capture, the dearest part of a denial.
fn throw(env: napi_env, thrown: Thrown) -> napi_value {
    let mut pending = false;
    // SAFETY: plain Node-API calls on this call's env; strings are valid UTF-8.
    unsafe {
        sys::napi_is_exception_pending(env, &mut pending);
        if pending {
            return ptr::null_mut();
        }
        let mut obj = ptr::null_mut();
        let made = sys::napi_create_object(env, &mut obj) == Status::napi_ok
            && set_string(env, obj, c"code", thrown.code)
            && set_string(env, obj, c"message", &thrown.message);
        if made {
            sys::napi_throw(env, obj);
        } else {
            let code = CString::new(thrown.code).unwrap_or_default();
            let message = CString::new(thrown.message.replace('\0', " ")).unwrap_or_default();
            sys::napi_throw_error(env, code.as_ptr(), message.as_ptr());
        }
    }
    ptr::null_mut()
}

/// `obj[name] = text`; false on failure.
unsafe fn set_string(env: napi_env, obj: napi_value, name: &CStr, text: &str) -> bool {
    match new_string(env, text) {
        // SAFETY: live values of this call; `name` is NUL-terminated.
        Ok(value) => unsafe {
            sys::napi_set_named_property(env, obj, name.as_ptr(), value) == Status::napi_ok
        },
        Err(_) => false,
    }
}
