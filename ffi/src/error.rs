//! The `LkStatus` enum: one value per ARCP error code, in the order of
//! `conformance/error-codes.json`.

use std::ffi::c_char;
use std::panic::catch_unwind;

use leasekit::ErrorCode;

/// Result of every leasekit C function: `LK_OK` (0) or the ARCP error code of the
/// failure, numbered in the order of ARCP section 12 (`conformance/error-codes.json`).
/// A NULL pointer or invalid UTF-8 argument is reported as `LK_INVALID_REQUEST`; a
/// panic inside the library as `LK_INTERNAL_ERROR`.
#[repr(C)]
#[allow(non_camel_case_types)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LkStatus {
    /// Success.
    LK_OK = 0,
    /// `PERMISSION_DENIED`: no pattern of the capability matches the target.
    LK_PERMISSION_DENIED = 1,
    /// `LEASE_SUBSET_VIOLATION`: a child lease is not a subset of its parent.
    LK_LEASE_SUBSET_VIOLATION = 2,
    /// `LEASE_EXPIRED`: the operation happened at or after `expires_at`.
    LK_LEASE_EXPIRED = 3,
    /// `BUDGET_EXHAUSTED`: a budget counter is at or below zero.
    LK_BUDGET_EXHAUSTED = 4,
    /// `INVALID_REQUEST`: malformed input (also NULL pointers and invalid UTF-8).
    LK_INVALID_REQUEST = 5,
    /// `UNAUTHENTICATED`.
    LK_UNAUTHENTICATED = 6,
    /// `JOB_NOT_FOUND`.
    LK_JOB_NOT_FOUND = 7,
    /// `DUPLICATE_KEY`.
    LK_DUPLICATE_KEY = 8,
    /// `AGENT_NOT_AVAILABLE`.
    LK_AGENT_NOT_AVAILABLE = 9,
    /// `AGENT_VERSION_NOT_AVAILABLE`.
    LK_AGENT_VERSION_NOT_AVAILABLE = 10,
    /// `CANCELLED`.
    LK_CANCELLED = 11,
    /// `TIMEOUT` (retryable).
    LK_TIMEOUT = 12,
    /// `RESUME_WINDOW_EXPIRED`.
    LK_RESUME_WINDOW_EXPIRED = 13,
    /// `HEARTBEAT_LOST` (retryable).
    LK_HEARTBEAT_LOST = 14,
    /// `INTERNAL_ERROR` (retryable); also a panic caught at the boundary.
    LK_INTERNAL_ERROR = 15,
}

impl From<ErrorCode> for LkStatus {
    fn from(code: ErrorCode) -> LkStatus {
        match code {
            ErrorCode::PermissionDenied => LkStatus::LK_PERMISSION_DENIED,
            ErrorCode::LeaseSubsetViolation => LkStatus::LK_LEASE_SUBSET_VIOLATION,
            ErrorCode::LeaseExpired => LkStatus::LK_LEASE_EXPIRED,
            ErrorCode::BudgetExhausted => LkStatus::LK_BUDGET_EXHAUSTED,
            ErrorCode::InvalidRequest => LkStatus::LK_INVALID_REQUEST,
            ErrorCode::Unauthenticated => LkStatus::LK_UNAUTHENTICATED,
            ErrorCode::JobNotFound => LkStatus::LK_JOB_NOT_FOUND,
            ErrorCode::DuplicateKey => LkStatus::LK_DUPLICATE_KEY,
            ErrorCode::AgentNotAvailable => LkStatus::LK_AGENT_NOT_AVAILABLE,
            ErrorCode::AgentVersionNotAvailable => LkStatus::LK_AGENT_VERSION_NOT_AVAILABLE,
            ErrorCode::Cancelled => LkStatus::LK_CANCELLED,
            ErrorCode::Timeout => LkStatus::LK_TIMEOUT,
            ErrorCode::ResumeWindowExpired => LkStatus::LK_RESUME_WINDOW_EXPIRED,
            ErrorCode::HeartbeatLost => LkStatus::LK_HEARTBEAT_LOST,
            ErrorCode::InternalError => LkStatus::LK_INTERNAL_ERROR,
        }
    }
}

/// NUL-terminated code names indexed by status value (index 0 is `"OK"`).
const NAMES: [&std::ffi::CStr; 16] = [
    c"OK",
    c"PERMISSION_DENIED",
    c"LEASE_SUBSET_VIOLATION",
    c"LEASE_EXPIRED",
    c"BUDGET_EXHAUSTED",
    c"INVALID_REQUEST",
    c"UNAUTHENTICATED",
    c"JOB_NOT_FOUND",
    c"DUPLICATE_KEY",
    c"AGENT_NOT_AVAILABLE",
    c"AGENT_VERSION_NOT_AVAILABLE",
    c"CANCELLED",
    c"TIMEOUT",
    c"RESUME_WINDOW_EXPIRED",
    c"HEARTBEAT_LOST",
    c"INTERNAL_ERROR",
];

/// The stable ARCP code string of a status (`"PERMISSION_DENIED"`; `"OK"` for
/// `LK_OK`), or NULL for a value that is not an `LkStatus`. The string is static: do
/// not free it.
#[unsafe(no_mangle)]
pub extern "C" fn lk_status_name(status: i32) -> *const c_char {
    catch_unwind(|| {
        usize::try_from(status)
            .ok()
            .and_then(|i| NAMES.get(i))
            .map_or(std::ptr::null(), |name| name.as_ptr())
    })
    .unwrap_or(std::ptr::null())
}

/// Whether an error with this status may succeed when retried (`TIMEOUT`,
/// `HEARTBEAT_LOST`, `INTERNAL_ERROR`). False for `LK_OK` and unknown values.
#[unsafe(no_mangle)]
pub extern "C" fn lk_status_retryable(status: i32) -> bool {
    catch_unwind(|| {
        usize::try_from(status)
            .ok()
            .and_then(|i| i.checked_sub(1))
            .and_then(|i| ErrorCode::ALL.get(i))
            .is_some_and(|code| code.retryable())
    })
    .unwrap_or(false)
}

/// The number of ARCP error codes (15); valid error statuses are 1..=lk_error_code_count().
#[unsafe(no_mangle)]
pub extern "C" fn lk_error_code_count() -> usize {
    ErrorCode::ALL.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_core_codes_in_order() {
        assert_eq!(NAMES.len(), ErrorCode::ALL.len() + 1);
        for (i, code) in ErrorCode::ALL.iter().enumerate() {
            assert_eq!(NAMES[i + 1].to_str().unwrap(), code.as_str());
            assert_eq!(LkStatus::from(*code) as usize, i + 1);
            assert_eq!(lk_status_retryable(i as i32 + 1), code.retryable());
        }
        assert!(lk_status_name(-1).is_null());
        assert!(lk_status_name(16).is_null());
        assert!(!lk_status_retryable(0));
    }
}
