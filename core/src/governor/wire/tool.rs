//! Tool sub-leases, tool calls and `Authorize`.

use serde::{Deserialize, Serialize};

use super::enums::{LeaseOutcome, ToolCategory};

/// `ToolSubLeaseRequest`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ToolSubLeaseRequest {
    /// Parent lease.
    pub lease_id: String,
    /// Tool (must be one the parent requested).
    pub tool_id: String,
    /// Category (must be the one the parent requested for the tool).
    pub category: ToolCategory,
    /// Calls wanted (default 1).
    pub requested_calls: u32,
    /// Timeout wanted (default 2 000).
    pub timeout_ms: u64,
    /// Output bytes wanted (default 16 384).
    pub max_output_bytes: u64,
    /// Approval token, when the category needs approval.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub approval_token: String,
    /// Echoed.
    pub idempotency_key: String,
}

impl Default for ToolSubLeaseRequest {
    fn default() -> Self {
        ToolSubLeaseRequest {
            lease_id: String::new(),
            tool_id: String::new(),
            category: ToolCategory::Other,
            requested_calls: 1,
            timeout_ms: 2_000,
            max_output_bytes: 16_384,
            approval_token: String::new(),
            idempotency_key: String::new(),
        }
    }
}

/// `ToolSubLeaseResponse`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct ToolSubLeaseResponse {
    /// Granted?
    pub granted: bool,
    /// Sub-lease id.
    pub tool_sub_lease_id: String,
    /// Expiry (the parent's; `0001-01-01T00:00:00.000Z` on a denial).
    #[serde(default = "super::time::none", serialize_with = "super::time::write")]
    pub expires_at_utc: String,
    /// Calls allowed.
    pub allowed_calls: u32,
    /// Timeout ceiling.
    pub timeout_ms: u64,
    /// Output ceiling.
    pub max_output_bytes: u64,
    /// Denial reason.
    pub denied_reason: String,
    /// Recommendation.
    pub recommendation: String,
    /// Echoed.
    pub idempotency_key: String,
}

/// `ToolExecutionRequest`: authorize and account one call (nothing is run).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ToolExecutionRequest {
    /// Parent lease.
    pub lease_id: String,
    /// Sub-lease.
    pub tool_sub_lease_id: String,
    /// Tool.
    pub tool_id: String,
    /// Category.
    pub category: ToolCategory,
    /// File the call touches (empty: none).
    pub target_path: String,
    /// Host the call touches (empty: none).
    pub target_host: String,
    /// Command the call runs (exec).
    pub command_text: String,
    /// Timeout wanted (default 1 000).
    pub timeout_ms: u64,
    /// Output bytes wanted (default 8 192).
    pub max_output_bytes: u64,
    /// Echoed.
    pub idempotency_key: String,
}

impl Default for ToolExecutionRequest {
    fn default() -> Self {
        ToolExecutionRequest {
            lease_id: String::new(),
            tool_sub_lease_id: String::new(),
            tool_id: String::new(),
            category: ToolCategory::Other,
            target_path: String::new(),
            target_host: String::new(),
            command_text: String::new(),
            timeout_ms: 1_000,
            max_output_bytes: 8_192,
            idempotency_key: String::new(),
        }
    }
}

/// `ToolExecutionResponse`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct ToolExecutionResponse {
    /// Allowed?
    pub allowed: bool,
    /// Outcome (`success` when allowed, `policyDenied` otherwise).
    pub outcome: LeaseOutcome,
    /// Denial reason.
    pub denied_reason: String,
    /// Recommendation.
    pub recommendation: String,
    /// Output bytes of the call: always 0, the governor runs nothing (SEMANTICS 13.8).
    pub output_bytes: u64,
    /// Duration of the call: always 0, the governor runs nothing.
    pub duration_ms: u64,
    /// Output preview: always empty, the governor runs nothing.
    pub output_preview: String,
    /// Effective timeout (min of request and sub-lease).
    pub timeout_ms: u64,
    /// Effective output ceiling (min of request and sub-lease).
    pub max_output_bytes: u64,
    /// Calls left on the sub-lease.
    pub remaining_calls: u32,
    /// Canonical path checked, when a path was given and allowed.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub canonical_path: String,
    /// Canonical host checked (lower case, no trailing dot; an IPv6 literal in brackets), when
    /// a host was given and allowed: the host the runner must use (SEMANTICS 13.16).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub canonical_host: String,
    /// Echoed.
    pub idempotency_key: String,
}

/// `Authorize`: one operation against a live lease's `effectiveLease`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct AuthorizeRequest {
    /// Lease.
    pub lease_id: String,
    /// ARCP capability.
    pub capability: String,
    /// Target.
    pub target: String,
}

/// `Authorize` answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct AuthorizeResponse {
    /// Allowed?
    pub allowed: bool,
    /// The canonical target to operate on (when allowed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub canonical_target: Option<String>,
    /// ARCP error code (when refused).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    /// Reason (when refused).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub denied_reason: Option<String>,
}
