//! Approvals (SEMANTICS 13.6, 13.16): a quorum of distinct reviewers, taken from the active
//! policy (never from the request), the requester may not review, a denied or expired approval
//! never becomes granted, reviewing an unknown id answers `approval not found`, tokens are
//! single-use by default and consumed only by a grant. Reviewer ids compare normalized; behind
//! a daemon one uid counts once. TTL, text sizes and the pending queue are bounded. Only the
//! token's SHA-256 is kept.

use std::ops::Bound;

use super::reviewer_id::normalized;
use super::state::ApprovalRec;
use super::{Engine, sha256_hex};
use crate::Error;
use crate::governor::wire::{
    ApprovalDecisionStatus, ApprovalDecisionTrace, ApprovalQueueItem, ApprovalQueueRequest,
    ApprovalQueueResponse, ApprovalRequest, ApprovalRequestResponse, DenyApprovalRequest,
    DenyApprovalResponse, GrantApprovalRequest, GrantApprovalResponse, ReviewApprovalRequest,
    ReviewApprovalResponse, ToolCategory, format_time_ms,
};

const AUDIT_DOWN: &str = "audit_unavailable";
/// Longest `reason` or `comment` in bytes (SEMANTICS 13.16 "Sizes on the wire").
const MAX_TEXT_BYTES: usize = 4096;
/// Most pending approvals of one requester.
const MAX_PENDING_PER_REQUESTER: u32 = 100;
/// Shortest approval TTL in seconds.
const MIN_TTL_SECONDS: u64 = 30;
/// Most items of one `ListPendingApprovals` page.
const MAX_PAGE: usize = 100;

/// Refuses a text field longer than [`MAX_TEXT_BYTES`], naming it.
fn check_text(field: &str, value: &str) -> crate::Result<()> {
    if value.len() > MAX_TEXT_BYTES {
        return Err(Error::invalid(format!(
            "invalid payload: {field} is {} bytes, more than {MAX_TEXT_BYTES}",
            value.len()
        )));
    }
    Ok(())
}

impl Engine {
    /// The reviewers a category needs under the active policy (at least 1).
    pub(crate) fn quorum(&self, c: ToolCategory) -> u32 {
        self.policy
            .doc()
            .approval_reviewers_by_tool_category
            .get(&c)
            .map_or(1, |n| (*n).clamp(1, i64::from(u32::MAX)) as u32)
    }

    /// The largest quorum of any category in the active policy (at least 1).
    fn largest_quorum(&self) -> u32 {
        self.policy
            .doc()
            .approval_reviewers_by_tool_category
            .values()
            .map(|n| (*n).clamp(1, i64::from(u32::MAX)) as u32)
            .max()
            .unwrap_or(1)
    }

    /// The category the active policy's `toolRegistry` gives a tool.
    pub(crate) fn registry_category(&self, tool_id: &str) -> Option<ToolCategory> {
        self.policy
            .compiled()
            .registry
            .get(&tool_id.to_ascii_lowercase())
            .copied()
    }

    /// The reviewers an approval needs under the active policy: its tool's registry category,
    /// else its category; one naming neither (or an unregistered tool) needs the largest
    /// quorum of the policy.
    pub(crate) fn scope_quorum(&self, req: &ApprovalRequest) -> u32 {
        if !req.tool_id.is_empty() {
            return self
                .registry_category(&req.tool_id)
                .map_or_else(|| self.largest_quorum(), |c| self.quorum(c));
        }
        req.tool_category
            .map_or_else(|| self.largest_quorum(), |c| self.quorum(c))
    }

    /// `RequestApproval`. A `ttlSeconds` outside 30 to `maxApprovalTtlSeconds` or a `reason`
    /// over 4 096 bytes is refused (`INVALID_REQUEST`); a `toolCategory` other than the
    /// registry's for `toolId` answers `tool_category_mismatch` and a full queue
    /// `approval_queue_full`, storing nothing.
    pub fn request_approval(
        &mut self,
        req: ApprovalRequest,
    ) -> crate::Result<ApprovalRequestResponse> {
        check_text("reason", &req.reason)?;
        let max_ttl = self.settings.max_approval_ttl_seconds;
        let ttl_ms = (MIN_TTL_SECONDS..=max_ttl)
            .contains(&req.ttl_seconds)
            .then(|| i64::try_from(req.ttl_seconds).ok()?.checked_mul(1000))
            .flatten();
        let expires = ttl_ms.and_then(|ms| self.now.checked_add(ms));
        let retain = expires.and_then(|e| {
            e.checked_add(i64::try_from(self.settings.idempotency_retention_ms).ok()?)
        });
        let (Some(expires), Some(retain)) = (expires, retain) else {
            return Err(Error::invalid(format!(
                "invalid payload: ttlSeconds must be {MIN_TTL_SECONDS} to {max_ttl}, not {}",
                req.ttl_seconds
            )));
        };
        let refuse = |message: &str| ApprovalRequestResponse {
            message: message.into(),
            idempotency_key: req.idempotency_key.clone(),
            ..Default::default()
        };
        if !req.tool_id.is_empty()
            && let (Some(asked), Some(registered)) =
                (req.tool_category, self.registry_category(&req.tool_id))
            && asked != registered
        {
            return Ok(refuse("tool_category_mismatch"));
        }
        let cap = self.settings.max_pending_approvals;
        if self.approval_index.pending.len() as u64 >= cap
            || self.approval_index.pending_of(&req.requested_by) >= MAX_PENDING_PER_REQUESTER
        {
            return Ok(refuse("approval_queue_full"));
        }
        if !self.audit_ok {
            self.st.meta.metrics.failed_audit_writes =
                self.st.meta.metrics.failed_audit_writes.saturating_add(1);
            self.touch_meta();
            return Ok(refuse(AUDIT_DOWN));
        }
        let required = self.scope_quorum(&req);
        let id = self.next_approval_id();
        let mut rec = self.record("approval_requested");
        rec.s("approvalId", &id)
            .s("actorId", &req.actor_id)
            .s("workspaceId", &req.workspace_id)
            .s("requestedBy", &req.requested_by)
            .s("toolId", &req.tool_id)
            .s("toolCategory", req.tool_category.map_or("", |c| c.as_str()))
            .s("reason", &req.reason)
            .b("singleUse", req.single_use)
            .s("expiresAtUtc", &format_time_ms(expires))
            .s("decision", "pending")
            .s("recommendation", &format!("required_reviewers={required}"));
        self.audit(rec);
        let response = ApprovalRequestResponse {
            approval_id: id.clone(),
            status: ApprovalDecisionStatus::Pending,
            expires_at_utc: format_time_ms(expires),
            required_reviewers: required,
            current_approvals: 0,
            message: "approval request created".into(),
            idempotency_key: req.idempotency_key.clone(),
            single_use: req.single_use,
        };
        self.put_approval(ApprovalRec {
            id,
            request: req,
            status: ApprovalDecisionStatus::Pending,
            created_at: self.now,
            expires_at: expires,
            required,
            reviews: Vec::new(),
            token_hash: String::new(),
            used: false,
            retain_until: retain,
            requester_uid: self.caller,
            reviewer_uids: Default::default(),
        });
        Ok(response)
    }

    /// `ReviewApproval`. A `comment` over 4 096 bytes is refused (`INVALID_REQUEST`).
    pub fn review_approval(
        &mut self,
        req: ReviewApprovalRequest,
    ) -> crate::Result<ReviewApprovalResponse> {
        check_text("comment", &req.comment)?;
        let mut out = ReviewApprovalResponse {
            approval_id: req.approval_id.clone(),
            idempotency_key: req.idempotency_key.clone(),
            ..Default::default()
        };
        let Some(a) = self.st.approvals.get(&req.approval_id) else {
            out.message = "approval not found".into();
            return Ok(out);
        };
        let required = self.scope_quorum(&a.request);
        out.required_reviewers = required;
        out.status = Some(a.status);
        out.current_approvals = approvals_of(a);
        out.expires_at_utc = format_time_ms(a.expires_at);
        out.single_use = a.request.single_use;
        let reviewer = normalized(&req.reviewer_id);
        let own_uid = self.caller.is_some() && self.caller == a.requester_uid;
        let message = match a.status {
            ApprovalDecisionStatus::Denied => Some("approval denied"),
            ApprovalDecisionStatus::Expired => Some("approval expired"),
            _ if own_uid || normalized(&a.request.requested_by) == reviewer => {
                Some("self_review_not_allowed")
            }
            ApprovalDecisionStatus::Granted if req.approve => Some("approval granted"),
            _ if reviewer.is_empty() => Some("reviewer required"),
            _ => None,
        };
        if let Some(m) = message {
            out.message = m.into();
            return Ok(out);
        }
        if !self.audit_ok {
            self.st.meta.metrics.failed_audit_writes =
                self.st.meta.metrics.failed_audit_writes.saturating_add(1);
            self.touch_meta();
            out.message = AUDIT_DOWN.into();
            return Ok(out);
        }
        let mut a = a.clone();
        let scope = if !a.request.tool_id.is_empty() {
            format!("tool:{}", a.request.tool_id)
        } else if let Some(c) = a.request.tool_category {
            format!("category:{}", c.as_str())
        } else {
            "any".to_string()
        };
        a.reviews.retain(|r| normalized(&r.reviewer_id) != reviewer);
        a.reviews.push(ApprovalDecisionTrace {
            reviewer_id: req.reviewer_id.clone(),
            decision: if req.approve {
                ApprovalDecisionStatus::Granted
            } else {
                ApprovalDecisionStatus::Denied
            },
            reviewed_at_utc: self.time(),
            comment: req.comment.clone(),
            scope,
        });
        out.accepted = true;
        match self.caller {
            Some(uid) => a.reviewer_uids.insert(reviewer, uid),
            None => a.reviewer_uids.remove(&reviewer),
        };
        if !req.approve {
            a.status = ApprovalDecisionStatus::Denied;
            a.token_hash.clear();
            out.message = "approval denied".into();
        } else if approvals_of(&a) >= required {
            a.status = ApprovalDecisionStatus::Granted;
            out.message = "approval granted".into();
        } else {
            out.message = "approval pending additional reviewers".into();
        }
        let mut token = String::new();
        if a.status == ApprovalDecisionStatus::Granted && a.token_hash.is_empty() {
            token = self.next_token();
            a.token_hash = sha256_hex(&token);
        }
        a.required = required;
        out.status = Some(a.status);
        out.current_approvals = approvals_of(&a);
        let mut rec = self.record("approval_reviewed");
        rec.s("approvalId", &req.approval_id)
            .s("actorId", &req.reviewer_id)
            .s("reviewerId", &req.reviewer_id)
            .b("approve", req.approve)
            .s("comment", &req.comment)
            .s("decision", a.status.as_str())
            .i("approvalsReceived", i64::from(out.current_approvals))
            .i("requiredReviewers", i64::from(required))
            .s("recommendation", &out.message);
        if let Some(uid) = self.caller {
            rec.i("reviewerUid", i64::from(uid));
        }
        if !token.is_empty() {
            rec.s("approvalTokenSha256Prefix", &sha256_hex(&token)[..12]);
        }
        self.audit(rec);
        self.put_approval(a);
        out.approval_token = token;
        Ok(out)
    }

    /// `GrantApproval` (one approving review).
    pub fn grant_approval(
        &mut self,
        req: GrantApprovalRequest,
    ) -> crate::Result<GrantApprovalResponse> {
        let r = self.review_approval(ReviewApprovalRequest {
            approval_id: req.approval_id.clone(),
            reviewer_id: req.granted_by.clone(),
            approve: true,
            comment: req.comment.clone(),
            idempotency_key: req.idempotency_key.clone(),
        })?;
        Ok(GrantApprovalResponse {
            granted: r.status == Some(ApprovalDecisionStatus::Granted),
            approval_token: r.approval_token,
            expires_at_utc: r.expires_at_utc,
            message: r.message,
            idempotency_key: req.idempotency_key,
            required_reviewers: r.required_reviewers,
            current_approvals: r.current_approvals,
            single_use: r.single_use,
        })
    }

    /// `DenyApproval` (one denying review).
    pub fn deny_approval(
        &mut self,
        req: DenyApprovalRequest,
    ) -> crate::Result<DenyApprovalResponse> {
        let r = self.review_approval(ReviewApprovalRequest {
            approval_id: req.approval_id.clone(),
            reviewer_id: req.denied_by.clone(),
            approve: false,
            comment: req.comment.clone(),
            idempotency_key: req.idempotency_key.clone(),
        })?;
        Ok(DenyApprovalResponse {
            denied: r.status == Some(ApprovalDecisionStatus::Denied),
            message: r.message,
            idempotency_key: req.idempotency_key,
            expires_at_utc: r.expires_at_utc,
            required_reviewers: r.required_reviewers,
            single_use: r.single_use,
        })
    }

    /// `ListPendingApprovals`: pending, unexpired approvals oldest first, at most `limit`
    /// (default and maximum 100) after `afterApprovalId`, with `nextAfterApprovalId` when more
    /// remain. An `afterApprovalId` the governor does not hold is refused (`INVALID_REQUEST`).
    pub fn list_pending(&self, req: &ApprovalQueueRequest) -> crate::Result<ApprovalQueueResponse> {
        let limit = match req.limit as usize {
            0 => MAX_PAGE,
            n => n.min(MAX_PAGE),
        };
        let start = if req.after_approval_id.is_empty() {
            Bound::Unbounded
        } else {
            let a = self
                .st
                .approvals
                .get(&req.after_approval_id)
                .ok_or_else(|| {
                    Error::invalid("invalid payload: afterApprovalId names no approval")
                })?;
            Bound::Excluded((a.created_at, a.id.clone()))
        };
        let mut matching = self
            .approval_index
            .pending
            .range((start, Bound::Unbounded))
            .filter_map(|(_, id)| self.st.approvals.get(id))
            .filter(|a| a.status == ApprovalDecisionStatus::Pending && self.now < a.expires_at)
            .filter(|a| {
                req.workspace_id.is_empty()
                    || a.request
                        .workspace_id
                        .eq_ignore_ascii_case(&req.workspace_id)
            })
            .filter(|a| {
                req.tool_id.is_empty() || a.request.tool_id.eq_ignore_ascii_case(&req.tool_id)
            })
            .filter(|a| {
                req.tool_category.is_none() || a.request.tool_category == req.tool_category
            });
        let page: Vec<&ApprovalRec> = matching.by_ref().take(limit).collect();
        let more = matching.next().is_some();
        Ok(ApprovalQueueResponse {
            next_after_approval_id: match page.last() {
                Some(last) if more => last.id.clone(),
                _ => String::new(),
            },
            items: page
                .into_iter()
                .map(|a| ApprovalQueueItem {
                    approval_id: a.id.clone(),
                    actor_id: a.request.actor_id.clone(),
                    workspace_id: a.request.workspace_id.clone(),
                    reason: a.request.reason.clone(),
                    requested_by: a.request.requested_by.clone(),
                    tool_id: a.request.tool_id.clone(),
                    tool_category: a.request.tool_category,
                    status: a.status,
                    expires_at_utc: format_time_ms(a.expires_at),
                    required_reviewers: self.scope_quorum(&a.request),
                    current_approvals: approvals_of(a),
                    reviews: a.reviews.clone(),
                    single_use: a.request.single_use,
                })
                .collect(),
        })
    }
}

/// Distinct approving reviewers: reviews made through a daemon count once per uid, the others
/// once per normalized reviewer id.
pub(crate) fn approvals_of(a: &ApprovalRec) -> u32 {
    let mut seen = std::collections::BTreeSet::new();
    for r in a
        .reviews
        .iter()
        .filter(|r| r.decision == ApprovalDecisionStatus::Granted)
    {
        let id = normalized(&r.reviewer_id);
        let key = match a.reviewer_uids.get(&id) {
            Some(uid) => (true, uid.to_string()),
            None => (false, id),
        };
        seen.insert(key);
    }
    seen.len() as u32
}
