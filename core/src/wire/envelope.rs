//! The error envelope every binding reports: `{"code", "message", "retryable", "details"}`.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::error::{Error, ErrorCode};

/// The wire form of an [`Error`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ErrorEnvelope {
    /// The stable ARCP code, e.g. `"PERMISSION_DENIED"`.
    pub code: String,
    /// A human-readable message (never compared by tests; never holds a secret).
    pub message: String,
    /// Whether a caller may retry.
    pub retryable: bool,
    /// Structured details, e.g. `{capability, pattern, witness}` for a subset violation.
    pub details: Map<String, Value>,
}

impl From<&Error> for ErrorEnvelope {
    fn from(e: &Error) -> ErrorEnvelope {
        ErrorEnvelope {
            code: e.code().as_str().to_owned(),
            message: e.message().to_owned(),
            retryable: e.retryable(),
            details: e.details().clone(),
        }
    }
}

impl ErrorEnvelope {
    /// As a JSON value.
    pub fn to_value(&self) -> Value {
        serde_json::json!({
            "code": self.code,
            "message": self.message,
            "retryable": self.retryable,
            "details": Value::Object(self.details.clone()),
        })
    }

    /// The ARCP error payload (ARCP section 12), as the ARCP SDKs write it (`toPayload()`,
    /// `to_payload()`): `{code, message, retryable}`, plus `details` when it has an entry.
    pub fn to_payload(&self) -> Value {
        let mut out = Map::new();
        out.insert("code".into(), Value::String(self.code.clone()));
        out.insert("message".into(), Value::String(self.message.clone()));
        out.insert("retryable".into(), Value::Bool(self.retryable));
        if !self.details.is_empty() {
            out.insert("details".into(), Value::Object(self.details.clone()));
        }
        Value::Object(out)
    }

    /// The error this envelope describes (`None` for an unknown code).
    pub fn to_error(&self) -> Option<Error> {
        let code = ErrorCode::parse(&self.code)?;
        let mut e = Error::new(code, self.message.clone());
        for (k, v) in &self.details {
            e = e.with_detail(k, v.clone());
        }
        Some(e)
    }
}
