//! Metrics, status, exports, policy bundles and audit commands.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// `MetricsSnapshot`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct MetricsSnapshot {
    /// Live leases.
    pub active_leases: u64,
    /// Today's reservations plus settled actuals.
    pub spend_today_cents: u64,
    /// max(requests/maxRequests, tokens/maxTokens) in the window.
    pub rate_pool_utilization: f64,
    /// The last request's context ratio.
    pub context_pool_utilization: f64,
    /// Compute units in use / capacity.
    pub compute_pool_utilization: f64,
    /// Audit records that could not be written.
    pub failed_audit_writes: u64,
    /// Grants by reason (`granted` or the auto-apply recommendation).
    pub grants_by_reason: BTreeMap<String, u64>,
    /// Denials by reason.
    pub denies_by_reason: BTreeMap<String, u64>,
}

/// `GovernorStatusResponse`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct StatusResponse {
    /// Now.
    #[serde(default = "super::time::none", serialize_with = "super::time::write")]
    pub timestamp_utc: String,
    /// When this governor object was opened.
    #[serde(default = "super::time::none", serialize_with = "super::time::write")]
    pub started_at_utc: String,
    /// Always true while answering.
    pub healthy: bool,
    /// Durable store?
    pub durable_state_enabled: bool,
    /// Store path (empty for memory).
    pub state_database_path: String,
    /// Live leases.
    pub active_leases: u64,
    /// Pending, unexpired approvals.
    pub pending_approvals: u64,
    /// Today's spend.
    pub spend_today_cents: u64,
    /// Active policy version.
    pub policy_version: String,
    /// Active policy hash.
    pub policy_hash: String,
    /// The policy's `auditLevel` (every level writes the full record set).
    pub audit_level: String,
    /// Audit records in the chain.
    pub audit_records: u64,
    /// On a store shared by a fleet (PostgreSQL, SEMANTICS 13.12): the governors connected
    /// to it now. Absent for a store of one governor (memory, SQLite).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub connected_governors: Option<Vec<ConnectedGovernor>>,
}

/// A governor connected to a shared store (from PostgreSQL's `pg_stat_activity`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct ConnectedGovernor {
    /// `leasekit-governor <host> <pid>`.
    pub application_name: String,
    /// Client address (`local` for a Unix socket).
    pub client: String,
    /// When its connection started (RFC 3339 UTC).
    pub since: String,
}

/// `ExportDiagnosticsRequest`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct ExportDiagnosticsRequest {
    /// Ignored by the embedded governor (the document is returned inline).
    pub output_path: String,
    /// Echoed.
    pub idempotency_key: String,
}

/// `ExportDiagnosticsResponse`: the document inline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct ExportDiagnosticsResponse {
    /// Exported?
    pub exported: bool,
    /// Always empty: nothing is written to disk by the governor.
    pub output_path: String,
    /// Message.
    pub message: String,
    /// `{status, metrics, pools}`.
    pub diagnostics: Value,
    /// Echoed.
    pub idempotency_key: String,
}

/// `ExportRunawayReportRequest`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct ExportRunawayReportRequest {
    /// Ignored by the embedded governor (the report is returned inline).
    pub output_path: String,
    /// Echoed.
    pub idempotency_key: String,
}

/// One safety intervention.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct Intervention {
    /// When.
    pub timestamp_utc: String,
    /// `retry_storm`, `repeated_policy_denials`, `tool_call_loop` or `spend_spike`.
    pub trigger: String,
    /// `actor:<id>` or `workspace:<id>`.
    pub scope: String,
    /// `cooldown`, `circuit_breaker` or `clamp_max_output_tokens`.
    pub action: String,
}

/// The runaway report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct RunawayReport {
    /// When.
    pub generated_at_utc: String,
    /// Interventions, oldest first.
    pub interventions: Vec<Intervention>,
}

/// `ExportRunawayReportResponse`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct ExportRunawayReportResponse {
    /// Exported?
    pub exported: bool,
    /// Always empty.
    pub output_path: String,
    /// Message.
    pub message: String,
    /// The report.
    pub report: RunawayReport,
    /// Echoed.
    pub idempotency_key: String,
}

/// `PolicyBundle` (for `StagePolicyBundle`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct PolicyBundle {
    /// Version (replaces the policy's `policyVersion`).
    pub version: String,
    /// Creation time, exactly as signed.
    pub created_at_utc: String,
    /// Author.
    pub author: String,
    /// The policy JSON text.
    pub policy_content_json: String,
    /// Signature over `version|createdAtUtc|author|policyContentJson`.
    pub signature_base64: String,
}

/// `StagePolicyBundleResponse`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct StagePolicyBundleResponse {
    /// Staged?
    pub accepted: bool,
    /// Message.
    pub message: String,
    /// Hash of the staged policy.
    pub staged_policy_hash: String,
    /// Version staged.
    pub staged_policy_version: String,
}

/// `ActivatePolicyRequest`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct ActivatePolicyRequest {
    /// Version expected in the staging slot (empty: whatever is staged).
    pub version: String,
    /// Echoed.
    pub idempotency_key: String,
}

/// `ActivatePolicyResponse` (also the answer to `RollbackPolicy`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct ActivatePolicyResponse {
    /// Activated?
    pub activated: bool,
    /// Message.
    pub message: String,
    /// Active hash.
    pub active_policy_hash: String,
    /// Active version.
    pub active_policy_version: String,
}

/// `RollbackPolicy {version}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct RollbackPolicyRequest {
    /// An earlier activated version.
    pub version: String,
}

/// `ExportAudit {fromLine?, toLine?}` (1-based, inclusive).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct ExportAuditRequest {
    /// First line (default 1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from_line: Option<u64>,
    /// Last line (default: the last).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub to_line: Option<u64>,
}

/// `ExportAudit` answer: at most 10 000 records per call (SEMANTICS 13.16).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct ExportAuditResponse {
    /// Records in chain order.
    pub records: Vec<Value>,
    /// The line the next call starts at (`fromLine`), when more of the range remain.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_line: Option<u64>,
}

/// `VerifyAudit {records?}`: without records, the store's chain; with records (JSON
/// objects in chain order from the genesis), those.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct VerifyAuditRequest {
    /// Records to verify instead of the store's chain.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub records: Option<Vec<Value>>,
}

/// `VerifyAudit` answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct VerifyAuditResponse {
    /// Every hash and link recomputes.
    pub ok: bool,
    /// Records checked.
    pub records: u64,
    /// First bad line (1-based), when not ok.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_bad_line: Option<u64>,
    /// What is wrong, when not ok.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub message: String,
}
