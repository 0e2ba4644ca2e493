//! The per-call hot path, `LeaseGuard.prototype.authorize` / `authorizeModel`, as plain
//! Node-API callbacks.
//!
//! Why not `#[napi]`: napi-rs 3.16 opens a native-borrow scope (a mutex-guarded registry,
//! several allocations) and checks class identity on every call, which cost ~600 ns of the
//! ~800 ns an authorize took. These callbacks do only conversions: read two strings into
//! buffers the guard reuses, call core's `LeaseGuard::authorize_kind_cow` (a reserved
//! capability, passed by index) or `authorize_cow` (a vendor name), and hand back the
//! caller's own string when core borrowed it (a new string only when canonicalization
//! changed it). A lone surrogate is refused (`INVALID_REQUEST`), never replaced.
//!
//! One native function serves every guard of a JavaScript thread (`__fastAuthorize`, created
//! once by `index.js`). Its first argument is the guard's handle, a number naming a clone of
//! the core guard and of its JavaScript clock in this thread's registry (`registry.rs`);
//! `index.js` asks for it once per guard (`__fastHandle`) and keeps it under a symbol. A
//! number that names no live guard is refused. Errors are thrown as a plain `{code, message}`
//! (see [`throw`]) that `index.js` converts like every other native error, and panics are
//! caught.

pub(crate) mod registry;

use std::borrow::Cow;
use std::cell::RefCell;
use std::ffi::{CStr, CString, c_char, c_void};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::ptr;
use std::rc::Rc;
use std::sync::Arc;

use leasekit::{CapabilityKind, Error, ErrorCode};
use napi::Env;
use napi::bindgen_prelude::Unknown;
use napi::sys::{self, Status, napi_callback_info, napi_env, napi_value};
use napi_derive::napi;

use crate::clock::JsClock;
use crate::text::{self, NotText, read_text};
use registry::Registry;

/// What a registry slot holds for one guard: the core guard (shared with its `LeaseGuard`
/// object) and its clock.
pub(crate) struct FastGuard {
    pub(crate) guard: leasekit::LeaseGuard,
    pub(crate) clock: Option<Arc<JsClock>>,
    /// Buffers reused by every call (only ever used on this guard's JavaScript thread; a
    /// re-entrant call, from the clock, uses fresh ones).
    pub(crate) scratch: RefCell<Scratch>,
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

/// The shared authorize function of this JavaScript thread, `authorize(key, target)` /
/// `authorize(key, target, capability)` (see [`authorize`]), for every guard (see
/// `registry.rs`). `index.js` creates it once. Internal.
#[napi(js_name = "__fastAuthorize", skip_typescript)]
pub fn fast_authorize(env: &Env) -> napi::Result<Unknown<'_>> {
    unsafe extern "C" fn finalize(_env: napi_env, data: *mut c_void, _hint: *mut c_void) {
        // SAFETY: `data` is the Box leaked below, finalized exactly once by Node.
        drop(unsafe { Box::from_raw(data.cast::<Rc<Registry>>()) });
    }
    let raw = env.raw();
    let data = Box::into_raw(Box::new(Registry::current())).cast::<c_void>();
    let mut f = ptr::null_mut();
    // SAFETY: plain Node-API calls on the current env; the box is reclaimed if the function
    // cannot take ownership of it.
    unsafe {
        let made = sys::napi_create_function(
            raw,
            c"authorize".as_ptr(),
            -1,
            Some(authorize),
            data,
            &mut f,
        ) == Status::napi_ok;
        if !made
            || sys::napi_add_finalizer(
                raw,
                f,
                data,
                Some(finalize),
                ptr::null_mut(),
                ptr::null_mut(),
            ) != Status::napi_ok
        {
            drop(Box::from_raw(data.cast::<Rc<Registry>>()));
            return Err(napi::Error::from_reason(
                "cannot create the authorize function",
            ));
        }
        // SAFETY: `f` is a live value created on this env during this call.
        Ok(Unknown::from_raw_unchecked(raw, f))
    }
}

/// `authorize(key, target)` or `authorize(key, target, capability)`: the canonical text, or
/// the caller's own string. `key` is the guard's handle times 8 plus the capability: the
/// index of a reserved one, or 7 (`NAMED`) when its name is the third argument.
unsafe extern "C" fn authorize(env: napi_env, info: napi_callback_info) -> napi_value {
    let mut argv = [ptr::null_mut(); 3];
    let mut argc = 3;
    let mut data = ptr::null_mut();
    // SAFETY: called by Node with a valid env and callback info; argv has room for three
    // values (missing arguments read as undefined).
    let status = unsafe {
        sys::napi_get_cb_info(
            env,
            info,
            &mut argc,
            argv.as_mut_ptr(),
            ptr::null_mut(),
            &mut data,
        )
    };
    if status != Status::napi_ok || data.is_null() {
        return throw(env, bad_argument("arguments", "readable"));
    }
    // SAFETY: `data` is the registry this function owns (see `fast_authorize`); it lives as
    // long as the function, which is running.
    let registry = unsafe { &*data.cast::<Rc<Registry>>() };
    let mut number = f64::NAN;
    // SAFETY: a plain Node-API query on a value of this call (a non-number fails and leaves
    // NaN). Read as a double, so that a fraction, NaN or an infinity is refused instead of
    // truncated to some other key.
    unsafe { sys::napi_get_value_double(env, argv[0], &mut number) };
    let Some((key, fast)) =
        key_of(number).and_then(|key| Some((key, registry.get(key >> KEY_SHIFT)?)))
    else {
        return throw(env, bad_argument("this", "a LeaseGuard"));
    };
    let capability = CapabilityKind::reserved((key & KEY_MASK) as usize);
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: the env and values come from this very call.
        unsafe { authorize_args(env, &fast, capability, argv[1], argv[2]) }
    }));
    match outcome {
        Ok(Ok(Some(value))) => value,
        Ok(Ok(None)) => argv[1], // already canonical: the caller's own string
        Ok(Err(thrown)) => throw(env, thrown),
        Err(payload) => throw(env, Error::internal_from_panic(&*payload).into()),
    }
}

/// A key is a handle shifted left by this many bits, plus the capability.
pub(crate) const KEY_SHIFT: u32 = 3;
const KEY_MASK: u64 = (1 << KEY_SHIFT) - 1;

/// The key a JavaScript number stands for: a whole number in 0..2^53, else `None`.
fn key_of(number: f64) -> Option<u64> {
    const LIMIT: f64 = 9_007_199_254_740_992.0; // 2^53
    ((0.0..LIMIT).contains(&number) && number.fract() == 0.0).then_some(number as u64)
}
const _: () = assert!(leasekit::RESERVED_CAPABILITIES.len() < 1 << KEY_SHIFT);

/// Reads the target (and the capability name, unless `reserved` gives it), runs the core,
/// and returns `None` when the target is returned as given, or the new canonical string.
unsafe fn authorize_args(
    env: napi_env,
    fast: &FastGuard,
    reserved: Option<CapabilityKind>,
    target: napi_value,
    name: napi_value,
) -> Result<Option<napi_value>, Thrown> {
    let mut fresh = Scratch::default();
    let mut held = fast.scratch.try_borrow_mut();
    let scratch = match held.as_deref_mut() {
        Ok(s) => s,
        Err(_) => &mut fresh, // re-entered from the clock: the outer call holds the buffers
    };
    let Scratch {
        units,
        capability,
        target: text,
    } = scratch;
    let result = (|| {
        let cap = match reserved {
            Some(kind) => Capability::Kind(kind),
            // SAFETY: a value of this call.
            None => Capability::Name(
                unsafe { read_text(env, name, units, capability) }
                    .map_err(|why| not_text("capability", why))?,
            ),
        };
        // SAFETY: as above.
        let target = unsafe { read_text(env, target, units, text) }
            .map_err(|why| not_text("target", why))?;
        run_core(env, fast, cap, target)
    })();
    if units.capacity() > KEEP_UNITS {
        *scratch = Scratch::default(); // do not pin one huge target's buffers
    }
    result
}

/// Scratch buffers that grew past this many code units are not kept.
const KEEP_UNITS: usize = 1 << 16;

/// Reusable buffers, so a call allocates nothing once warm.
#[derive(Default)]
pub(crate) struct Scratch {
    units: Vec<u16>,
    capability: Vec<u8>,
    target: Vec<u8>,
}

/// The capability of a call: a reserved one (passed by index, and `authorizeModel`), or a
/// name read from the caller's string.
enum Capability<'a> {
    Kind(CapabilityKind),
    Name(&'a str),
}

/// Ticks the clock, runs core, and builds the answer (see [`authorize_args`]).
fn run_core(
    env: napi_env,
    fast: &FastGuard,
    capability: Capability<'_>,
    target: &str,
) -> Result<Option<napi_value>, Thrown> {
    if let Some(clock) = &fast.clock {
        clock.refresh(&Env::from_raw(env))?;
    }
    let canonical = match capability {
        Capability::Kind(kind) => fast.guard.authorize_kind_cow(kind, target)?,
        Capability::Name(name) => fast.guard.authorize_cow(name, target)?,
    };
    match canonical {
        Cow::Borrowed(_) => Ok(None),
        Cow::Owned(text) => new_string(env, &text).map(Some),
    }
}

/// The error for an argument that is not text: a non-string is thrown with napi-rs's status
/// name, as napi-rs does for every argument of the wrong type; a lone surrogate as core's
/// `INVALID_REQUEST` (the one text rule, `text::read_text`).
fn not_text(what: &str, why: NotText) -> Thrown {
    match why {
        NotText::NotAString => bad_argument(what, "a string"),
        why => text::not_text(what, why).into(),
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
