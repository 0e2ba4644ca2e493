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

// cbindgen writes the header's functions in the order it meets these modules: the groups keep
// include/leasekit.h's order (rustfmt sorts within a group only).
mod agentfile;
mod boundary;
mod budget;
mod convert;
mod expiry;
mod governor;

mod client;
mod guard;
mod lease;
mod names;
mod narrow;

mod error;
mod text;

pub use agentfile::*;
pub use boundary::{lk_last_error_code, lk_last_error_json};
pub use budget::*;
pub use client::*;
pub use error::*;
pub use expiry::*;
pub use governor::*;
pub use guard::*;
pub use lease::*;
pub use names::*;
pub use narrow::*;
pub use text::lk_string_free;
