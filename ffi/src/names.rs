//! Capability name rules, target canonicalization, pattern validation and matching.
//!
//! Each function also has an `_n` variant taking `(pointer, length)` strings, for hosts
//! whose strings may contain NUL bytes (a NUL is a control character, so such a name or
//! target is rejected instead of being silently cut at the NUL).

use std::ffi::c_char;

use crate::boundary::ffi;
use crate::error::LkStatus;
use crate::text::{put, put_string};

/// Sets `*out` to whether `name` is a valid capability name (one of the 7 reserved
/// names or `x-vendor.<seg>.<seg>...`).
///
/// # Safety
/// `name` is a NUL-terminated string; `out` points to a writable bool.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lk_is_valid_capability_name(
    name: *const c_char,
    out: *mut bool,
) -> LkStatus {
    // SAFETY: pointer contracts documented above.
    ffi!(out: out, name: str => put(out, leasekit::is_valid_capability_name(name)))
}

/// `lk_is_valid_capability_name` with a `(pointer, length)` name.
///
/// # Safety
/// `name` points to `name_len` bytes (NULL only when `name_len` is 0); `out` points to a
/// writable bool.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lk_is_valid_capability_name_n(
    name: *const c_char,
    name_len: usize,
    out: *mut bool,
) -> LkStatus {
    // SAFETY: pointer contracts documented above.
    ffi!(out: out, name: str_n(name_len) => put(out, leasekit::is_valid_capability_name(name)))
}

/// Sets `*out` to whether `name` is one of the 7 reserved ARCP capability names.
///
/// # Safety
/// `name` is a NUL-terminated string; `out` points to a writable bool.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lk_is_reserved_capability_name(
    name: *const c_char,
    out: *mut bool,
) -> LkStatus {
    // SAFETY: pointer contracts documented above.
    ffi!(out: out, name: str => put(out, leasekit::is_reserved_capability_name(name)))
}

/// `lk_is_reserved_capability_name` with a `(pointer, length)` name.
///
/// # Safety
/// `name` points to `name_len` bytes (NULL only when `name_len` is 0); `out` points to a
/// writable bool.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lk_is_reserved_capability_name_n(
    name: *const c_char,
    name_len: usize,
    out: *mut bool,
) -> LkStatus {
    // SAFETY: pointer contracts documented above.
    ffi!(out: out, name: str_n(name_len) => put(out, leasekit::is_reserved_capability_name(name)))
}

/// Canonicalizes `target` for `capability` (SEMANTICS section 5) into `*out`
/// (free with `lk_string_free`).
///
/// # Safety
/// `capability` and `target` are NUL-terminated strings; `out` points to a writable
/// `char *`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lk_canonicalize_target(
    capability: *const c_char,
    target: *const c_char,
    out: *mut *mut c_char,
) -> LkStatus {
    // SAFETY: pointer contracts documented above.
    ffi!(out: out, capability: str, target: str => {
        put_string(out, leasekit::canonicalize_target(capability, target)?)
    })
}

/// `lk_canonicalize_target` with `(pointer, length)` strings.
///
/// # Safety
/// `capability` and `target` point to `*_len` bytes (NULL only for length 0); `out`
/// points to a writable `char *`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lk_canonicalize_target_n(
    capability: *const c_char,
    capability_len: usize,
    target: *const c_char,
    target_len: usize,
    out: *mut *mut c_char,
) -> LkStatus {
    // SAFETY: pointer contracts documented above.
    ffi!(out: out, capability: str_n(capability_len), target: str_n(target_len) => {
        put_string(out, leasekit::canonicalize_target(capability, target)?)
    })
}

/// Validates `pattern` for `capability` and writes the stored (canonical) pattern to
/// `*out` (free with `lk_string_free`).
///
/// # Safety
/// `capability` and `pattern` are NUL-terminated strings; `out` points to a writable
/// `char *`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lk_validate_pattern(
    capability: *const c_char,
    pattern: *const c_char,
    out: *mut *mut c_char,
) -> LkStatus {
    // SAFETY: pointer contracts documented above.
    ffi!(out: out, capability: str, pattern: str => {
        put_string(out, leasekit::validate_pattern(capability, pattern)?)
    })
}

/// Sets `*out` to whether `pattern` matches `target` for `capability`; the pattern is
/// validated and the target canonicalized first (errors: `LK_INVALID_REQUEST`).
///
/// # Safety
/// `capability`, `pattern` and `target` are NUL-terminated strings; `out` points to a
/// writable bool.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lk_match_pattern(
    capability: *const c_char,
    pattern: *const c_char,
    target: *const c_char,
    out: *mut bool,
) -> LkStatus {
    // SAFETY: pointer contracts documented above.
    ffi!(out: out, capability: str, pattern: str, target: str => {
        put(out, leasekit::match_pattern(capability, pattern, target)?)
    })
}

/// `lk_match_pattern` with `(pointer, length)` strings.
///
/// # Safety
/// `capability`, `pattern` and `target` point to `*_len` bytes (NULL only for length
/// 0); `out` points to a writable bool.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lk_match_pattern_n(
    capability: *const c_char,
    capability_len: usize,
    pattern: *const c_char,
    pattern_len: usize,
    target: *const c_char,
    target_len: usize,
    out: *mut bool,
) -> LkStatus {
    // SAFETY: pointer contracts documented above.
    ffi!(out: out, capability: str_n(capability_len), pattern: str_n(pattern_len),
        target: str_n(target_len) => {
        put(out, leasekit::match_pattern(capability, pattern, target)?)
    })
}
