//! Hot-path string conversions for `guardAuthorize` / `guardAuthorizeModel`.
//!
//! [`convert::string_arg`](crate::convert::string_arg) goes through `GetStringUTFChars`: the
//! JVM allocates a modified-UTF-8 copy, we decode it into a new `String`, then the JVM frees
//! its copy. On the hot path [`read`] instead copies the UTF-16 code units with one
//! `GetStringRegion` (Java passes the length) into a stack buffer (a `Vec` for long strings)
//! and decodes them here: all-ASCII text needs no decoding at all.
//!
//! Invalid UTF-16 (a lone surrogate) is refused with `INVALID_REQUEST`, as in the Python and
//! Node bindings (docs/decisions.md): replacing it would make the core check a string other
//! than the one the caller will use.
//!
//! [`new_string`] builds a `java.lang.String` from UTF-16 with `NewString` (no modified-UTF-8
//! re-encoding, no NUL terminator).

use std::mem::MaybeUninit;

use jni::objects::JString;
use jni::sys::{self, jchar, jsize, jstring};

use crate::error::{BindError, BindResult, invalid};

/// The `JNIEnv` of the current native call.
pub type RawEnv = *mut sys::JNIEnv;

/// Code units read into the stack buffer; longer strings use the heap.
const STACK_UNITS: usize = 256;

/// Calls a function of the JNI function table of `$env` (a [`RawEnv`]).
macro_rules! jni_fn {
    ($env:expr, $name:ident $(, $arg:expr)*) => {{
        let env: RawEnv = $env;
        // SAFETY (of the callers): `env` is the JNIEnv of the current native call; every JVM
        // this binding supports (Java 17+) provides the JNI 1.2 function table.
        ((**env).v1_2.$name)(env $(, $arg)*)
    }};
}

/// Storage for one decoded argument; lives on the caller's stack (`TextBuf::default()`: no
/// allocation, nothing initialized).
pub struct TextBuf {
    ascii: [MaybeUninit<u8>; STACK_UNITS],
    owned: String,
}

impl Default for TextBuf {
    fn default() -> Self {
        TextBuf {
            ascii: [MaybeUninit::uninit(); STACK_UNITS],
            owned: String::new(),
        }
    }
}

/// Reads the Java string argument `value` of `len` UTF-16 units (Java's `String.length()` of
/// that very string, passed alongside it); `null` is `INVALID_REQUEST` naming the argument, as
/// in `convert::string_arg`.
///
/// # Safety
///
/// `env` is the JNIEnv of the current native call and `value` one of its arguments.
pub unsafe fn read<'b>(
    env: RawEnv,
    value: &JString<'_>,
    len: i32,
    what: &str,
    buf: &'b mut TextBuf,
) -> BindResult<&'b str> {
    if value.is_null() {
        return Err(invalid(format!("{what} must not be null")));
    }
    let Ok(n) = usize::try_from(len) else {
        return Err(invalid(format!("{what}: negative length")));
    };
    let raw = value.as_raw();
    if n > STACK_UNITS {
        let mut units = vec![0u16; n];
        // SAFETY: 0..len is the whole string and fits `units`.
        unsafe { jni_fn!(env, GetStringRegion, raw, 0, len, units.as_mut_ptr()) };
        return decode(&units, what, buf);
    }
    let mut units = [MaybeUninit::<u16>::uninit(); STACK_UNITS];
    // Initialize what GetStringRegion will overwrite, so that a wrong `len` (which the JVM
    // answers with a pending exception and no copy) could never expose uninitialized memory.
    for u in &mut units[..n] {
        u.write(0);
    }
    let dst = units.as_mut_ptr().cast::<jchar>();
    // SAFETY: 0..len is the whole string (Java passed its length) and fits `units`.
    unsafe { jni_fn!(env, GetStringRegion, raw, 0, len, dst) };
    // SAFETY: the first `n` units were initialized above (and overwritten by the copy).
    let units: &[u16] = unsafe { std::slice::from_raw_parts(units.as_ptr().cast::<u16>(), n) };
    let mut ascii = true;
    for (b, &u) in buf.ascii.iter_mut().zip(units) {
        ascii &= u < 0x80;
        b.write(u as u8);
    }
    if ascii {
        let bytes = buf.ascii.as_ptr().cast::<u8>();
        // SAFETY: the first `n` bytes were just written, each below 0x80: valid UTF-8.
        return Ok(unsafe { std::str::from_utf8_unchecked(std::slice::from_raw_parts(bytes, n)) });
    }
    decode(units, what, buf)
}

/// The length in UTF-16 code units of a Java string (`String.length()`).
///
/// # Safety
///
/// `env` is the JNIEnv of the current native call and `value` a live, non-null string of it.
pub unsafe fn string_length(env: RawEnv, value: &JString<'_>) -> i32 {
    // SAFETY: per the function's contract.
    unsafe { jni_fn!(env, GetStringLength, value.as_raw()) }
}

/// Decodes valid UTF-16 exactly; a lone surrogate (invalid UTF-16) is `INVALID_REQUEST`:
/// it has no UTF-8 form, and replacing it would authorize a string other than the caller's.
fn decode<'b>(units: &[u16], what: &str, buf: &'b mut TextBuf) -> BindResult<&'b str> {
    let lone = |_| {
        invalid(format!(
            "the {what} contains a lone surrogate (not valid Unicode)"
        ))
    };
    buf.owned = String::from_utf16(units).map_err(lone)?;
    Ok(&buf.owned)
}

/// Makes a Java string (a new local reference) from UTF-8 text with `NewString`.
///
/// # Safety
///
/// `env` is the JNIEnv of the current native call, with no exception pending.
pub unsafe fn new_string(env: RawEnv, text: &str) -> BindResult<jstring> {
    let made: jstring = if text.len() <= STACK_UNITS && text.is_ascii() {
        let mut units = [MaybeUninit::<jchar>::uninit(); STACK_UNITS];
        for (u, &b) in units.iter_mut().zip(text.as_bytes()) {
            u.write(jchar::from(b));
        }
        let (units, len) = (units.as_ptr().cast::<jchar>(), text.len() as jsize);
        // SAFETY: the first `text.len()` units are initialized.
        unsafe { jni_fn!(env, NewString, units, len) }
    } else {
        let units: Vec<jchar> = text.encode_utf16().collect();
        let len = jsize::try_from(units.len()).map_err(|_| invalid("the result is too long"))?;
        // SAFETY: `units` holds `len` initialized code units.
        unsafe { jni_fn!(env, NewString, units.as_ptr(), len) }
    };
    if made.is_null() {
        // NewString failed with an exception pending (OutOfMemoryError): keep it.
        return Err(BindError::Jni(jni::errors::Error::JavaException));
    }
    Ok(made)
}
