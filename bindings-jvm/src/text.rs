//! Hot-path string conversions for `guardAuthorize` / `guardAuthorizeModel`.
//!
//! [`convert::string_arg`](crate::convert::string_arg) goes through `GetStringUTFChars`: the
//! JVM allocates a modified-UTF-8 copy, we decode it into a new `String`, then the JVM frees
//! its copy. On the hot path [`read`] instead copies the UTF-16 code units with one
//! `GetStringRegion` (Java passes the length) into a stack buffer (a `Vec` for long strings)
//! and decodes them here: all-ASCII text needs no decoding at all.
//!
//! Invalid UTF-16 (a lone surrogate) is rare and its handling is observable (the core sees the
//! text lossily decoded, one U+FFFD per invalid byte of the modified UTF-8), so such a string
//! falls back to exactly the old conversion and is marked not [`Text::exact`]: the caller must
//! then never answer "the argument as given", since the text the core saw is not the Java
//! string.
//!
//! [`new_string`] builds a `java.lang.String` from UTF-16 with `NewString` (no modified-UTF-8
//! re-encoding, no NUL terminator).

use std::mem::MaybeUninit;
use std::panic::resume_unwind;

use jni::objects::JString;
use jni::sys::{self, jchar, jsize, jstring};
use jni::{EnvUnowned, Outcome};

use crate::convert::string_arg;
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

/// Storage for one decoded argument; lives on the caller's stack.
pub struct TextBuf {
    ascii: [MaybeUninit<u8>; STACK_UNITS],
    owned: String,
}

impl TextBuf {
    /// An empty buffer (no allocation, nothing initialized).
    pub fn new() -> TextBuf {
        TextBuf {
            ascii: [MaybeUninit::uninit(); STACK_UNITS],
            owned: String::new(),
        }
    }
}

impl Default for TextBuf {
    fn default() -> Self {
        TextBuf::new()
    }
}

/// A decoded Java string argument.
pub struct Text<'b> {
    /// The text the core is given.
    pub text: &'b str,
    /// Whether `text` is exactly the Java string (false after the lossy fallback).
    pub exact: bool,
}

/// Reads the Java string argument `value` of `len` UTF-16 units (Java's `String.length()` of
/// that very string, passed alongside it); `null` is `INVALID_REQUEST` naming the argument, as
/// in [`string_arg`].
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
) -> BindResult<Text<'b>> {
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
        return unsafe { decode(env, value, &units, what, buf) };
    }
    let mut units = [MaybeUninit::<u16>::uninit(); STACK_UNITS];
    // Initialize what GetStringRegion will overwrite, so that a wrong `len` (which the JVM
    // answers with a pending exception and no copy) could never expose uninitialized memory.
    for u in &mut units[..n] {
        u.write(0);
    }
    // SAFETY: 0..len is the whole string (Java passed its length) and fits `units`.
    unsafe {
        jni_fn!(
            env,
            GetStringRegion,
            raw,
            0,
            len,
            units.as_mut_ptr().cast::<jchar>()
        )
    };
    // SAFETY: the first `n` units were initialized above (and overwritten by the copy).
    let units: &[u16] = unsafe { std::slice::from_raw_parts(units.as_ptr().cast::<u16>(), n) };
    let mut ascii = true;
    for (b, &u) in buf.ascii.iter_mut().zip(units) {
        ascii &= u < 0x80;
        b.write(u as u8);
    }
    if ascii {
        // SAFETY: the first `n` bytes were just written, each below 0x80: valid UTF-8.
        let text = unsafe {
            std::str::from_utf8_unchecked(std::slice::from_raw_parts(
                buf.ascii.as_ptr().cast::<u8>(),
                n,
            ))
        };
        return Ok(Text { text, exact: true });
    }
    unsafe { decode(env, value, units, what, buf) }
}

/// Decodes valid UTF-16 exactly; invalid UTF-16 takes the old conversion.
///
/// # Safety
///
/// As [`read`].
unsafe fn decode<'b>(
    env: RawEnv,
    value: &JString<'_>,
    units: &[u16],
    what: &str,
    buf: &'b mut TextBuf,
) -> BindResult<Text<'b>> {
    let exact = match String::from_utf16(units) {
        Ok(s) => {
            buf.owned = s;
            true
        }
        Err(_) => {
            buf.owned = unsafe { lossy(env, value, what)? };
            false
        }
    };
    Ok(Text {
        text: &buf.owned,
        exact,
    })
}

/// The conversion of [`string_arg`] (`GetStringUTFChars`, lossy on invalid modified UTF-8),
/// through a jni `Env`.
///
/// # Safety
///
/// As [`read`].
unsafe fn lossy(env: RawEnv, value: &JString<'_>, what: &str) -> BindResult<String> {
    // SAFETY: `env` is the valid JNIEnv of the current native call.
    let mut unowned = unsafe { EnvUnowned::from_raw(env) };
    match unowned
        .with_env(|env| string_arg(env, value, what))
        .into_outcome()
    {
        Outcome::Ok(s) => Ok(s),
        Outcome::Err(e) => Err(e),
        Outcome::Panic(payload) => resume_unwind(payload),
    }
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
        // SAFETY: the first `text.len()` units are initialized.
        unsafe {
            jni_fn!(
                env,
                NewString,
                units.as_ptr().cast::<jchar>(),
                text.len() as jsize
            )
        }
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
