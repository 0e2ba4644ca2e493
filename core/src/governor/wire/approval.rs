//! Approvals: request, grant, deny, review, list.

use serde::{Deserialize, Deserializer, Serialize};

use super::enums::{ApprovalDecisionStatus, ToolCategory};

fn default_ttl() -> u64 {
    300
}
fn default_true() -> bool {
    true
}
fn default_one() -> u32 {
    1
}

/// `ApprovalRequest`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ApprovalRequest {
    /// Actor the approval is for.
    pub actor_id: String,
    /// Workspace the approval is for.
    pub workspace_id: String,
    /// Why.
    pub reason: String,
    /// Who asked (may not review it).
    pub requested_by: String,
    /// Tool scope (empty: any tool).
    pub tool_id: String,
    /// Category scope.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_category: Option<ToolCategory>,
    /// TTL in seconds (default 300; 30 to the policy's `maxApprovalTtlSeconds`).
    #[serde(default = "default_ttl")]
    pub ttl_seconds: u64,
    /// Single use (default true).
    #[serde(default = "default_true")]
    pub single_use: bool,
    /// Echoed.
    pub idempotency_key: String,
}

impl Default for ApprovalRequest {
    fn default() -> Self {
        ApprovalRequest {
            actor_id: String::new(),
            workspace_id: String::new(),
            reason: String::new(),
            requested_by: String::new(),
            tool_id: String::new(),
            tool_category: None,
            ttl_seconds: 300,
            single_use: true,
            idempotency_key: String::new(),
        }
    }
}

/// `ApprovalRequestResponse`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ApprovalRequestResponse {
    /// New approval id.
    pub approval_id: String,
    /// Status (`pending`).
    pub status: ApprovalDecisionStatus,
    /// Expiry.
    #[serde(default = "super::time::none", serialize_with = "super::time::write")]
    pub expires_at_utc: String,
    /// Reviewers needed under the active policy (1 when absent).
    #[serde(default = "default_one")]
    pub required_reviewers: u32,
    /// Distinct approving reviewers so far (0 for a new request).
    pub current_approvals: u32,
    /// Message.
    pub message: String,
    /// Echoed.
    pub idempotency_key: String,
    /// Whether the token is good for one granted acquire only.
    pub single_use: bool,
}

impl Default for ApprovalRequestResponse {
    fn default() -> Self {
        ApprovalRequestResponse {
            approval_id: String::new(),
            status: ApprovalDecisionStatus::Pending,
            expires_at_utc: String::new(),
            required_reviewers: 1,
            current_approvals: 0,
            message: String::new(),
            idempotency_key: String::new(),
            single_use: false,
        }
    }
}

/// `GrantApprovalRequest` (a one-reviewer approve).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct GrantApprovalRequest {
    /// Approval id.
    pub approval_id: String,
    /// Reviewer.
    pub granted_by: String,
    /// Comment.
    pub comment: String,
    /// Echoed.
    pub idempotency_key: String,
}

/// `GrantApprovalResponse`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct GrantApprovalResponse {
    /// True once the approval is granted.
    pub granted: bool,
    /// The token (only when granted).
    pub approval_token: String,
    /// Expiry of the granted approval (`0001-01-01T00:00:00.000Z` when not granted).
    #[serde(default = "super::time::none", serialize_with = "super::time::write")]
    pub expires_at_utc: String,
    /// Message.
    pub message: String,
    /// Echoed.
    pub idempotency_key: String,
    /// Reviewers needed under the active policy (1 when absent).
    #[serde(default = "default_one")]
    pub required_reviewers: u32,
    /// Distinct approving reviewers so far.
    pub current_approvals: u32,
    /// Whether the token is good for one granted acquire only.
    pub single_use: bool,
}

impl Default for GrantApprovalResponse {
    fn default() -> Self {
        GrantApprovalResponse {
            granted: false,
            approval_token: String::new(),
            expires_at_utc: String::new(),
            message: String::new(),
            idempotency_key: String::new(),
            required_reviewers: 1,
            current_approvals: 0,
            single_use: false,
        }
    }
}

/// `DenyApprovalRequest`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct DenyApprovalRequest {
    /// Approval id.
    pub approval_id: String,
    /// Reviewer.
    pub denied_by: String,
    /// Comment.
    pub comment: String,
    /// Echoed.
    pub idempotency_key: String,
}

/// `DenyApprovalResponse`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct DenyApprovalResponse {
    /// True when the approval is now denied.
    pub denied: bool,
    /// Message.
    pub message: String,
    /// Echoed.
    pub idempotency_key: String,
    /// Expiry of the approval (absent for an unknown id).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub expires_at_utc: String,
    /// Reviewers needed under the active policy (0 for an unknown id).
    pub required_reviewers: u32,
    /// Whether the token is good for one granted acquire only.
    pub single_use: bool,
}

/// `ReviewApprovalRequest`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct ReviewApprovalRequest {
    /// Approval id.
    pub approval_id: String,
    /// Reviewer (may not be the requester).
    pub reviewer_id: String,
    /// Approve or deny.
    pub approve: bool,
    /// Comment.
    pub comment: String,
    /// Echoed.
    pub idempotency_key: String,
}

/// `ReviewApprovalResponse`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ReviewApprovalResponse {
    /// True when this review was recorded (and counts toward the quorum or denies); false
    /// for a refused one (`self_review_not_allowed`, an unknown, denied or expired approval).
    pub accepted: bool,
    /// Approval id.
    pub approval_id: String,
    /// Status (absent for an unknown id).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<ApprovalDecisionStatus>,
    /// Token when this review granted the approval (else empty).
    pub approval_token: String,
    /// Distinct approving reviewers so far.
    pub current_approvals: u32,
    /// Reviewers needed under the active policy (1 when absent).
    #[serde(default = "default_one")]
    pub required_reviewers: u32,
    /// Message.
    pub message: String,
    /// Echoed.
    pub idempotency_key: String,
    /// Expiry of the approval (absent for an unknown id).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub expires_at_utc: String,
    /// Whether the token is good for one granted acquire only.
    pub single_use: bool,
}

impl Default for ReviewApprovalResponse {
    fn default() -> Self {
        ReviewApprovalResponse {
            accepted: false,
            approval_id: String::new(),
            status: None,
            approval_token: String::new(),
            current_approvals: 0,
            required_reviewers: 1,
            message: String::new(),
            idempotency_key: String::new(),
            expires_at_utc: String::new(),
            single_use: false,
        }
    }
}

/// Reads a review's decision: an `ApprovalDecisionStatus`, or `approved` (an approving review
/// in stores written before the LeaseGate name) as `granted`.
fn decision<'de, D: Deserializer<'de>>(d: D) -> Result<ApprovalDecisionStatus, D::Error> {
    let text = String::deserialize(d)?;
    if text == "approved" {
        return Ok(ApprovalDecisionStatus::Granted);
    }
    ApprovalDecisionStatus::parse(&text).ok_or_else(|| {
        serde::de::Error::unknown_variant(&text, &["pending", "granted", "denied", "expired"])
    })
}

/// One review of an approval.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct ApprovalDecisionTrace {
    /// Reviewer.
    pub reviewer_id: String,
    /// `granted` (an approving review) or `denied`.
    #[serde(deserialize_with = "decision")]
    pub decision: ApprovalDecisionStatus,
    /// When.
    #[serde(default = "super::time::none", serialize_with = "super::time::write")]
    pub reviewed_at_utc: String,
    /// Comment.
    pub comment: String,
    /// Scope (`tool:<id>`, `category:<c>` or `any`).
    pub scope: String,
}

/// `ApprovalQueueRequest` (filters; empty = any).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct ApprovalQueueRequest {
    /// Workspace filter.
    pub workspace_id: String,
    /// Tool filter.
    pub tool_id: String,
    /// Category filter.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_category: Option<ToolCategory>,
    /// Ignored (as LeaseGate).
    pub risk_flag: String,
    /// Items per page (0 or absent: 100; at most 100).
    pub limit: u32,
    /// Start after this approval (the previous page's `nextAfterApprovalId`).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub after_approval_id: String,
}

/// One pending approval.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct ApprovalQueueItem {
    /// Approval id.
    pub approval_id: String,
    /// Actor.
    pub actor_id: String,
    /// Workspace.
    pub workspace_id: String,
    /// Reason.
    pub reason: String,
    /// Requester.
    pub requested_by: String,
    /// Tool scope.
    pub tool_id: String,
    /// Category scope.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_category: Option<ToolCategory>,
    /// Status.
    pub status: ApprovalDecisionStatus,
    /// Expiry.
    #[serde(default = "super::time::none", serialize_with = "super::time::write")]
    pub expires_at_utc: String,
    /// Reviewers needed (default 1).
    #[serde(default = "default_one")]
    pub required_reviewers: u32,
    /// Approvals so far.
    pub current_approvals: u32,
    /// Reviews so far.
    pub reviews: Vec<ApprovalDecisionTrace>,
    /// Whether the token will be good for one granted acquire only.
    pub single_use: bool,
}

/// `ApprovalQueueResponse`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct ApprovalQueueResponse {
    /// Pending approvals, oldest first.
    pub items: Vec<ApprovalQueueItem>,
    /// When more remain: the `afterApprovalId` of the next page.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub next_after_approval_id: String,
}
