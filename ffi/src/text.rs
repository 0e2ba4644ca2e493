//! Conversions of C strings, handles and out-parameters, and `lk_string_free`.

use std::ffi::{CStr, CString, c_char};

use leasekit::{Error, Result};

use crate::boundary::{call_void, into_c_string};

/// Borrows a required NUL-terminated UTF-8 argument.
///
/// # Safety
/// `ptr` is NULL or points to a NUL-terminated string that outlives the call.
pub(crate) unsafe fn arg_str<'a>(ptr: *const c_char, what: &str) -> Result<&'a str> {
    if ptr.is_null() {
        return Err(Error::invalid(format!("{what} is a NULL pointer")));
    }
    // SAFETY: non-null and NUL-terminated per the caller's contract.
    utf8(unsafe { CStr::from_ptr(ptr) }.to_bytes(), what)
}

/// Borrows a required argument given as `len` bytes of UTF-8 (which may contain NUL
/// bytes). NULL is accepted only with `len` 0 (the empty string).
///
/// # Safety
/// `ptr` is NULL or points to `len` readable bytes that outlive the call.
pub(crate) unsafe fn arg_str_n<'a>(ptr: *const c_char, len: usize, what: &str) -> Result<&'a str> {
    // SAFETY: forwarded contract.
    utf8(unsafe { arg_bytes(ptr.cast::<u8>(), len, what)? }, what)
}

/// Borrows `len` bytes (NULL only with `len` 0).
///
/// # Safety
/// `ptr` is NULL or points to `len` readable bytes that outlive the call.
pub(crate) unsafe fn arg_bytes<'a>(ptr: *const u8, len: usize, what: &str) -> Result<&'a [u8]> {
    if ptr.is_null() {
        return if len == 0 {
            Ok(&[])
        } else {
            Err(Error::invalid(format!("{what} is a NULL pointer")))
        };
    }
    // SAFETY: `len` readable bytes per the caller's contract.
    Ok(unsafe { std::slice::from_raw_parts(ptr, len) })
}

/// The UTF-8 text of an argument's bytes.
fn utf8<'a>(bytes: &'a [u8], what: &str) -> Result<&'a str> {
    std::str::from_utf8(bytes).map_err(|e| {
        Error::invalid(format!(
            "{what} is not valid UTF-8 (invalid byte at offset {})",
            e.valid_up_to()
        ))
    })
}

/// Borrows an optional argument: NULL means absent.
///
/// # Safety
/// As [`arg_str`].
pub(crate) unsafe fn opt_arg_str<'a>(ptr: *const c_char, what: &str) -> Result<Option<&'a str>> {
    if ptr.is_null() {
        Ok(None)
    } else {
        // SAFETY: forwarded contract.
        unsafe { arg_str(ptr, what) }.map(Some)
    }
}

/// Borrows a required array of `len` strings.
///
/// # Safety
/// `ptr` is NULL or points to `len` pointers, each valid for [`arg_str`].
pub(crate) unsafe fn arg_str_array<'a>(
    ptr: *const *const c_char,
    len: usize,
    what: &str,
) -> Result<Vec<&'a str>> {
    if len == 0 {
        return Ok(Vec::new());
    }
    if ptr.is_null() {
        return Err(Error::invalid(format!("{what} is a NULL pointer")));
    }
    // SAFETY: `len` readable elements per the caller's contract.
    let items = unsafe { std::slice::from_raw_parts(ptr, len) };
    items
        .iter()
        .enumerate()
        // SAFETY: each element follows `arg_str`'s contract.
        .map(|(i, p)| unsafe { arg_str(*p, &format!("{what}[{i}]")) })
        .collect()
}

/// Borrows a required handle.
///
/// # Safety
/// `ptr` is NULL or a live handle of type `T` created by this library.
pub(crate) unsafe fn arg_handle<'a, T>(ptr: *const T, what: &str) -> Result<&'a T> {
    // SAFETY: non-null pointers are live handles per the caller's contract.
    unsafe { ptr.as_ref() }.ok_or_else(|| Error::invalid(format!("{what} is a NULL pointer")))
}

/// Takes a required out-parameter and resets it to its empty value, so that it reads
/// as NULL/false/0 if the call then fails.
///
/// # Safety
/// `ptr` is NULL or valid for writes of a `T`.
pub(crate) unsafe fn out_slot<'a, T: Empty>(ptr: *mut T, what: &str) -> Result<&'a mut T> {
    // SAFETY: non-null pointers are writable per the caller's contract.
    let slot = unsafe { ptr.as_mut() }
        .ok_or_else(|| Error::invalid(format!("{what} is a NULL pointer")))?;
    *slot = T::empty();
    Ok(slot)
}

/// Takes an optional out-parameter (NULL: the caller does not want that value).
///
/// # Safety
/// As [`out_slot`].
pub(crate) unsafe fn opt_out_slot<'a, T: Empty>(ptr: *mut T) -> Option<&'a mut T> {
    // SAFETY: non-null pointers are writable per the caller's contract.
    let slot = unsafe { ptr.as_mut() }?;
    *slot = T::empty();
    Some(slot)
}

/// Types an out-parameter is reset to before the call does its work.
pub(crate) trait Empty {
    /// The value a failed call leaves behind.
    fn empty() -> Self;
}

impl<T> Empty for *mut T {
    fn empty() -> Self {
        std::ptr::null_mut()
    }
}

impl Empty for bool {
    fn empty() -> Self {
        false
    }
}

impl Empty for i32 {
    fn empty() -> Self {
        0
    }
}

/// Converts raw arguments of an exported function in place, in the order listed (an
/// out-parameter listed first is reset before any argument is read, and the first bad argument
/// is the one reported); each error names its parameter. Kinds: `out` ([`out_slot`]), `opt_out`
/// ([`opt_out_slot`]), `handle` ([`arg_handle`]), `str` ([`arg_str`]), `opt_str`
/// ([`opt_arg_str`]), `str_n(len)` ([`arg_str_n`]) and `strs(len)` ([`arg_str_array`]). Used
/// (mostly through `crate::boundary::ffi!`) under the pointer contracts of the exported
/// function.
macro_rules! args {
    ($($name:ident: $kind:ident $(($len:ident))?),* $(,)?) => {
        $(let $name = $crate::text::args!(@$kind $name $($len)?);)+
    };
    // SAFETY (every arm): the exported function's documented pointer contract.
    (@out $p:ident) => { unsafe { $crate::text::out_slot($p, stringify!($p))? } };
    (@opt_out $p:ident) => { unsafe { $crate::text::opt_out_slot($p) } };
    (@handle $p:ident) => { unsafe { $crate::text::arg_handle($p, stringify!($p))? } };
    (@str $p:ident) => { unsafe { $crate::text::arg_str($p, stringify!($p))? } };
    (@opt_str $p:ident) => { unsafe { $crate::text::opt_arg_str($p, stringify!($p))? } };
    (@str_n $p:ident $len:ident) => {
        unsafe { $crate::text::arg_str_n($p, $len, stringify!($p))? }
    };
    (@strs $p:ident $len:ident) => {
        unsafe { $crate::text::arg_str_array($p, $len, stringify!($p))? }
    };
}
pub(crate) use args;

/// Writes a plain value (a bool, an int) into an out-parameter.
pub(crate) fn put<T>(slot: &mut T, value: T) -> Result<()> {
    *slot = value;
    Ok(())
}

/// Writes a string into an out-parameter (a `&str` is copied once, sized for the NUL).
pub(crate) fn put_string(slot: &mut *mut c_char, s: impl Into<Vec<u8>>) -> Result<()> {
    *slot = into_c_string(s)?;
    Ok(())
}

/// Writes a JSON value as an owned string into an out-parameter.
pub(crate) fn put_json(slot: &mut *mut c_char, v: &serde_json::Value) -> Result<()> {
    put_string(slot, v.to_string())
}

/// Writes the string `make` gives into an optional out-parameter; `make` runs only when the
/// caller asked for the value.
pub(crate) fn put_opt<S: Into<Vec<u8>>>(
    slot: Option<&mut *mut c_char>,
    make: impl FnOnce() -> Result<S>,
) -> Result<()> {
    slot.map_or(Ok(()), |s| put_string(s, make()?))
}

/// Moves a value into a new heap handle.
pub(crate) fn put_handle<T>(slot: &mut *mut T, value: T) {
    *slot = Box::into_raw(Box::new(value));
}

/// Frees a handle created by [`put_handle`]; NULL is ignored.
///
/// # Safety
/// `ptr` is NULL or a handle from [`put_handle`] not freed before.
pub(crate) unsafe fn free_handle<T>(ptr: *mut T) {
    if !ptr.is_null() {
        // SAFETY: created by Box::into_raw and not freed before, per the contract.
        call_void(|| drop(unsafe { Box::from_raw(ptr) }));
    }
}

/// Frees a string returned by any leasekit function. NULL is ignored.
///
/// # Safety
/// `s` is NULL or a string returned by leasekit that has not been freed before.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lk_string_free(s: *mut c_char) {
    if !s.is_null() {
        // SAFETY: allocated by CString::into_raw and not freed before, per the contract.
        call_void(|| drop(unsafe { CString::from_raw(s) }));
    }
}
