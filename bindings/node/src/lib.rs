//! Node.js binding for the `leasekit` ARCP lease core, built with napi-rs.
//!
//! Every exported function converts JavaScript values into core types, calls the core,
//! and converts the result (or the core error) back. No lease logic lives here. The
//! small JavaScript wrapper in `index.js` turns the thrown errors into the exported
//! `LeaseError` subclasses.

pub mod agentfile;
pub mod boundary;
pub mod budget;
pub mod client;
pub mod compiled;
pub mod convert;
pub mod errors;
pub mod expiry;
pub mod fast;
pub mod governor;
pub mod guard;
pub mod lease;
pub mod names;
mod registry;
pub mod task;
