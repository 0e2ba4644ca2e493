//! `c_abi`: the C ABI (`ffi`, crate `leasekit-ffi`) called with arbitrary bytes, as a C
//! program would: NUL-terminated strings cut at the first NUL, `_n` variants with raw bytes
//! (invalid UTF-8 and interior NULs included), frames of any length. Every call answers a
//! status; a failure leaves a last error that is JSON with that status's code, success writes
//! its out-parameter, and nothing leaks (handles and strings are freed through the ABI).

use std::ffi::{CStr, CString, c_char};
use std::ptr;

use leasekit_ffi::*;

use crate::fields::SEP;

/// A NUL-terminated copy of `bytes`, cut at the first NUL.
fn c(bytes: &[u8]) -> CString {
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    CString::new(&bytes[..end]).expect("no NUL before end")
}

/// Checks the status/out-parameter contract and frees the string.
fn take_string(status: LkStatus, out: *mut c_char, what: &str) {
    if status == LkStatus::LK_OK {
        assert!(!out.is_null(), "{what}: OK without its string");
        // SAFETY: a string this library wrote, freed once.
        unsafe {
            CStr::from_ptr(out).to_str().expect("UTF-8 out-string");
            lk_string_free(out);
        }
    } else {
        assert!(out.is_null(), "{what}: {status:?} wrote its out-parameter");
        check_last_error(status, what);
    }
}

/// The last error is JSON naming the same status.
fn check_last_error(status: LkStatus, what: &str) {
    assert_eq!(lk_last_error_code(), status, "{what}");
    let e = lk_last_error_json();
    assert!(!e.is_null(), "{what}: {status:?} without a last error");
    // SAFETY: a string this library wrote, freed once.
    let text = unsafe { CStr::from_ptr(e).to_string_lossy().into_owned() };
    unsafe { lk_string_free(e) };
    let v: serde_json::Value = serde_json::from_str(&text).expect("last error is JSON");
    assert!(v["code"].is_string(), "{what}: {text}");
}

/// Input: fields separated by `0xFF`: lease JSON, constraints JSON, capability, target,
/// currency, amount, budget entry, expiry, Agentfile text, frame bytes.
pub fn c_abi(data: &[u8]) {
    let f: Vec<&[u8]> = data.splitn(10, |&b| b == SEP).collect();
    let field = |i: usize| f.get(i).copied().unwrap_or(&[]);
    // SAFETY (whole block): every pointer passed is a live CString/slice of this function or
    // a handle this library returned and not yet freed; out-parameters are local variables.
    unsafe {
        let mut lease = ptr::null_mut();
        let lease_json = c(field(0));
        let st = lk_lease_from_json(lease_json.as_ptr(), &mut lease);
        if st == LkStatus::LK_OK {
            assert!(!lease.is_null());
            let mut out = ptr::null_mut();
            let st = lk_lease_to_json(lease, &mut out);
            take_string(st, out, "lease_to_json");
            let constraints = c(field(1));
            let cptr = if field(1).is_empty() {
                ptr::null()
            } else {
                constraints.as_ptr()
            };
            let mut guard = ptr::null_mut();
            let st = lk_guard_new_manual_clock(
                lease,
                cptr,
                ptr::null(),
                c"2026-01-01T00:00:00Z".as_ptr(),
                &mut guard,
            );
            if st == LkStatus::LK_OK {
                guard_calls(guard, field(2), field(3), field(4), field(5));
                let mut out = ptr::null_mut();
                let st = lk_guard_close(guard, &mut out);
                take_string(st, out, "guard_close");
                lk_guard_free(guard);
            } else {
                assert!(guard.is_null());
                check_last_error(st, "guard_new");
            }
            lk_lease_free(lease);
        } else {
            assert!(lease.is_null());
            check_last_error(st, "lease_from_json");
        }

        let mut out = ptr::null_mut();
        let entry = c(field(6));
        let st = lk_budget_parse(entry.as_ptr(), &mut out);
        take_string(st, out, "budget_parse");
        let mut out = ptr::null_mut();
        let expiry = c(field(7));
        let st = lk_parse_expires_at(expiry.as_ptr(), &mut out);
        take_string(st, out, "parse_expires_at");

        let text = c(field(8));
        for compat in [false, true] {
            let mut af = ptr::null_mut();
            let st = lk_agentfile_parse(text.as_ptr(), compat, &mut af);
            if st == LkStatus::LK_OK {
                let mut out = ptr::null_mut();
                let st = lk_agentfile_lint(af, &mut out);
                take_string(st, out, "agentfile_lint");
                lk_agentfile_free(af);
            } else {
                assert!(af.is_null());
                check_last_error(st, "agentfile_parse");
            }
        }

        let frame = field(9);
        let mut out = ptr::null_mut();
        let st = lk_frame_decode(frame.as_ptr(), frame.len(), &mut out);
        take_string(st, out, "frame_decode");
        // Documented misuse is refused, not a crash.
        assert_ne!(
            lk_lease_from_json(ptr::null(), ptr::null_mut()),
            LkStatus::LK_OK
        );
        lk_guard_free(ptr::null_mut());
        lk_lease_free(ptr::null_mut());
    }
}

/// Authorize (C string and `_n` raw-bytes forms), model, reserve, remaining.
unsafe fn guard_calls(guard: *mut LkGuard, cap: &[u8], target: &[u8], cur: &[u8], amt: &[u8]) {
    // SAFETY: see `c_abi`.
    unsafe {
        let (cap_c, target_c) = (c(cap), c(target));
        let mut out = ptr::null_mut();
        let st = lk_guard_authorize(guard, cap_c.as_ptr(), target_c.as_ptr(), &mut out);
        take_string(st, out, "authorize");
        let mut out = ptr::null_mut();
        let st = lk_guard_authorize_n(
            guard,
            cap.as_ptr().cast(),
            cap.len(),
            target.as_ptr().cast(),
            target.len(),
            &mut out,
        );
        take_string(st, out, "authorize_n");
        let mut out = ptr::null_mut();
        let st = lk_guard_authorize_model_n(guard, target.as_ptr().cast(), target.len(), &mut out);
        take_string(st, out, "authorize_model_n");
        let (cur_c, amt_c) = (c(cur), c(amt));
        let mut out = ptr::null_mut();
        let st = lk_guard_reserve(guard, cur_c.as_ptr(), amt_c.as_ptr(), &mut out);
        take_string(st, out, "reserve");
        let mut out = ptr::null_mut();
        let st = lk_guard_remaining(guard, &mut out);
        take_string(st, out, "remaining");
    }
}
