//! `Acquire`: the request, the response and their parts.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::enums::{ActionType, IntentClass, LeaseLocality, PrincipalType, Role, ToolCategory};
use super::num;

/// A tool the lease will use, with its declared category.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct ToolIntent {
    /// Tool id (compared case-insensitively with the registry).
    pub tool_id: String,
    /// Declared category.
    pub category: ToolCategory,
}

/// One source of retrieved context.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct ContextContribution {
    /// Source id.
    pub source_id: String,
    /// Chunks.
    pub chunks: u32,
    /// Bytes.
    pub bytes: u64,
    /// Tokens.
    pub tokens: u32,
}

/// `AcquireLeaseRequest`. Absent fields take SEMANTICS 13.2 defaults.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct AcquireRequest {
    /// Session id (informational).
    pub session_id: String,
    /// Client instance id (informational).
    pub client_instance_id: String,
    /// Org; blank becomes `default-org`.
    pub org_id: String,
    /// Actor.
    pub actor_id: String,
    /// Workspace.
    pub workspace_id: String,
    /// Principal type (default `human`).
    pub principal_type: PrincipalType,
    /// Claimed role (default `member`; ignored when the policy has `actorRoles`).
    pub role: Role,
    /// Service-account token (never stored, logged or audited).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub auth_token: String,
    /// Action type (default `chatCompletion`).
    pub action_type: ActionType,
    /// Model id.
    pub model_id: String,
    /// Provider id.
    pub provider_id: String,
    /// Intent class (default `draft`).
    pub intent_class: IntentClass,
    /// Apply constraints instead of denying at the context, retrieval and budget steps.
    pub auto_apply_constraints: bool,
    /// Estimated prompt tokens.
    pub estimated_prompt_tokens: u32,
    /// Maximum output tokens.
    pub max_output_tokens: u32,
    /// Estimated cost in cents.
    #[serde(deserialize_with = "num::cents")]
    pub estimated_cost_cents: u64,
    /// Estimated compute units (default 1; at least 1 is charged).
    pub estimated_compute_units: u32,
    /// Estimated tool output tokens.
    pub estimated_tool_output_tokens: u32,
    /// Requested context tokens.
    pub requested_context_tokens: u32,
    /// Requested retrieved chunks.
    pub requested_retrieved_chunks: u32,
    /// Requested retrieved bytes.
    pub requested_retrieved_bytes: u64,
    /// Requested retrieved tokens.
    pub requested_retrieved_tokens: u32,
    /// Context sources.
    pub context_contributions: Vec<ContextContribution>,
    /// Requested capabilities (LeaseGate's free-form strings).
    pub requested_capabilities: Vec<String>,
    /// Requested tools.
    pub requested_tools: Vec<ToolIntent>,
    /// Risk flags.
    pub risk_flags: Vec<String>,
    /// Approval token (never stored or audited in clear).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub approval_token: String,
    /// Idempotency key, scoped to (orgId, workspaceId, actorId).
    pub idempotency_key: String,
    /// An ARCP lease to narrow to the policy's ceiling (SEMANTICS 13.3).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub requested_lease: Option<Value>,
}

impl Default for AcquireRequest {
    fn default() -> Self {
        AcquireRequest {
            session_id: String::new(),
            client_instance_id: String::new(),
            org_id: String::new(),
            actor_id: String::new(),
            workspace_id: String::new(),
            principal_type: PrincipalType::Human,
            role: Role::Member,
            auth_token: String::new(),
            action_type: ActionType::ChatCompletion,
            model_id: String::new(),
            provider_id: String::new(),
            intent_class: IntentClass::Draft,
            auto_apply_constraints: false,
            estimated_prompt_tokens: 0,
            max_output_tokens: 0,
            estimated_cost_cents: 0,
            estimated_compute_units: 1,
            estimated_tool_output_tokens: 0,
            requested_context_tokens: 0,
            requested_retrieved_chunks: 0,
            requested_retrieved_bytes: 0,
            requested_retrieved_tokens: 0,
            context_contributions: Vec::new(),
            requested_capabilities: Vec::new(),
            requested_tools: Vec::new(),
            risk_flags: Vec::new(),
            approval_token: String::new(),
            idempotency_key: String::new(),
            requested_lease: None,
        }
    }
}

/// Constraints a grant carries.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct LeaseConstraintsWire {
    /// Output token ceiling.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_output_tokens_override: Option<u32>,
    /// Model the caller must switch to (budget downgrade).
    pub forced_model_id: String,
    /// Tool calls allowed under this lease (sum over its sub-leases).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_tool_calls: Option<u32>,
    /// Context token ceiling.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_context_tokens: Option<u32>,
    /// Cooldown the caller should observe before the call.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cooldown_ms: Option<u64>,
}

/// One ranked step of a fallback plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct FallbackPlanStep {
    /// 1-based rank.
    pub rank: u32,
    /// `reduce_output_tokens`, `compress_context`, `switch_model` or `delay_backoff`.
    pub action: String,
    /// Human-readable detail.
    pub detail: String,
}

/// A governed-summarization trace.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct ContextSummaryTrace {
    /// Source id.
    pub source_id: String,
    /// Tokens before.
    pub original_tokens: u32,
    /// Tokens to summarize the source to (`targetTokens` in stores written before the
    /// LeaseGate name).
    #[serde(alias = "targetTokens")]
    pub summarized_tokens: u32,
    /// The rule that applied (`summarization_target_tokens`; `rule` in older stores).
    #[serde(alias = "rule")]
    pub policy_rule: String,
}

/// One reduction narrowing made to a `requestedLease` (SEMANTICS 10).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct LeaseReductionWire {
    /// Capability (or `cost.budget`).
    pub capability: String,
    /// Requested pattern concerned, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pattern: Option<String>,
    /// `capability_dropped`, `pattern_dropped`, `pattern_replaced` or `budget_lowered`.
    pub action: String,
    /// Replacement patterns or budget entry.
    pub replacement: Vec<String>,
}

/// `AcquireLeaseResponse`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct AcquireResponse {
    /// Granted?
    pub granted: bool,
    /// Lease id (empty on a denial).
    pub lease_id: String,
    /// Expiry (`0001-01-01T00:00:00.000Z` on a denial).
    #[serde(default = "super::time::none", serialize_with = "super::time::write")]
    pub expires_at_utc: String,
    /// Constraints.
    pub constraints: LeaseConstraintsWire,
    /// Denial reason (empty on a grant).
    pub denied_reason: String,
    /// When to retry, if the denial has a retry rule.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retry_after_ms: Option<u64>,
    /// Recommendation.
    pub recommendation: String,
    /// The request's idempotency key.
    pub idempotency_key: String,
    /// Active policy version.
    pub policy_version: String,
    /// Active policy hash.
    pub policy_hash: String,
    /// Org (after defaulting).
    pub org_id: String,
    /// Principal type.
    pub principal_type: PrincipalType,
    /// Effective role (SEMANTICS 13.15 Roles).
    pub role: Role,
    /// Locality.
    pub lease_locality: LeaseLocality,
    /// Degraded mode (a client fallback grant).
    pub degraded_mode: bool,
    /// Fallback plan.
    pub fallback_plan: Vec<FallbackPlanStep>,
    /// Governed-summarization traces.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub context_summaries: Vec<ContextSummaryTrace>,
    /// The narrowed ARCP lease, when `requestedLease` was given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub effective_lease: Option<Value>,
    /// What narrowing removed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lease_reductions: Option<Vec<LeaseReductionWire>>,
}
