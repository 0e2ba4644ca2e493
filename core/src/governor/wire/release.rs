//! `Release`: usage in, receipt out.

use serde::{Deserialize, Serialize};

use super::acquire::ContextSummaryTrace;
use super::approval::ApprovalDecisionTrace;
use super::enums::{
    LeaseOutcome, ProviderErrorClassification, ReleaseClassification, ToolCategory,
};
use super::num;

/// Usage of one tool call, reported at release.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct ToolCallUsage {
    /// Tool id.
    pub tool_id: String,
    /// Sub-lease id.
    pub tool_sub_lease_id: String,
    /// Category.
    pub category: ToolCategory,
    /// Duration.
    pub duration_ms: u64,
    /// Bytes in.
    pub bytes_in: u64,
    /// Bytes out.
    pub bytes_out: u64,
    /// Outcome.
    pub outcome: LeaseOutcome,
}

/// `ReleaseLeaseRequest`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct ReleaseRequest {
    /// Lease id.
    pub lease_id: String,
    /// Actual prompt tokens.
    pub actual_prompt_tokens: u32,
    /// Actual output tokens.
    pub actual_output_tokens: u32,
    /// Actual cost in cents (replaces the reservation).
    #[serde(deserialize_with = "num::cents")]
    pub actual_cost_cents: u64,
    /// Tool calls made.
    pub tool_calls_count: u32,
    /// Bytes in.
    pub bytes_in: u64,
    /// Bytes out.
    pub bytes_out: u64,
    /// Latency.
    pub latency_ms: u64,
    /// Provider error.
    pub provider_error_classification: ProviderErrorClassification,
    /// Per-call usage.
    pub tool_calls: Vec<ToolCallUsage>,
    /// Outcome.
    pub outcome: LeaseOutcome,
    /// Idempotency key: a second release with the same key replays the first response.
    pub idempotency_key: String,
}

/// A release receipt (when `actualCostCents >= receiptThresholdCostCents`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct LeaseReceipt {
    /// Lease id.
    pub lease_id: String,
    /// Policy hash at release.
    pub policy_hash: String,
    /// Actual prompt tokens.
    pub actual_prompt_tokens: u32,
    /// Actual output tokens.
    pub actual_output_tokens: u32,
    /// Actual cost.
    pub actual_cost_cents: u64,
    /// Outcome.
    pub outcome: LeaseOutcome,
    /// `entryHash` of the `lease_released` audit record.
    pub audit_entry_hash: String,
    /// Time of the release.
    #[serde(default = "super::time::none", serialize_with = "super::time::write")]
    pub timestamp_utc: String,
    /// Reviews of the approval the lease used.
    pub approval_chain: Vec<ApprovalDecisionTrace>,
    /// Governed-summarization traces.
    pub context_summaries: Vec<ContextSummaryTrace>,
}

/// `ReleaseLeaseResponse`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct ReleaseResponse {
    /// Classification.
    pub classification: ReleaseClassification,
    /// Recommendation.
    pub recommendation: String,
    /// The request's idempotency key.
    pub idempotency_key: String,
    /// Active policy version.
    pub policy_version: String,
    /// Active policy hash.
    pub policy_hash: String,
    /// Receipt.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub receipt: Option<LeaseReceipt>,
}
