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
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<lease::PyLease>()?;
    m.add_class::<expiry::PyConstraints>()?;
    m.add_class::<guard::PyLeaseGuard>()?;
    m.add_class::<clock::PyManualClock>()?;
    m.add_class::<guard::PyMetric>()?;
    m.add_class::<budget::PyBudgetEntry>()?;
    m.add_class::<narrow::PyNarrowed>()?;
    m.add_function(wrap_pyfunction!(error::error_codes, m)?)?;
    m.add_function(wrap_pyfunction!(names::is_reserved_capability_name, m)?)?;
    m.add_function(wrap_pyfunction!(names::is_valid_capability_name, m)?)?;
    m.add_function(wrap_pyfunction!(lease::validate_lease_shape, m)?)?;
    m.add_function(wrap_pyfunction!(names::canonicalize_target, m)?)?;
    m.add_function(wrap_pyfunction!(names::validate_pattern, m)?)?;
    m.add_function(wrap_pyfunction!(names::match_pattern, m)?)?;
    m.add_function(wrap_pyfunction!(budget::parse_budget_amount, m)?)?;
    m.add_function(wrap_pyfunction!(budget::check_budget_remaining, m)?)?;
    m.add_function(wrap_pyfunction!(budget::parse_amount, m)?)?;
    m.add_function(wrap_pyfunction!(budget::format_amount, m)?)?;
    m.add_function(wrap_pyfunction!(budget::sum_budget_entries, m)?)?;
    m.add_function(wrap_pyfunction!(budget::initial_budget, m)?)?;
    m.add_function(wrap_pyfunction!(expiry::parse_expires_at, m)?)?;
    m.add_function(wrap_pyfunction!(expiry::validate_lease_constraints, m)?)?;
    m.add_function(wrap_pyfunction!(lease::is_lease_subset, m)?)?;
    m.add_function(wrap_pyfunction!(lease::check_lease_subset, m)?)?;
    m.add_function(wrap_pyfunction!(narrow::narrow_lease, m)?)?;
    m.add_function(wrap_pyfunction!(narrow::narrow_constraints, m)?)?;
    m.add_class::<agentfile::PyAgentfile>()?;
    m.add_function(wrap_pyfunction!(agentfile::parse_agentfile, m)?)?;
    m.add_function(wrap_pyfunction!(agentfile::lint, m)?)?;
    m.add_function(wrap_pyfunction!(agentfile::agentfile_lease, m)?)?;
    m.add_function(wrap_pyfunction!(agentfile::check_agentfile, m)?)?;
    m.add_function(wrap_pyfunction!(agentfile::lock, m)?)?;
    m.add_function(wrap_pyfunction!(agentfile::lockfile_json, m)?)?;
    m.add_function(wrap_pyfunction!(agentfile::package_digest, m)?)?;
    m.add_function(wrap_pyfunction!(agentfile::check_inheritance, m)?)?;
    m.add_function(wrap_pyfunction!(agentfile::evaluate_policy, m)?)?;
    m.add_class::<governor::PyGovernorCore>()?;
    m.add_function(wrap_pyfunction!(governor::decode_frame, m)?)?;
    m.add_class::<client::PyGovernorClientCore>()?;
    m.add_function(wrap_pyfunction!(lease::lint_lease, m)?)?;
    Ok(())
}
