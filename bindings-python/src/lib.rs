//! `leasekit._native`: the pyo3 extension module behind the `leasekit` Python package.
//!
//! The binding only converts types and errors; all lease logic lives in the `leasekit` core
//! crate. The public Python surface is re-exported by `python/leasekit/__init__.py`.

mod agentfile;
mod budget;
mod client;
mod clock;
mod convert;
mod error;
mod expiry;
mod governor;
mod guard;
mod lease;
mod names;
mod narrow;
mod text;

use pyo3::prelude::*;

/// The native module; see the `leasekit` package for documentation.
#[pymodule]
mod _native {
    #[pymodule_export]
    use crate::agentfile::{
        PyAgentfile, agentfile_lease, check_agentfile, check_inheritance, evaluate_policy, lint,
        lock, lockfile_json, package_digest, parse_agentfile,
    };
    #[pymodule_export]
    use crate::budget::{
        PyBudgetEntry, check_budget_remaining, format_amount, initial_budget, parse_amount,
        parse_budget_amount, sum_budget_entries,
    };
    #[pymodule_export]
    use crate::client::PyGovernorClientCore;
    #[pymodule_export]
    use crate::clock::PyManualClock;
    #[pymodule_export]
    use crate::error::error_codes;
    #[pymodule_export]
    use crate::expiry::{PyConstraints, parse_expires_at, validate_lease_constraints};
    #[pymodule_export]
    use crate::governor::{PyGovernorCore, decode_frame};
    #[pymodule_export]
    use crate::guard::{PyLeaseGuard, PyMcpGuardCore, PyMetric};
    #[pymodule_export]
    use crate::lease::{
        PyLease, check_lease_subset, is_lease_subset, lint_lease, validate_lease_shape,
    };
    #[pymodule_export]
    use crate::names::{
        canonicalize_target, is_reserved_capability_name, is_valid_capability_name, match_pattern,
        validate_pattern,
    };
    #[pymodule_export]
    use crate::narrow::{PyNarrowed, narrow_constraints, narrow_lease};
}
