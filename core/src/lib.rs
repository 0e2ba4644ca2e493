//! # leasekit
//!
//! One engine for ARCP v1.1 leases: capability names, pattern matching, target
//! canonicalization, exact subset checks for delegation, exact decimal budgets, strict expiry,
//! a concurrent [`LeaseGuard`], narrowing, and the agentrc Agentfile. The behaviour is pinned
//! by `docs/semantics.md` and proven identical across languages by the conformance vectors.
//!
//! ```
//! use leasekit::{Lease, LeaseConstraints, LeaseGuard, SystemClock};
//! use std::sync::Arc;
//! let lease = Lease::from_json(r#"{"net.fetch": ["https://api.example.com/**"]}"#).unwrap();
//! let guard = LeaseGuard::new(lease, LeaseConstraints::none(), Arc::new(SystemClock));
//! assert_eq!(guard.authorize("net.fetch", "HTTPS://API.example.com:443/v1/../v2").unwrap(),
//!            "https://api.example.com/v2");
//! assert!(guard.authorize("net.fetch", "https://evil.example/").is_err());
//! ```

pub mod agentfile;
pub mod budget;
pub mod canonical;
pub mod capability;
pub mod error;
pub mod expiry;
pub mod governor;
pub mod guard;
pub mod lease;
pub mod lease_lint;
pub mod mcp;
pub mod narrow;
pub mod pattern;
pub mod subset;
pub mod wire;

#[cfg(test)]
mod work_bounds;

pub use budget::{
    BudgetEntry, Decimal, amount_from_f64, check_budget_remaining, format_amount, parse_amount,
    parse_budget_amount, parse_decimal, parse_remaining_amount, sum_budget_entries,
};
pub use canonical::canonicalize_target;
pub use capability::{
    CapabilityKind, RESERVED_CAPABILITIES, is_reserved_capability_name, is_valid_capability_name,
};
pub use error::{Error, ErrorCode, Result};
pub use expiry::{
    Clock, LeaseConstraints, ManualClock, SystemClock, Timestamp, parse_expires_at,
    validate_lease_constraints,
};
pub use governor::{Governor, GovernorOptions, Policy};
pub use guard::{GuardOptions, LeaseGuard, Metric, REMAINING_METRIC};
pub use lease::{Lease, initial_budget, validate_lease_shape};
pub use lease_lint::{LeaseWarning, lint_lease, lint_lease_json};
pub use narrow::{Narrowed, Reduction, narrow_constraints, narrow_lease};
pub use pattern::{match_pattern, validate_pattern};
pub use subset::{SubsetOptions, check_lease_subset, is_lease_subset};
