//! C ABI for leasekit.
//!
//! Every exported function returns an [`LkStatus`]; on failure the full error
//! (`{code, message, retryable, details}`) is kept in a thread-local slot and read with
//! [`lk_last_error_json`]. Structured results come back as owned JSON strings through
//! `char **` out-parameters and are freed with [`lk_string_free`]. Leases, guards and
//! Agentfiles are opaque handles. Every function catches panics, checks null pointers
//! and invalid UTF-8, and never aborts the host.
//!
//! This crate converts types and errors and nothing else: all behaviour lives in the
//! `leasekit` core crate.

mod agentfile;
mod boundary;
mod budget;
mod expiry;
mod governor;
mod governor_client;
mod guard;
mod json;
mod lease;
mod lint;
mod names;
mod narrow;
mod status;
mod strings;

pub use agentfile::*;
pub use boundary::{lk_last_error_code, lk_last_error_json};
pub use budget::*;
pub use expiry::*;
pub use governor::*;
pub use governor_client::*;
pub use guard::*;
pub use lease::*;
pub use lint::*;
pub use names::*;
pub use narrow::*;
pub use status::*;
pub use strings::lk_string_free;
