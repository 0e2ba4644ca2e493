//! The shared authorize callback: reads the guard's key and the strings of one call (through
//! the one text conversion, `text.rs`), runs core, and answers the canonical target or throws.

use std::borrow::Cow;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::ptr;

use leasekit::{CapabilityKind, Error};
use napi::Env;
use napi::sys::{self, Status, napi_callback_info, napi_env, napi_value};

use super::registry::{FastGuard, KEEP_UNITS, KEY_SHIFT, Registry, Scratch};
use super::throw::{Thrown, new_string, not_text, throw};
use crate::error::{bad_argument, to_js_error};
use crate::text::read_text;

/// `authorize(key, target)` or `authorize(key, target, capability)`: the canonical text, or
/// the caller's own string. `key` is the guard's handle times 8 plus the capability: the
/// index of a reserved one, or 7 (`NAMED`) when its name is the third argument.
pub(super) unsafe extern "C" fn authorize(env: napi_env, info: napi_callback_info) -> napi_value {
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
    // SAFETY: `data` is the registry this function keeps (see `fast_authorize`); it lives as
    // long as the function, which is running.
    let registry = unsafe { &*data.cast::<Registry>() };
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
        Err(payload) => throw(env, to_js_error(&Error::internal_from_panic(&*payload))),
    }
}

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
        clock
            .refresh(&Env::from_raw(env))
            .map_err(|e| to_js_error(&e))?;
    }
    let canonical = match capability {
        Capability::Kind(kind) => fast.guard.authorize_kind_cow(kind, target),
        Capability::Name(name) => fast.guard.authorize_cow(name, target),
    }
    .map_err(|e| to_js_error(&e))?;
    match canonical {
        Cow::Borrowed(_) => Ok(None),
        Cow::Owned(text) => new_string(env, &text).map(Some),
    }
}
