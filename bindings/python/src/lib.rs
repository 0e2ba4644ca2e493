//! `leasekit._native`: the pyo3 extension module behind the `leasekit` Python package.
//!
//! The binding only converts types and errors; all lease logic lives in the `leasekit` core
//! crate. The public Python surface is re-exported by `python/leasekit/__init__.py`.

mod agentfile;
mod clock;
mod convert;
mod errors;
mod functions;
mod governor;
mod governor_client;
mod guard;
mod lease;
mod values;

use pyo3::prelude::*;

/// The native module; see the `leasekit` package for documentation.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<lease::PyLease>()?;
    m.add_class::<lease::PyConstraints>()?;
    m.add_class::<guard::PyLeaseGuard>()?;
    m.add_class::<clock::PyManualClock>()?;
    m.add_class::<values::PyMetric>()?;
    m.add_class::<values::PyBudgetEntry>()?;
    m.add_class::<functions::PyNarrowed>()?;
    m.add_function(wrap_pyfunction!(errors::error_codes, m)?)?;
    m.add_function(wrap_pyfunction!(functions::is_reserved_capability_name, m)?)?;
    m.add_function(wrap_pyfunction!(functions::is_valid_capability_name, m)?)?;
    m.add_function(wrap_pyfunction!(functions::validate_lease_shape, m)?)?;
    m.add_function(wrap_pyfunction!(functions::canonicalize_target, m)?)?;
    m.add_function(wrap_pyfunction!(functions::validate_pattern, m)?)?;
    m.add_function(wrap_pyfunction!(functions::match_pattern, m)?)?;
    m.add_function(wrap_pyfunction!(functions::parse_budget_amount, m)?)?;
    m.add_function(wrap_pyfunction!(functions::check_budget_remaining, m)?)?;
    m.add_function(wrap_pyfunction!(functions::parse_amount, m)?)?;
    m.add_function(wrap_pyfunction!(functions::format_amount, m)?)?;
    m.add_function(wrap_pyfunction!(functions::sum_budget_entries, m)?)?;
    m.add_function(wrap_pyfunction!(functions::initial_budget, m)?)?;
    m.add_function(wrap_pyfunction!(functions::parse_expires_at, m)?)?;
    m.add_function(wrap_pyfunction!(functions::validate_lease_constraints, m)?)?;
    m.add_function(wrap_pyfunction!(functions::is_lease_subset, m)?)?;
    m.add_function(wrap_pyfunction!(functions::check_lease_subset, m)?)?;
    m.add_function(wrap_pyfunction!(functions::narrow_lease, m)?)?;
    m.add_function(wrap_pyfunction!(functions::narrow_constraints, m)?)?;
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
    m.add_class::<governor_client::PyGovernorClientCore>()?;
    m.add_function(wrap_pyfunction!(functions::lint_lease, m)?)?;
    Ok(())
}
