//! `RecordDecision` (leasekit): a guard in front of tools (the MCP guard) appends one decision
//! it made (allowed, denied, by which rule) to the governor's own audit chain, so the chain
//! that records the grants also records every call the guard refused before any `Acquire`.
//!
//! The record is the caller's: the governor adds the peer uid it read from the socket
//! (`peerUid`, never taken from the payload), checks the declared ids against the policy's
//! `uidBindings`, and bounds what one uid may append (sizes per record, records and bytes per
//! minute). Nothing but the audit chain and the per-uid rate window changes.

use serde::{Deserialize, Serialize};

/// Bytes of all the text of one decision record together (ids, reason, targets).
pub const MAX_DECISION_BYTES: usize = 256 * 1024;

/// What the guard decided, or how an allowed call ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum GuardDecision {
    /// Allowed and forwarded.
    Allow,
    /// Denied; never forwarded.
    Deny,
    /// Would have been denied; forwarded because the guard only monitors.
    Monitor,
    /// An allowed call answered without error.
    Success,
    /// An allowed call answered with a tool or protocol error.
    ToolError,
    /// An allowed call cancelled by the client.
    Cancelled,
    /// An allowed call still waiting when the server exited.
    ServerExited,
}

impl GuardDecision {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            GuardDecision::Allow => "allow",
            GuardDecision::Deny => "deny",
            GuardDecision::Monitor => "monitor",
            GuardDecision::Success => "success",
            GuardDecision::ToolError => "toolError",
            GuardDecision::Cancelled => "cancelled",
            GuardDecision::ServerExited => "serverExited",
        }
    }

    /// Parses a wire name (exact).
    pub fn parse(name: &str) -> Option<GuardDecision> {
        [
            GuardDecision::Allow,
            GuardDecision::Deny,
            GuardDecision::Monitor,
            GuardDecision::Success,
            GuardDecision::ToolError,
            GuardDecision::Cancelled,
            GuardDecision::ServerExited,
        ]
        .into_iter()
        .find(|d| d.as_str() == name)
    }
}

/// `RecordDecision` request. `decision` is required; every other field may be blank.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct RecordDecisionRequest {
    /// Org (blank: `default-org`).
    pub org_id: String,
    /// Actor the guard acts for.
    pub actor_id: String,
    /// Workspace.
    pub workspace_id: String,
    /// The kind of guard, e.g. `mcp`.
    pub source: String,
    /// The decision (required).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decision: Option<GuardDecision>,
    /// The rule that decided, e.g. `argument`, `governor`, `mapped`.
    pub rule: String,
    /// The protocol method, e.g. `tools/call`.
    pub method: String,
    /// The server the call was for.
    pub server: String,
    /// The tool.
    pub tool: String,
    /// The client's request id.
    pub request_id: String,
    /// The ARCP error code of a denial (blank or one of the codes).
    pub code: String,
    /// Why.
    pub reason: String,
    /// The targets decided (`capability canonical-target`).
    pub targets: Vec<String>,
    /// The governor lease the call was charged to (blank: none); it must be one the caller
    /// acquired.
    pub lease_id: String,
}

/// `RecordDecision` answer. A refusal is `recorded: false` with `deniedReason`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct RecordDecisionResponse {
    /// Written to the chain?
    pub recorded: bool,
    /// The record's `entryHash` (when recorded).
    pub audit_entry_hash: String,
    /// Why not (`decision_rate_limited`, `identity_not_bound`, `lease_not_found`,
    /// `audit_unavailable`).
    pub denied_reason: String,
    /// When to retry (rate limit, audit unavailable).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retry_after_ms: Option<u64>,
}

impl RecordDecisionRequest {
    /// Bytes of the record's text (every string field and target).
    pub fn text_bytes(&self) -> usize {
        [
            &self.org_id,
            &self.actor_id,
            &self.workspace_id,
            &self.source,
            &self.rule,
            &self.method,
            &self.server,
            &self.tool,
            &self.request_id,
            &self.code,
            &self.reason,
            &self.lease_id,
        ]
        .iter()
        .map(|s| s.len())
        .sum::<usize>()
            + self.targets.iter().map(String::len).sum::<usize>()
    }
}
