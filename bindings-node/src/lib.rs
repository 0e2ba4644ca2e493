//! Node.js binding for the `leasekit` ARCP lease core, built with napi-rs.
//!
//! Every exported function converts JavaScript values into core types, calls the core,
//! and converts the result (or the core error) back. No lease logic lives here. The
//! small JavaScript wrapper in `index.js` turns the thrown errors into the exported
//! `LeaseError` subclasses. Module map: the common floor plan of every binding
//! (README.md "Layout"), plus `clock` (injected clocks) and `fast/` (the authorize hot path).

pub mod agentfile;
pub mod budget;
pub mod client;
pub mod clock;
pub mod convert;
pub mod error;
pub mod expiry;
pub mod fast;
pub mod governor;
pub mod guard;
pub mod lease;
pub mod names;
pub mod narrow;
pub mod text;
