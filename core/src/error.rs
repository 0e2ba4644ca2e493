//! The one error type of leasekit, with the ARCP v1.1 error codes (SEMANTICS 11).

use serde_json::{Map, Value};
use std::fmt;

/// An ARCP error code. The string form ([`ErrorCode::as_str`]) is the same in every language.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ErrorCode {
    /// The operation is not covered by the lease.
    PermissionDenied,
    /// A delegated lease is wider than its parent.
    LeaseSubsetViolation,
    /// The operation happened at or after `expires_at`.
    LeaseExpired,
    /// A budget counter is at or below zero, or a reservation does not fit.
    BudgetExhausted,
    /// Malformed input: lease shape, pattern, target, amount, timestamp.
    InvalidRequest,
    /// The caller is not authenticated.
    Unauthenticated,
    /// No such job.
    JobNotFound,
    /// An idempotency key was reused.
    DuplicateKey,
    /// The agent is not available.
    AgentNotAvailable,
    /// The agent version is not available.
    AgentVersionNotAvailable,
    /// The job was cancelled.
    Cancelled,
    /// A time limit was exceeded.
    Timeout,
    /// The resume window has passed.
    ResumeWindowExpired,
    /// The heartbeat was lost.
    HeartbeatLost,
    /// A bug or an unexpected failure inside leasekit (including a caught panic).
    InternalError,
}

impl ErrorCode {
    /// Every code, in the order of ARCP section 12.
    pub const ALL: [ErrorCode; 15] = [
        ErrorCode::PermissionDenied,
        ErrorCode::LeaseSubsetViolation,
        ErrorCode::LeaseExpired,
        ErrorCode::BudgetExhausted,
        ErrorCode::InvalidRequest,
        ErrorCode::Unauthenticated,
        ErrorCode::JobNotFound,
        ErrorCode::DuplicateKey,
        ErrorCode::AgentNotAvailable,
        ErrorCode::AgentVersionNotAvailable,
        ErrorCode::Cancelled,
        ErrorCode::Timeout,
        ErrorCode::ResumeWindowExpired,
        ErrorCode::HeartbeatLost,
        ErrorCode::InternalError,
    ];

    /// The wire string, e.g. `"PERMISSION_DENIED"`.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::PermissionDenied => "PERMISSION_DENIED",
            ErrorCode::LeaseSubsetViolation => "LEASE_SUBSET_VIOLATION",
            ErrorCode::LeaseExpired => "LEASE_EXPIRED",
            ErrorCode::BudgetExhausted => "BUDGET_EXHAUSTED",
            ErrorCode::InvalidRequest => "INVALID_REQUEST",
            ErrorCode::Unauthenticated => "UNAUTHENTICATED",
            ErrorCode::JobNotFound => "JOB_NOT_FOUND",
            ErrorCode::DuplicateKey => "DUPLICATE_KEY",
            ErrorCode::AgentNotAvailable => "AGENT_NOT_AVAILABLE",
            ErrorCode::AgentVersionNotAvailable => "AGENT_VERSION_NOT_AVAILABLE",
            ErrorCode::Cancelled => "CANCELLED",
            ErrorCode::Timeout => "TIMEOUT",
            ErrorCode::ResumeWindowExpired => "RESUME_WINDOW_EXPIRED",
            ErrorCode::HeartbeatLost => "HEARTBEAT_LOST",
            ErrorCode::InternalError => "INTERNAL_ERROR",
        }
    }

    /// Parses the wire string; `None` for anything else.
    pub fn parse(s: &str) -> Option<ErrorCode> {
        ErrorCode::ALL.into_iter().find(|c| c.as_str() == s)
    }

    /// Whether a caller may retry: only `TIMEOUT`, `HEARTBEAT_LOST` and `INTERNAL_ERROR`.
    pub fn retryable(self) -> bool {
        matches!(
            self,
            ErrorCode::Timeout | ErrorCode::HeartbeatLost | ErrorCode::InternalError
        )
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An ARCP error: `{code, message, retryable, details}`.
#[derive(Clone, Debug, PartialEq)]
pub struct Error {
    code: ErrorCode,
    message: String,
    details: Map<String, Value>,
}

/// The result type of every fallible leasekit call.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// A new error with empty details.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Error {
        Error {
            code,
            message: message.into(),
            details: Map::new(),
        }
    }

    /// Shorthand for an `INVALID_REQUEST` error.
    pub fn invalid(message: impl Into<String>) -> Error {
        Error::new(ErrorCode::InvalidRequest, message)
    }

    /// Adds one entry to the details object.
    pub fn with_detail(mut self, key: &str, value: impl Into<Value>) -> Error {
        self.details.insert(key.to_string(), value.into());
        self
    }

    /// The code.
    pub fn code(&self) -> ErrorCode {
        self.code
    }

    /// The human-readable message (never compared by tests; never contains secrets).
    pub fn message(&self) -> &str {
        &self.message
    }

    /// Whether the error is retryable (derived from the code).
    pub fn retryable(&self) -> bool {
        self.code.retryable()
    }

    /// Structured details, e.g. `{"capability", "pattern", "witness"}` for a subset violation.
    pub fn details(&self) -> &Map<String, Value> {
        &self.details
    }

    /// The wire form `{"code", "message", "retryable", "details"}`.
    /// (The shape is [`crate::wire::ErrorEnvelope`].)
    pub fn to_json(&self) -> Value {
        crate::wire::ErrorEnvelope::from(self).to_value()
    }

    /// The ARCP error payload: [`crate::wire::ErrorEnvelope::to_payload`] (`details` only when
    /// there are any).
    pub fn to_payload(&self) -> Value {
        crate::wire::ErrorEnvelope::from(self).to_payload()
    }

    /// Turns a caught panic payload into an `INTERNAL_ERROR` (for `catch_unwind` at boundaries).
    pub fn internal_from_panic(payload: &(dyn std::any::Any + Send)) -> Error {
        let what = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".to_string());
        Error::new(
            ErrorCode::InternalError,
            format!("internal error (panic): {what}"),
        )
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for Error {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip_and_retryable_set() {
        for c in ErrorCode::ALL {
            assert_eq!(ErrorCode::parse(c.as_str()), Some(c));
        }
        let retryable: Vec<_> = ErrorCode::ALL.iter().filter(|c| c.retryable()).collect();
        assert_eq!(
            retryable,
            [
                &ErrorCode::Timeout,
                &ErrorCode::HeartbeatLost,
                &ErrorCode::InternalError
            ]
        );
        assert_eq!(ErrorCode::parse("INTERNAL"), None);
    }

    #[test]
    fn json_shape() {
        let e = Error::new(ErrorCode::PermissionDenied, "no").with_detail("capability", "fs.read");
        let j = e.to_json();
        assert_eq!(j["code"], "PERMISSION_DENIED");
        assert_eq!(j["retryable"], false);
        assert_eq!(j["details"]["capability"], "fs.read");
    }

    #[test]
    fn panic_payload_becomes_internal_error() {
        let r = std::panic::catch_unwind(|| panic!("boom"));
        let e = Error::internal_from_panic(r.unwrap_err().as_ref());
        assert_eq!(e.code(), ErrorCode::InternalError);
        assert!(e.retryable());
    }
}
