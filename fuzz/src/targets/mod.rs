//! The fuzz targets: each takes the raw input and panics exactly when a property of
//! docs/semantics.md fails (a crash found by libFuzzer is a property failure or a real panic).

mod agentfile;
mod budget;
mod c_abi;
mod canonical;
mod governor;
mod lease;
mod pattern;
mod subset;

pub use agentfile::{agentfile, cedar_policy};
pub use budget::{budget_amount, expires_at};
pub use c_abi::c_abi;
pub use canonical::{canonical_fast_path, canonical_invariants, canonicalize};
pub use governor::{governor_dispatch, governor_frame};
pub use lease::{authorize, lease_json};
pub use pattern::pattern_match;
pub use subset::{narrow, subset_bruteforce};

/// Asserts that a failure is `INVALID_REQUEST` (bad input must fail with that stable code).
pub(crate) fn invalid<T: std::fmt::Debug>(r: &leasekit::Result<T>, what: &str) {
    if let Err(e) = r {
        assert_eq!(
            e.code(),
            leasekit::ErrorCode::InvalidRequest,
            "{what}: {}",
            e.message()
        );
    }
}
