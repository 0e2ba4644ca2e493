//! The governor (SEMANTICS 13): LeaseGate's admission protocol in core, embedded and
//! durable. A runtime calls it before every model or tool call: `Acquire` (estimates in,
//! grant or deny out), `Release` (actuals in, receipt out), approvals, tool sub-leases,
//! metrics, policy bundles, audit.
//!
//! - [`wire`]: the request/response types and the frame codec (one definition for every
//!   binding and the daemon).
//! - [`policy`]: policy JSON, lint, hash, signed bundles, `Policy::from_agentfile`.
//! - [`engine`]: the pure decision engine (injected clock and ids).
//! - [`audit`]: the hash chain and its verification.
//! - [`store`]: memory and SQLite stores behind one trait.
//! - [`Governor`]: engine + store + group commit + the wire dispatcher `handle`.
//! - [`client`]: [`client::GovernorClient`], the same methods over a `leasekit serve` socket.
//!
//! ```
//! use leasekit::governor::{Governor, GovernorOptions, Policy, wire::AcquireRequest};
//! let policy = Policy::from_json(r#"{"maxInFlight": 1, "dailyBudgetCents": 100}"#).unwrap();
//! let gov = Governor::in_memory(policy, GovernorOptions::default()).unwrap();
//! let req = AcquireRequest { actor_id: "a".into(), workspace_id: "w".into(),
//!     estimated_cost_cents: 5, ..AcquireRequest::default() };
//! let first = gov.acquire(req.clone()).unwrap();
//! assert!(first.granted);
//! let second = gov.acquire(req).unwrap();
//! assert_eq!(second.denied_reason, "concurrency_limit_reached");
//! let answer = gov.handle("GetMetrics", "{}");
//! assert!(answer.contains("\"success\":true"));
//! ```

mod access;
pub mod audit;
mod audit_cmds;
mod call;
#[cfg(unix)]
pub mod client;
mod embedded;
pub mod engine;
mod fleet;
pub mod observe;
pub mod open;
pub mod policy;
pub mod store;
pub mod wire;

pub use access::{Peer, admin_only};
pub use audit::{AuditVerification, verify_audit};
pub use audit_cmds::{EXPORT_AUDIT_MAX_BYTES, EXPORT_AUDIT_MAX_RECORDS, export_page};
pub use embedded::{CommitWait, Governor, decides_without_blocking};
pub use engine::gauges::{
    ACQUIRE_DENIAL_CODES, GRANT_REASONS, GovernorGauges, MAX_SCOPED_GAUGES, SCOPE_KINDS,
    ScopedGauge,
};
pub use engine::{Engine, IdSource};
pub use observe::{BUDGET_SCOPES, BudgetAlert, GovernorObserver, RELEASE_OUTCOMES};
pub use open::{EmbeddedGovernor, StoreSpec};
pub use policy::{GovernorOptions, Policy};
#[cfg(feature = "postgres")]
pub use store::PostgresStore;
pub use store::{MemoryStore, SqliteStore, Store, Synchronous};
