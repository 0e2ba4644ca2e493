//! Approvals (SEMANTICS 13.6): quorum of distinct reviewers per tool category, the
//! requester may not review, a denied or expired approval never becomes granted, reviewing
//! an unknown id answers `approval not found`, tokens are single-use by default and
//! consumed only by a grant. Only the token's SHA-256 is kept.

use super::state::ApprovalRec;
use super::{Engine, sha256_hex};
use crate::governor::wire::{
    ApprovalDecisionStatus, ApprovalDecisionTrace, ApprovalQueueItem, ApprovalQueueRequest,
    ApprovalQueueResponse, ApprovalRequest, ApprovalRequestResponse, DenyApprovalRequest,
    DenyApprovalResponse, GrantApprovalRequest, GrantApprovalResponse, ReviewApprovalRequest,
    ReviewApprovalResponse, format_time_ms,
};

const AUDIT_DOWN: &str = "audit_unavailable";

impl Engine {
    /// `RequestApproval`.
    pub fn request_approval(&mut self, req: ApprovalRequest) -> ApprovalRequestResponse {
        let required = req
            .tool_category
            .and_then(|c| {
                self.policy
                    .doc()
                    .approval_reviewers_by_tool_category
                    .get(&c)
                    .copied()
            })
            .map_or(1, |n| n.max(1) as u32);
        if !self.audit_ok {
            self.st.meta.metrics.failed_audit_writes =
                self.st.meta.metrics.failed_audit_writes.saturating_add(1);
            self.touch_meta();
            return ApprovalRequestResponse {
                message: AUDIT_DOWN.into(),
                idempotency_key: req.idempotency_key,
                ..Default::default()
            };
        }
        let id = self.next_approval_id();
        // At least 30 s, at most ten years (so the expiry never overflows).
        let ttl_ms = req.ttl_seconds.clamp(30, 315_360_000) as i64 * 1000;
        let expires = self.now.saturating_add(ttl_ms);
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
            message: "approval request created".into(),
            idempotency_key: req.idempotency_key.clone(),
        };
        let retain = expires.saturating_add(self.settings.idempotency_retention_ms as i64);
        self.st.approvals.insert(
            id.clone(),
            ApprovalRec {
                id: id.clone(),
                request: req,
                status: ApprovalDecisionStatus::Pending,
                created_at: self.now,
                expires_at: expires,
                required,
                reviews: Vec::new(),
                token_hash: String::new(),
                used: false,
                retain_until: retain,
            },
        );
        self.touch_approval(&id);
        response
    }

    /// `ReviewApproval`.
    pub fn review_approval(&mut self, req: ReviewApprovalRequest) -> ReviewApprovalResponse {
        let mut out = ReviewApprovalResponse {
            approval_id: req.approval_id.clone(),
            idempotency_key: req.idempotency_key.clone(),
            ..Default::default()
        };
        let Some(a) = self.st.approvals.get(&req.approval_id) else {
            out.message = "approval not found".into();
            return out;
        };
        out.required_reviewers = a.required;
        out.status = Some(a.status);
        out.current_approvals = approvals_of(a);
        let message = match a.status {
            ApprovalDecisionStatus::Denied => Some("approval denied"),
            ApprovalDecisionStatus::Expired => Some("approval expired"),
            _ if a
                .request
                .requested_by
                .eq_ignore_ascii_case(&req.reviewer_id) =>
            {
                Some("self_review_not_allowed")
            }
            ApprovalDecisionStatus::Granted if req.approve => Some("approval granted"),
            _ if req.reviewer_id.trim().is_empty() => Some("reviewer required"),
            _ => None,
        };
        if let Some(m) = message {
            out.message = m.into();
            return out;
        }
        if !self.audit_ok {
            self.st.meta.metrics.failed_audit_writes =
                self.st.meta.metrics.failed_audit_writes.saturating_add(1);
            self.touch_meta();
            out.message = AUDIT_DOWN.into();
            return out;
        }
        let now = self.time();
        let a = self
            .st
            .approvals
            .get_mut(&req.approval_id)
            .expect("checked");
        let scope = if !a.request.tool_id.is_empty() {
            format!("tool:{}", a.request.tool_id)
        } else if let Some(c) = a.request.tool_category {
            format!("category:{}", c.as_str())
        } else {
            "any".to_string()
        };
        a.reviews
            .retain(|r| !r.reviewer_id.eq_ignore_ascii_case(&req.reviewer_id));
        a.reviews.push(ApprovalDecisionTrace {
            reviewer_id: req.reviewer_id.clone(),
            decision: if req.approve { "approved" } else { "denied" }.into(),
            reviewed_at_utc: now,
            comment: req.comment.clone(),
            scope,
        });
        let mut token = String::new();
        if !req.approve {
            a.status = ApprovalDecisionStatus::Denied;
            a.token_hash.clear();
            out.message = "approval denied".into();
        } else if approvals_of(a) >= a.required {
            a.status = ApprovalDecisionStatus::Granted;
            out.message = "approval granted".into();
        } else {
            out.message = "approval pending additional reviewers".into();
        }
        if a.status == ApprovalDecisionStatus::Granted && a.token_hash.is_empty() {
            token = self.next_token();
            let a = self
                .st
                .approvals
                .get_mut(&req.approval_id)
                .expect("checked");
            a.token_hash = sha256_hex(&token);
        }
        let a = &self.st.approvals[&req.approval_id];
        out.status = Some(a.status);
        out.current_approvals = approvals_of(a);
        let mut rec = self.record("approval_reviewed");
        rec.s("approvalId", &req.approval_id)
            .s("actorId", &req.reviewer_id)
            .s("reviewerId", &req.reviewer_id)
            .b("approve", req.approve)
            .s("comment", &req.comment)
            .s("decision", a.status.as_str())
            .i("approvalsReceived", i64::from(out.current_approvals))
            .i("requiredReviewers", i64::from(a.required))
            .s("recommendation", &out.message);
        if !token.is_empty() {
            rec.s("approvalTokenSha256Prefix", &sha256_hex(&token)[..12]);
        }
        self.audit(rec);
        self.touch_approval(&req.approval_id);
        out.approval_token = token;
        out
    }

    /// `GrantApproval` (one approving review).
    pub fn grant_approval(&mut self, req: GrantApprovalRequest) -> GrantApprovalResponse {
        let r = self.review_approval(ReviewApprovalRequest {
            approval_id: req.approval_id.clone(),
            reviewer_id: req.granted_by.clone(),
            approve: true,
            comment: req.comment.clone(),
            idempotency_key: req.idempotency_key.clone(),
        });
        let expires = self
            .st
            .approvals
            .get(&req.approval_id)
            .filter(|_| r.status == Some(ApprovalDecisionStatus::Granted))
            .map(|a| format_time_ms(a.expires_at))
            .unwrap_or_default();
        GrantApprovalResponse {
            granted: r.status == Some(ApprovalDecisionStatus::Granted),
            approval_token: r.approval_token,
            expires_at_utc: expires,
            message: r.message,
            idempotency_key: req.idempotency_key,
        }
    }

    /// `DenyApproval` (one denying review).
    pub fn deny_approval(&mut self, req: DenyApprovalRequest) -> DenyApprovalResponse {
        let r = self.review_approval(ReviewApprovalRequest {
            approval_id: req.approval_id.clone(),
            reviewer_id: req.denied_by.clone(),
            approve: false,
            comment: req.comment.clone(),
            idempotency_key: req.idempotency_key.clone(),
        });
        DenyApprovalResponse {
            denied: r.status == Some(ApprovalDecisionStatus::Denied),
            message: r.message,
            idempotency_key: req.idempotency_key,
        }
    }

    /// `ListPendingApprovals` (pending and unexpired, oldest first).
    pub fn list_pending(&self, req: &ApprovalQueueRequest) -> ApprovalQueueResponse {
        let mut items: Vec<&ApprovalRec> = self
            .st
            .approvals
            .values()
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
            .filter(|a| req.tool_category.is_none() || a.request.tool_category == req.tool_category)
            .collect();
        items.sort_by_key(|a| (a.created_at, a.id.clone()));
        ApprovalQueueResponse {
            items: items
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
                    required_reviewers: a.required,
                    current_approvals: approvals_of(a),
                    reviewers: a.reviews.clone(),
                })
                .collect(),
        }
    }
}

fn approvals_of(a: &ApprovalRec) -> u32 {
    a.reviews
        .iter()
        .filter(|r| r.decision == "approved")
        .count() as u32
}
