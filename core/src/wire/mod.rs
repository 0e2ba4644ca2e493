//! The JSON shapes that cross a binding boundary, defined once.
//!
//! In the style of the `cedar-policy` crate's `ffi` module: every structured argument a
//! binding hands to the core (a *call* shape) and every structured result it hands back (an
//! *answer* shape) is a serde type here, read with `deny_unknown_fields`, with `*_json` (text)
//! and `*_value` ([`serde_json::Value`]) entry points. A binding converts its host values to
//! one of these shapes and back, and nothing else: which keys exist, which are optional, what
//! `null` means and which amounts are accepted is decided here, so the C, Python, Node and JVM
//! bindings cannot drift apart.
//!
//! | shape | direction | type / entry points |
//! |---|---|---|
//! | caller-given amount map (`parent_remaining`, `check_budget_remaining`) | call | [`Amounts`], [`parse_signed_amount`] |
//! | amount map (budget, remaining, sums) | answer | [`amounts_value`], [`amounts_json`] |
//! | subset options | call | [`SubsetOptions`] |
//! | guard options | call | [`GuardOptions`] |
//! | Agentfile check options | call | [`AgentfileOptions`] |
//! | lease constraints | call / answer | [`constraints_value`] (core's [`crate::LeaseConstraints`] reads them) |
//! | budget entry | answer | [`BudgetEntryAnswer`] |
//! | emitted metrics | answer | [`metrics_value`], [`metrics_json`] |
//! | narrowing result | answer | [`NarrowedAnswer`], [`reductions_value`] |
//! | Agentfile report | answer | [`agentfile_report_value`] |
//! | error envelope | answer | [`ErrorEnvelope`] |
//!
//! Key spelling: the shapes use the ARCP snake_case names. A binding whose host convention
//! is camelCase (Node) reads the top-level option keys in [`KeyStyle::Camel`]: the same shape,
//! spelled `parentRemaining`, with error messages in the caller's spelling.

mod amounts;
mod answers;
mod envelope;
mod options;
mod style;

pub use amounts::{Amounts, amounts_json, amounts_value, parse_signed_amount};
pub use answers::{
    BudgetEntryAnswer, NarrowedAnswer, agentfile_report_value, constraints_value, metrics_json,
    metrics_value, reductions_json, reductions_value,
};
pub use envelope::ErrorEnvelope;
pub use options::{AgentfileOptions, GuardOptions, SubsetOptions};
pub use style::KeyStyle;

use crate::error::{Error, ErrorCode, Result};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// Parses JSON text into a call shape; bad JSON or a wrong shape is `INVALID_REQUEST`
/// naming `what`.
fn from_json_str<T: DeserializeOwned>(text: &str, what: &str) -> Result<T> {
    serde_json::from_str(text).map_err(|e| Error::invalid(format!("{what}: {e}")))
}

/// Reads a call shape from a parsed value, with keys spelled in `style`.
fn from_value_styled<T: DeserializeOwned>(value: Value, style: KeyStyle, what: &str) -> Result<T> {
    // serde would also read a struct from an array, by position: an options shape is an object.
    if !value.is_object() {
        return Err(Error::invalid(format!("{what} must be an object")));
    }
    let value = style.to_snake(value, what)?;
    serde_json::from_value(value).map_err(|e| Error::invalid(style.message(what, &e.to_string())))
}

/// Serializes an answer shape (`INTERNAL_ERROR` if serde fails, which the shapes never do).
fn to_value<T: Serialize>(answer: &T) -> Result<Value> {
    serde_json::to_value(answer)
        .map_err(|e| Error::new(ErrorCode::InternalError, format!("cannot serialize: {e}")))
}

#[cfg(test)]
mod tests;
