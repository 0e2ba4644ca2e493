//! The governor per call: an `Acquire` before a `tools/call` is forwarded, a `Release` with
//! its outcome after the answer (SEMANTICS 13), so rate limits, budgets, approvals and
//! tool-call caps apply to MCP calls.

use crate::governor::Governor;
use crate::governor::client::GovernorClient;
use crate::governor::wire::{
    AcquireRequest, AcquireResponse, ActionType, IntentClass, LeaseOutcome, RecordDecisionRequest,
    RecordDecisionResponse, ReleaseRequest, ReleaseResponse, ToolCallUsage, ToolCategory,
    ToolIntent,
};

/// A governor: the embedded one or a daemon's, behind its socket.
pub trait GovernorBackend: Send + Sync {
    /// `Acquire`.
    fn acquire(&self, req: AcquireRequest) -> crate::Result<AcquireResponse>;
    /// `Release`.
    fn release(&self, req: ReleaseRequest) -> crate::Result<ReleaseResponse>;
    /// `RecordDecision`.
    fn record_decision(&self, req: RecordDecisionRequest) -> crate::Result<RecordDecisionResponse>;
}

impl GovernorBackend for Governor {
    fn acquire(&self, req: AcquireRequest) -> crate::Result<AcquireResponse> {
        Governor::acquire(self, req)
    }
    fn release(&self, req: ReleaseRequest) -> crate::Result<ReleaseResponse> {
        Governor::release(self, req)
    }
    fn record_decision(&self, req: RecordDecisionRequest) -> crate::Result<RecordDecisionResponse> {
        Governor::record_decision(self, req)
    }
}

impl GovernorBackend for GovernorClient {
    fn acquire(&self, req: AcquireRequest) -> crate::Result<AcquireResponse> {
        GovernorClient::acquire(self, req)
    }
    fn release(&self, req: ReleaseRequest) -> crate::Result<ReleaseResponse> {
        GovernorClient::release(self, req)
    }
    fn record_decision(&self, req: RecordDecisionRequest) -> crate::Result<RecordDecisionResponse> {
        GovernorClient::record_decision(self, req)
    }
}

/// Who the calls are charged to.
#[derive(Debug, Clone, Default)]
pub struct CallIdentity {
    /// Org (blank: the governor's default).
    pub org_id: String,
    /// Actor.
    pub actor_id: String,
    /// Workspace.
    pub workspace_id: String,
}

/// The governor gate of one guard.
pub struct CallGovernor {
    backend: Box<dyn GovernorBackend>,
    who: CallIdentity,
}

/// A granted call: the governor lease to release.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Permit {
    /// The governor's lease id.
    pub lease_id: String,
    /// The tool id charged (`mcp:<server>.<tool>`).
    pub tool_id: String,
    /// Its category.
    pub category: ToolCategory,
}

/// A governor refusal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GovernorDenial {
    /// The governor's reason (`deniedReason`) or the failure.
    pub reason: String,
    /// When to retry.
    pub retry_after_ms: Option<u64>,
}

/// The category of a call from its mapped capabilities: writes first, then reads.
pub fn category_of(capabilities: &[&str]) -> ToolCategory {
    if capabilities.contains(&"fs.write") {
        ToolCategory::FileWrite
    } else if capabilities.contains(&"fs.read") {
        ToolCategory::FileRead
    } else if capabilities.contains(&"net.fetch") {
        ToolCategory::NetworkRead
    } else {
        ToolCategory::Other
    }
}

impl CallGovernor {
    /// A gate over `backend` charging `who`.
    pub fn new(backend: Box<dyn GovernorBackend>, who: CallIdentity) -> CallGovernor {
        CallGovernor { backend, who }
    }

    /// Acquires one tool call, with the client's approval token when it gave one. A failure
    /// to reach or use the governor is a denial (fail closed).
    pub fn acquire(
        &self,
        tool_id: &str,
        category: ToolCategory,
        approval_token: &str,
    ) -> Result<Permit, GovernorDenial> {
        let req = AcquireRequest {
            approval_token: approval_token.to_string(),
            org_id: self.who.org_id.clone(),
            actor_id: self.who.actor_id.clone(),
            workspace_id: self.who.workspace_id.clone(),
            action_type: ActionType::ToolCall,
            intent_class: IntentClass::Draft,
            requested_tools: vec![ToolIntent {
                tool_id: tool_id.to_string(),
                category,
            }],
            ..AcquireRequest::default()
        };
        match self.backend.acquire(req) {
            Ok(r) if r.granted => Ok(Permit {
                lease_id: r.lease_id,
                tool_id: tool_id.to_string(),
                category,
            }),
            Ok(r) => Err(GovernorDenial {
                reason: r.denied_reason,
                retry_after_ms: r.retry_after_ms,
            }),
            Err(e) => Err(GovernorDenial {
                reason: format!("governor unavailable: {}: {}", e.code(), e.message()),
                retry_after_ms: None,
            }),
        }
    }

    /// Appends a decision record to the governor's audit chain, charged to this gate's
    /// identity. Answers why it was not recorded, if it was not.
    pub fn record(&self, mut req: RecordDecisionRequest) -> Result<(), String> {
        req.org_id = self.who.org_id.clone();
        req.actor_id = self.who.actor_id.clone();
        req.workspace_id = self.who.workspace_id.clone();
        match self.backend.record_decision(req) {
            Ok(r) if r.recorded => Ok(()),
            Ok(r) => Err(format!(
                "the governor did not record the decision: {}",
                r.denied_reason
            )),
            Err(e) => Err(format!(
                "the governor did not record the decision: {}: {}",
                e.code(),
                e.message()
            )),
        }
    }

    /// Releases a permit with the call's outcome. Answers the failure, if any, for the log.
    pub fn release(&self, p: &Permit, outcome: LeaseOutcome, duration_ms: u64) -> Option<String> {
        let req = ReleaseRequest {
            lease_id: p.lease_id.clone(),
            tool_calls_count: 1,
            tool_calls: vec![ToolCallUsage {
                tool_id: p.tool_id.clone(),
                category: p.category,
                duration_ms,
                outcome,
                ..ToolCallUsage::default()
            }],
            outcome,
            latency_ms: duration_ms,
            ..ReleaseRequest::default()
        };
        self.backend
            .release(req)
            .err()
            .map(|e| format!("release of {}: {}: {}", p.lease_id, e.code(), e.message()))
    }
}
