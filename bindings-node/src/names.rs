//! Capability names, target canonicalization, pattern validation and matching.

use napi_derive::napi;

use crate::error::{Result, run};
use crate::text::Text;

/// Whether `name` is a valid capability name (one of the 7 reserved names or
/// `x-vendor.<seg>.<seg>...`).
#[napi]
pub fn is_valid_capability_name(#[napi(ts_arg_type = "string")] name: Text) -> Result<bool> {
    run(|| Ok(leasekit::is_valid_capability_name(&name)))
}

/// Whether `name` is one of the 7 reserved ARCP capability names.
#[napi]
pub fn is_reserved_capability_name(#[napi(ts_arg_type = "string")] name: Text) -> Result<bool> {
    run(|| Ok(leasekit::is_reserved_capability_name(&name)))
}

/// The core's reserved capability names, in the order whose indexes `index.js` passes to the
/// authorize fast path (`fast/`) instead of the name. Internal.
#[napi(js_name = "__reservedCapabilities", skip_typescript)]
pub fn reserved_capabilities() -> Vec<&'static str> {
    leasekit::RESERVED_CAPABILITIES.to_vec()
}

/// The canonical form of `target` for `capability` (SEMANTICS section 5).
/// Throws `InvalidRequestError` for an invalid target or capability.
#[napi]
pub fn canonicalize_target(
    #[napi(ts_arg_type = "string")] capability: Text,
    #[napi(ts_arg_type = "string")] target: Text,
) -> Result<String> {
    run(|| leasekit::canonicalize_target(&capability, &target))
}

/// Validates `pattern` for `capability` and returns the stored (canonical) pattern.
/// Throws `InvalidRequestError` for an invalid pattern.
#[napi]
pub fn validate_pattern(
    #[napi(ts_arg_type = "string")] capability: Text,
    #[napi(ts_arg_type = "string")] pattern: Text,
) -> Result<String> {
    run(|| leasekit::validate_pattern(&capability, &pattern))
}

/// Whether `pattern` grants `target` for `capability`. The pattern is validated and the
/// target canonicalized first; either being invalid throws `InvalidRequestError`.
/// `matchGlob` is the same function under its former name.
#[napi]
pub fn match_pattern(
    #[napi(ts_arg_type = "string")] capability: Text,
    #[napi(ts_arg_type = "string")] pattern: Text,
    #[napi(ts_arg_type = "string")] target: Text,
) -> Result<bool> {
    run(|| leasekit::match_pattern(&capability, &pattern, &target))
}
