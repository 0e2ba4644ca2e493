//! The policy document (LeaseGate's policy JSON plus the fields SEMANTICS 13 names) and the
//! construction options. Every field is optional: a field the policy sets wins, one it omits
//! takes the options, else the default (SEMANTICS 13.15 "Options and policy").

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::governor::wire::{Role, ToolCategory, ToolIntent};

/// Numeric limits that may be set in the options and in the policy (the policy wins).
/// Signed so that a negative capacity is reported as such (and refused).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
#[allow(missing_docs)]
pub struct Limits {
    pub lease_ttl_ms: Option<i64>,
    pub max_in_flight: Option<i64>,
    pub daily_budget_cents: Option<i64>,
    pub max_requests_per_minute: Option<i64>,
    pub max_tokens_per_minute: Option<i64>,
    pub rate_window_ms: Option<i64>,
    pub max_context_tokens: Option<i64>,
    pub max_retrieved_chunks: Option<i64>,
    pub max_tool_output_tokens: Option<i64>,
    pub max_tool_calls_per_lease: Option<i64>,
    pub max_compute_units: Option<i64>,
    pub receipt_threshold_cost_cents: Option<i64>,
    pub max_retrieved_bytes: Option<i64>,
    pub max_retrieved_tokens: Option<i64>,
    pub summarization_target_tokens: Option<i64>,
    pub retry_threshold_per_lease: Option<i64>,
    pub tool_loop_threshold: Option<i64>,
    pub policy_deny_circuit_breaker_threshold: Option<i64>,
    pub spend_spike_cents: Option<i64>,
    pub safety_cooldown_ms: Option<i64>,
    pub clamped_max_output_tokens: Option<i64>,
    pub default_tool_timeout_ms: Option<i64>,
    pub max_tool_output_bytes: Option<i64>,
    pub safety_window_ms: Option<i64>,
    pub clamp_duration_ms: Option<i64>,
    pub idempotency_retention_ms: Option<i64>,
    /// Longest approval TTL a request may ask for (default 86 400).
    pub max_approval_ttl_seconds: Option<i64>,
    /// Most approvals pending at once (default 1 000).
    pub max_pending_approvals: Option<i64>,
}

impl Limits {
    /// `(name, value)` of every field that is set.
    pub fn fields(&self) -> Vec<(&'static str, i64)> {
        let mut out = Vec::new();
        macro_rules! f {
            ($($field:ident = $name:literal),*) => {
                $(if let Some(v) = self.$field { out.push(($name, v)); })*
            };
        }
        f!(
            lease_ttl_ms = "leaseTtlMs",
            max_in_flight = "maxInFlight",
            daily_budget_cents = "dailyBudgetCents",
            max_requests_per_minute = "maxRequestsPerMinute",
            max_tokens_per_minute = "maxTokensPerMinute",
            rate_window_ms = "rateWindowMs",
            max_context_tokens = "maxContextTokens",
            max_retrieved_chunks = "maxRetrievedChunks",
            max_tool_output_tokens = "maxToolOutputTokens",
            max_tool_calls_per_lease = "maxToolCallsPerLease",
            max_compute_units = "maxComputeUnits",
            receipt_threshold_cost_cents = "receiptThresholdCostCents",
            max_retrieved_bytes = "maxRetrievedBytes",
            max_retrieved_tokens = "maxRetrievedTokens",
            summarization_target_tokens = "summarizationTargetTokens",
            retry_threshold_per_lease = "retryThresholdPerLease",
            tool_loop_threshold = "toolLoopThreshold",
            policy_deny_circuit_breaker_threshold = "policyDenyCircuitBreakerThreshold",
            spend_spike_cents = "spendSpikeCents",
            safety_cooldown_ms = "safetyCooldownMs",
            clamped_max_output_tokens = "clampedMaxOutputTokens",
            default_tool_timeout_ms = "defaultToolTimeoutMs",
            max_tool_output_bytes = "maxToolOutputBytes",
            safety_window_ms = "safetyWindowMs",
            clamp_duration_ms = "clampDurationMs",
            idempotency_retention_ms = "idempotencyRetentionMs",
            max_approval_ttl_seconds = "maxApprovalTtlSeconds",
            max_pending_approvals = "maxPendingApprovals"
        );
        out
    }
}

/// A scoped quota: one value for every id, or a value per id (ids not listed: unlimited).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ScopedLimit {
    /// The same limit for every org, workspace or actor.
    All(i64),
    /// A limit per id.
    PerId(BTreeMap<String, i64>),
}

impl ScopedLimit {
    /// The limit for `id`, if any.
    pub fn for_id(&self, id: &str) -> Option<u64> {
        match self {
            ScopedLimit::All(v) => Some((*v).max(0) as u64),
            ScopedLimit::PerId(m) => m.get(id).map(|v| (*v).max(0) as u64),
        }
    }

    /// Every value (for the negative check).
    pub fn values(&self) -> Vec<i64> {
        match self {
            ScopedLimit::All(v) => vec![*v],
            ScopedLimit::PerId(m) => m.values().copied().collect(),
        }
    }
}

/// A service account (`tokenHash` = SHA-256 hex of the token; a plaintext `token` is refused).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ServiceAccount {
    /// Account name (the actor when the request names none).
    pub name: String,
    /// Org the token is valid for.
    pub org_id: String,
    /// Workspace the token is valid for.
    pub workspace_id: String,
    /// SHA-256 hex of the token.
    pub token_hash: String,
    /// Refused when present (SEMANTICS 13.3 step 7).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,
    /// Role given to requests on this account.
    pub role: Role,
    /// Allowed capabilities (empty: any).
    pub allowed_capabilities: Vec<String>,
    /// Allowed models (empty: any).
    pub allowed_models: Vec<String>,
    /// Allowed tools (empty: any).
    pub allowed_tools: Vec<String>,
}

/// The ids one peer uid may name in an acquire (`uidBindings`, SEMANTICS 13.16). An id is
/// bound when its list holds it exactly or holds `*`; an absent or empty list binds nothing.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct UidBinding {
    /// Orgs (after a blank `orgId` became `default-org`).
    pub org_ids: Vec<String>,
    /// Workspaces.
    pub workspace_ids: Vec<String>,
    /// Actors.
    pub actor_ids: Vec<String>,
}

impl UidBinding {
    /// Whether `list` binds `id`.
    pub fn binds(list: &[String], id: &str) -> bool {
        list.iter().any(|x| x == "*" || x == id)
    }

    /// Whether the binding covers an acquire naming `org`, `workspace` and `actor`.
    pub fn covers(&self, org: &str, workspace: &str, actor: &str) -> bool {
        UidBinding::binds(&self.org_ids, org)
            && UidBinding::binds(&self.workspace_ids, workspace)
            && UidBinding::binds(&self.actor_ids, actor)
    }
}

/// A tool rate limit (`RATELIMIT tool N/unit`), checked at `ExecuteToolCall`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ToolRateLimit {
    /// Tool id.
    pub tool_id: String,
    /// Calls allowed per window.
    pub calls: u64,
    /// Window.
    pub window_ms: u64,
}

/// The policy document.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
#[allow(missing_docs)]
pub struct PolicyDoc {
    pub policy_version: Option<String>,
    /// Currency of the cents on the wire (default `USD`).
    pub currency: Option<String>,
    #[serde(flatten)]
    pub limits: Limits,
    pub allowed_models: Vec<String>,
    pub allowed_capabilities: BTreeMap<String, Vec<String>>,
    pub allowed_capabilities_by_role: BTreeMap<String, BTreeMap<String, Vec<String>>>,
    pub risk_requires_approval: Vec<String>,
    pub denied_tool_categories: Vec<ToolCategory>,
    pub approval_required_tool_categories: Vec<ToolCategory>,
    pub approval_reviewers_by_tool_category: BTreeMap<ToolCategory, i64>,
    pub allowed_tools_by_actor_workspace: BTreeMap<String, Vec<String>>,
    pub allowed_tools_by_workspace_role: BTreeMap<String, Vec<String>>,
    pub allowed_models_by_workspace: BTreeMap<String, Vec<String>>,
    pub intent_model_tiers: BTreeMap<String, Vec<String>>,
    pub intent_max_cost_cents: BTreeMap<String, i64>,
    pub allowed_file_roots: Vec<String>,
    pub allowed_network_hosts: Vec<String>,
    pub service_accounts: Vec<ServiceAccount>,
    pub actor_roles: BTreeMap<String, Role>,
    pub tool_registry: Vec<ToolIntent>,
    pub lease_ceiling: Option<Value>,
    pub lease_ceiling_by_role: BTreeMap<String, Value>,
    pub org_daily_budget_cents: Option<ScopedLimit>,
    pub workspace_daily_budget_cents: Option<ScopedLimit>,
    pub actor_daily_budget_cents: Option<ScopedLimit>,
    pub max_in_flight_per_actor: Option<ScopedLimit>,
    pub role_max_in_flight_overrides: BTreeMap<String, i64>,
    pub org_max_requests_per_minute: Option<ScopedLimit>,
    pub workspace_max_requests_per_minute: Option<ScopedLimit>,
    pub actor_max_requests_per_minute: Option<ScopedLimit>,
    pub tool_rate_limits: Vec<ToolRateLimit>,
    pub denied_tools: Vec<String>,
    pub cedar_policies: Option<String>,
    /// Cedar principal name for `cedarPolicies` (the Agentfile's `AGENT`); default: the actor.
    pub agent_name: Option<String>,
    pub audit_level: Option<String>,
    /// Percentages of each daily budget (`dailyBudgetCents` and every org, workspace and actor
    /// budget) at which the governor raises a budget alert: an audit record
    /// `budget_threshold_crossed`, a daemon log line and a metric, once per threshold per
    /// budget per UTC day, when a grant or a release brings the budget's use (reservations
    /// plus settled spend) to the threshold or past it. Integers 1-100, strictly ascending,
    /// e.g. `[50, 80, 100]`; absent or `[]`: no alerts.
    #[serde(deserialize_with = "thresholds::deserialize")]
    pub budget_alert_thresholds_percent: Option<Vec<u64>>,
    /// Peer uid (decimal) -> the ids it may name (SEMANTICS 13.16). Present: a daemon peer's
    /// acquire naming an unbound org, workspace or actor is denied `identity_not_bound`.
    pub uid_bindings: Option<BTreeMap<String, UidBinding>>,
    /// Trust settings are construction-only: present -> the policy is refused.
    pub allowed_public_keys_base64: Option<Value>,
    /// Trust setting (refused in a policy).
    pub require_signed_bundles: Option<Value>,
    /// Trust setting (refused in a policy).
    pub admin_uids: Option<Value>,
}

/// `budgetAlertThresholdsPercent`: read from any JSON value so that every bad value (a
/// fraction, a string, a number out of range, an unsorted or repeated list, a huge list) is
/// refused with one stable code, [`INVALID_BUDGET_ALERT_THRESHOLDS`].
mod thresholds {
    use serde::{Deserialize, Deserializer};
    use serde_json::Value;

    use super::{INVALID_BUDGET_ALERT_THRESHOLDS, MAX_BUDGET_ALERT_THRESHOLDS};

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Option<Vec<u64>>, D::Error> {
        let v = Value::deserialize(d)?;
        parse(&v).map_err(|m| {
            serde::de::Error::custom(format!(
                "{INVALID_BUDGET_ALERT_THRESHOLDS}: budgetAlertThresholdsPercent {m}"
            ))
        })
    }

    fn parse(v: &Value) -> Result<Option<Vec<u64>>, String> {
        let items = match v {
            Value::Null => return Ok(None),
            Value::Array(items) => items,
            _ => return Err("must be an array of integers 1-100".into()),
        };
        if items.len() > MAX_BUDGET_ALERT_THRESHOLDS {
            return Err(format!(
                "has {} items; at most {MAX_BUDGET_ALERT_THRESHOLDS} (integers 1-100, ascending)",
                items.len()
            ));
        }
        let mut out: Vec<u64> = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            let n = item
                .as_u64()
                .filter(|n| (1..=100).contains(n))
                .ok_or_else(|| format!("[{i}] is not an integer 1-100"))?;
            if out.last().is_some_and(|last| *last >= n) {
                return Err(format!(
                    "[{i}] ({n}) is not above the one before it: the list must be strictly \
                     ascending"
                ));
            }
            out.push(n);
        }
        Ok(Some(out))
    }
}

/// The code that starts the message of a policy refused for its
/// `budgetAlertThresholdsPercent`.
pub const INVALID_BUDGET_ALERT_THRESHOLDS: &str = "invalid_budget_alert_thresholds";

/// The most entries `budgetAlertThresholdsPercent` may hold (one per percent).
pub const MAX_BUDGET_ALERT_THRESHOLDS: usize = 100;

/// Construction options (SEMANTICS 13.2): limits plus the trust settings.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct GovernorOptions {
    /// Limits (the policy wins where it sets one).
    #[serde(flatten)]
    pub limits: Limits,
    /// SPKI DER keys (base64) that may sign bundles (ECDSA P-256 or Ed25519).
    pub allowed_public_keys_base64: Vec<String>,
    /// Refuse unsigned bundles.
    pub require_signed_bundles: bool,
}

impl GovernorOptions {
    /// Parses options JSON: an object of known option names (an unknown one, such as a
    /// misspelt limit, is `INVALID_REQUEST` rather than silently ignored); a negative limit
    /// is refused.
    pub fn from_json(text: &str) -> crate::Result<GovernorOptions> {
        let bad =
            |e: serde_json::Error| crate::Error::invalid(format!("invalid governor options: {e}"));
        let given: serde_json::Map<String, Value> = serde_json::from_str(text).map_err(bad)?;
        let known = serde_json::to_value(GovernorOptions::default()).map_err(bad)?;
        let unknown: Vec<&str> = given
            .keys()
            .filter(|k| known.get(k.as_str()).is_none())
            .map(String::as_str)
            .collect();
        if !unknown.is_empty() {
            return Err(crate::Error::invalid(format!(
                "unknown governor option(s): {}",
                unknown.join(", ")
            )));
        }
        let o: GovernorOptions = serde_json::from_value(Value::Object(given)).map_err(bad)?;
        if let Some((name, v)) = o.limits.fields().into_iter().find(|(_, v)| *v < 0) {
            return Err(crate::Error::invalid(format!(
                "option {name} is negative ({v})"
            )));
        }
        Ok(o)
    }
}
