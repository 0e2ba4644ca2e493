//! The error a command gives up with (exit status 2): a usage or input problem.

use leasekit::{Error, ErrorCode};
use std::fmt;

/// Why a command could not run. Printed on stderr as `error[CODE]: message`.
#[derive(Debug)]
pub struct Failure {
    /// The ARCP code when the core reported one (`None` for I/O and usage problems).
    pub code: Option<ErrorCode>,
    /// What went wrong, for a human.
    pub message: String,
}

impl Failure {
    /// A usage or I/O problem that has no ARCP code.
    pub fn usage(message: impl Into<String>) -> Failure {
        Failure {
            code: None,
            message: message.into(),
        }
    }

    /// A core error, with `context` (e.g. the file it came from) in front of its message.
    pub fn core(context: &str, error: &Error) -> Failure {
        Failure {
            code: Some(error.code()),
            message: format!("{context}: {}", error.message()),
        }
    }
}

impl From<Error> for Failure {
    fn from(error: Error) -> Failure {
        Failure {
            code: Some(error.code()),
            message: error.message().to_string(),
        }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.code {
            Some(code) => write!(f, "error[{code}]: {}", self.message),
            None => write!(f, "error: {}", self.message),
        }
    }
}
