//! Capability names, canonicalization and pattern matching: each function converts its
//! arguments, calls core, and converts the result.

use pyo3::prelude::*;

use crate::error::attached;
use crate::text::Text;

/// True for the seven reserved ARCP capability names.
#[pyfunction]
pub fn is_reserved_capability_name(py: Python<'_>, name: Text<'_>) -> PyResult<bool> {
    attached(py, || Ok(leasekit::is_reserved_capability_name(&name)))
}

/// True for a reserved name or a well-formed `x-vendor.<vendor>.<cap>` name.
#[pyfunction]
pub fn is_valid_capability_name(py: Python<'_>, name: Text<'_>) -> PyResult<bool> {
    attached(py, || Ok(leasekit::is_valid_capability_name(&name)))
}

/// The canonical form of `target` for `capability` (paths, URLs); raises InvalidRequest.
#[pyfunction]
pub fn canonicalize_target(
    py: Python<'_>,
    capability: Text<'_>,
    target: Text<'_>,
) -> PyResult<String> {
    attached(py, || leasekit::canonicalize_target(&capability, &target))
}

/// Validate a pattern for `capability`; returns the stored (canonical) pattern.
#[pyfunction]
pub fn validate_pattern(
    py: Python<'_>,
    capability: Text<'_>,
    pattern: Text<'_>,
) -> PyResult<String> {
    attached(py, || leasekit::validate_pattern(&capability, &pattern))
}

/// Whether `pattern` matches `target` (canonicalized first) for `capability`.
#[pyfunction]
pub fn match_pattern(
    py: Python<'_>,
    capability: Text<'_>,
    pattern: Text<'_>,
    target: Text<'_>,
) -> PyResult<bool> {
    attached(py, || {
        leasekit::match_pattern(&capability, &pattern, &target)
    })
}
