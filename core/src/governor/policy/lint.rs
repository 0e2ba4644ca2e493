//! Policy lint (SEMANTICS 13.15 Lint): LeaseGate's GitOps rules are warnings; only malformed
//! JSON or types, a plaintext service-account token, a negative capacity and a trust setting
//! refuse a policy.

use serde::Serialize;
use serde_json::Value;

use super::doc::PolicyDoc;
use crate::governor::wire::ToolCategory;

/// Severity of a finding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum LintSeverity {
    /// Refuses the policy.
    Error,
    /// Reported only.
    Warning,
}

/// One lint finding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LintFinding {
    /// Severity.
    pub severity: LintSeverity,
    /// Stable code.
    pub code: &'static str,
    /// Message.
    pub message: String,
}

const KNOWN_FIELDS: &[&str] = &[
    "policyVersion",
    "currency",
    "leaseTtlMs",
    "maxInFlight",
    "dailyBudgetCents",
    "maxRequestsPerMinute",
    "maxTokensPerMinute",
    "rateWindowMs",
    "maxContextTokens",
    "maxRetrievedChunks",
    "maxToolOutputTokens",
    "maxToolCallsPerLease",
    "maxComputeUnits",
    "receiptThresholdCostCents",
    "maxRetrievedBytes",
    "maxRetrievedTokens",
    "summarizationTargetTokens",
    "retryThresholdPerLease",
    "toolLoopThreshold",
    "policyDenyCircuitBreakerThreshold",
    "spendSpikeCents",
    "safetyCooldownMs",
    "clampedMaxOutputTokens",
    "defaultToolTimeoutMs",
    "maxToolOutputBytes",
    "safetyWindowMs",
    "clampDurationMs",
    "idempotencyRetentionMs",
    "maxApprovalTtlSeconds",
    "maxPendingApprovals",
    "allowedModels",
    "allowedCapabilities",
    "allowedCapabilitiesByRole",
    "riskRequiresApproval",
    "deniedToolCategories",
    "approvalRequiredToolCategories",
    "approvalReviewersByToolCategory",
    "allowedToolsByActorWorkspace",
    "allowedToolsByWorkspaceRole",
    "allowedModelsByWorkspace",
    "intentModelTiers",
    "intentMaxCostCents",
    "allowedFileRoots",
    "allowedNetworkHosts",
    "serviceAccounts",
    "actorRoles",
    "toolRegistry",
    "leaseCeiling",
    "leaseCeilingByRole",
    "orgDailyBudgetCents",
    "workspaceDailyBudgetCents",
    "actorDailyBudgetCents",
    "maxInFlightPerActor",
    "roleMaxInFlightOverrides",
    "orgMaxRequestsPerMinute",
    "workspaceMaxRequestsPerMinute",
    "actorMaxRequestsPerMinute",
    "toolRateLimits",
    "deniedTools",
    "cedarPolicies",
    "agentName",
    "auditLevel",
    "uidBindings",
    "budgetAlertThresholdsPercent",
];

/// The reason a policy is refused, if it is.
pub(crate) fn refusal(doc: &PolicyDoc) -> Option<String> {
    if doc.allowed_public_keys_base64.is_some()
        || doc.require_signed_bundles.is_some()
        || doc.admin_uids.is_some()
    {
        return Some(
            "a policy may not set trust settings (allowedPublicKeysBase64, requireSignedBundles, adminUids): they are construction-only".into(),
        );
    }
    if let Some(bad) = doc
        .uid_bindings
        .iter()
        .flat_map(|m| m.keys())
        .find(|k| k.parse::<u32>().ok().is_none_or(|u| u.to_string() != **k))
    {
        return Some(format!(
            "uidBindings key {bad:?} is not a uid (a decimal number 0-4294967295 without sign or leading zeros)"
        ));
    }
    if let Some(a) = doc.service_accounts.iter().find(|a| a.token.is_some()) {
        return Some(format!(
            "service account {:?} holds a plaintext token; store tokenHash (SHA-256 hex) instead",
            a.name
        ));
    }
    let mut numbers: Vec<(String, i64)> = doc
        .limits
        .fields()
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
    for (k, v) in [
        ("orgDailyBudgetCents", &doc.org_daily_budget_cents),
        (
            "workspaceDailyBudgetCents",
            &doc.workspace_daily_budget_cents,
        ),
        ("actorDailyBudgetCents", &doc.actor_daily_budget_cents),
        ("maxInFlightPerActor", &doc.max_in_flight_per_actor),
        ("orgMaxRequestsPerMinute", &doc.org_max_requests_per_minute),
        (
            "workspaceMaxRequestsPerMinute",
            &doc.workspace_max_requests_per_minute,
        ),
        (
            "actorMaxRequestsPerMinute",
            &doc.actor_max_requests_per_minute,
        ),
    ] {
        for v in v.iter().flat_map(|l| l.values()) {
            numbers.push((k.to_string(), v));
        }
    }
    for (k, v) in &doc.role_max_in_flight_overrides {
        numbers.push((format!("roleMaxInFlightOverrides.{k}"), *v));
    }
    for (k, v) in &doc.intent_max_cost_cents {
        numbers.push((format!("intentMaxCostCents.{k}"), *v));
    }
    for (k, v) in &doc.approval_reviewers_by_tool_category {
        numbers.push((
            format!("approvalReviewersByToolCategory.{}", k.as_str()),
            *v,
        ));
    }
    if let Some((k, v)) = numbers.iter().find(|(_, v)| *v < 0) {
        return Some(format!("{k} is negative ({v})"));
    }
    None
}

/// Lint findings for a document (refusals as errors, GitOps rules as warnings).
pub fn lint_policy(doc: &PolicyDoc, source: Option<&Value>) -> Vec<LintFinding> {
    let mut out = Vec::new();
    let mut warn = |code: &'static str, message: String| {
        out.push(LintFinding {
            severity: LintSeverity::Warning,
            code,
            message,
        })
    };
    let l = &doc.limits;
    if l.daily_budget_cents == Some(0) {
        warn(
            "budget-zero",
            "dailyBudgetCents is 0: every paid request is denied".into(),
        );
    }
    if l.max_in_flight == Some(0) {
        warn(
            "max-in-flight-zero",
            "maxInFlight is 0: every request is denied".into(),
        );
    }
    if l.max_requests_per_minute == Some(0) || l.max_tokens_per_minute == Some(0) {
        warn(
            "rate-zero",
            "a rate limit is 0: every request is denied".into(),
        );
    }
    if doc.allowed_models.is_empty() {
        warn(
            "no-allowed-model",
            "allowedModels is empty: any model is allowed".into(),
        );
    }
    for c in [ToolCategory::NetworkWrite, ToolCategory::Exec] {
        if !doc.denied_tool_categories.contains(&c) {
            warn(
                "category-not-denied",
                format!("deniedToolCategories does not deny {}", c.as_str()),
            );
        }
    }
    for (c, n) in &doc.approval_reviewers_by_tool_category {
        if *n < 1 {
            warn(
                "reviewers-below-one",
                format!(
                    "approvalReviewersByToolCategory.{} is {n} (at least 1 applies)",
                    c.as_str()
                ),
            );
        }
    }
    if let Some(c) = doc
        .cedar_policies
        .as_deref()
        .filter(|t| !t.trim().is_empty())
        && let Some(e) = super::cedar::CedarSet::parse(c).error()
    {
        warn(
            "cedar-parse",
            format!("cedarPolicies do not parse (every tool is denied): {e}"),
        );
    }
    if doc.tool_registry.is_empty() {
        warn(
            "empty-tool-registry",
            "toolRegistry is empty: every requested tool is tool_not_registered".into(),
        );
    }
    if let Some(b) = &doc.uid_bindings {
        if b.is_empty() {
            warn(
                "uid-bindings-empty",
                "uidBindings binds no uid: every daemon peer's acquire is denied identity_not_bound"
                    .into(),
            );
        }
        for (uid, binding) in b {
            for (kind, list) in [
                ("orgIds", &binding.org_ids),
                ("workspaceIds", &binding.workspace_ids),
                ("actorIds", &binding.actor_ids),
            ] {
                if list.is_empty() {
                    warn(
                        "uid-binding-empty",
                        format!(
                            "uidBindings.{uid}.{kind} is empty: every acquire of uid {uid} is denied identity_not_bound (\"*\" binds every id)"
                        ),
                    );
                }
            }
        }
        let given = source
            .and_then(|s| s.get("uidBindings"))
            .and_then(Value::as_object);
        for (uid, v) in given.into_iter().flatten() {
            for k in v.as_object().into_iter().flat_map(|o| o.keys()) {
                if !["orgIds", "workspaceIds", "actorIds"].contains(&k.as_str()) {
                    warn(
                        "unknown-field",
                        format!("unknown field uidBindings.{uid}.{k} is ignored"),
                    );
                }
            }
        }
    }
    if let Some(Value::Object(m)) = source {
        for k in m.keys() {
            if !KNOWN_FIELDS.contains(&k.as_str()) {
                warn(
                    "unknown-field",
                    format!("unknown policy field {k:?} is ignored"),
                );
            }
        }
    }
    if let Some(msg) = refusal(doc) {
        out.insert(
            0,
            LintFinding {
                severity: LintSeverity::Error,
                code: "refused",
                message: msg,
            },
        );
    }
    out
}
