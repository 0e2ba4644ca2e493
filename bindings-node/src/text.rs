//! THE one text conversion: every string a JavaScript caller passes (an argument, a string
//! inside an object, the authorize fast path) is read here. A lone surrogate has no UTF-8 form
//! and is refused with `INVALID_REQUEST`, never replaced: the core must check exactly the
//! caller's string.

use std::ptr;

use leasekit::Error;
use napi::bindgen_prelude::FromNapiValue;
use napi::sys::{self, Status, napi_env, napi_value};

use crate::convert::JsArg;
use crate::error::invalid_arg;

/// Code units read in the first (usually only) copy of a string.
const FIRST_UNITS: usize = 256;

/// What reading a JavaScript string can find besides text.
pub(crate) enum NotText {
    /// Not a string at all.
    NotAString,
    /// A string with a lone surrogate: it has no UTF-8 form.
    LoneSurrogate,
}

/// Reads a JavaScript string as UTF-8 into `out`, the one conversion of every string a caller
/// passes. A lone surrogate is refused rather than replaced: the text core checks must be
/// exactly the caller's string.
///
/// Reads the UTF-16 code units (a plain copy in V8, unlike its UTF-8 writer, which replaces
/// lone surrogates) and encodes them here, with a fast path for ASCII. `units` and `out` are
/// buffers the caller may reuse.
///
/// # Safety
/// `env` is the environment of the current call and `value` a live value of it.
pub(crate) unsafe fn read_text<'b>(
    env: napi_env,
    value: napi_value,
    units: &mut Vec<u16>,
    out: &'b mut Vec<u8>,
) -> Result<&'b str, NotText> {
    // One copy into the reused buffer; only a string that fills it is measured and re-read.
    units.clear();
    units.reserve(FIRST_UNITS);
    let mut room = units.capacity();
    let mut copied = 0usize;
    // SAFETY: `units` has room for `room` code units (Node writes at most `room - 1` plus a
    // NUL); `copied` of them are initialized afterwards.
    if unsafe {
        sys::napi_get_value_string_utf16(env, value, units.as_mut_ptr(), room, &mut copied)
    } != Status::napi_ok
    {
        return Err(NotText::NotAString);
    }
    if copied + 1 >= room {
        let mut len = 0usize;
        // SAFETY: a NULL buffer asks for the length in code units.
        unsafe { sys::napi_get_value_string_utf16(env, value, ptr::null_mut(), 0, &mut len) };
        units.reserve(len + 1);
        room = len + 1;
        // SAFETY: as above, with room for the whole string.
        if unsafe {
            sys::napi_get_value_string_utf16(env, value, units.as_mut_ptr(), room, &mut copied)
        } != Status::napi_ok
        {
            return Err(NotText::NotAString);
        }
    }
    // SAFETY: Node initialized `copied` (< room <= capacity) units.
    unsafe { units.set_len(copied.min(room - 1)) };
    // Narrow every unit to a byte and OR them together in one vectorizable pass; the bytes
    // are the text when every unit was ASCII.
    out.clear();
    out.reserve(units.len());
    let mut any = 0u16;
    for (b, &u) in out.spare_capacity_mut().iter_mut().zip(units.iter()) {
        any |= u;
        b.write(u as u8);
    }
    // SAFETY: the loop above initialized the first `units.len()` bytes.
    unsafe { out.set_len(units.len()) };
    if any >= 0x80 {
        out.clear();
        for c in char::decode_utf16(units.iter().copied()) {
            let c = c.map_err(|_| NotText::LoneSurrogate)?;
            out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
        }
    }
    // SAFETY: `out` holds ASCII bytes, or the UTF-8 encoding of decoded chars.
    Ok(unsafe { std::str::from_utf8_unchecked(out) })
}

/// The error for a value that is not text, naming `what`.
pub(crate) fn not_text(what: &str, why: NotText) -> Error {
    match why {
        NotText::NotAString => Error::invalid(format!("{what} must be a string")),
        NotText::LoneSurrogate => Error::invalid(format!(
            "the {what} contains a lone surrogate (not valid Unicode)"
        )),
    }
}

/// A string argument, read by [`read_text`]. A non-string or a lone surrogate is thrown as
/// napi's `InvalidArg`, which `index.js` turns into `InvalidRequestError`.
pub struct Text(pub String);

impl std::ops::Deref for Text {
    type Target = str;

    fn deref(&self) -> &str {
        &self.0
    }
}

impl FromNapiValue for Text {
    unsafe fn from_napi_value(env: napi_env, value: napi_value) -> napi::Result<Self> {
        // SAFETY: a live value of the current call.
        let arg = unsafe { JsArg::from_raw(env, value) };
        arg.text("string argument").map(Text).map_err(invalid_arg)
    }
}
