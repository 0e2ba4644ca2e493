//! The governor's state: plain data, serializable, restored whole after a restart.
//! Rows are leases, approvals, idempotency records, rate-window events and, in a store that
//! keeps them so, the scoped day counters and the policy contents (one row each); everything
//! else is the `meta` row.

use std::collections::{BTreeMap, VecDeque};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::governor::wire::{
    AcquireRequest, AcquireResponse, ApprovalDecisionStatus, ApprovalDecisionTrace,
    ApprovalRequest, ContextSummaryTrace, Intervention, LeaseConstraintsWire, ReleaseResponse,
    ToolCategory,
};

/// Id counters (SEMANTICS 13.15 Ids: stored, continue after a restart).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct IdCounters {
    /// Leases drawn.
    pub lease: u64,
    /// Approvals drawn.
    pub approval: u64,
    /// Approval tokens drawn.
    pub token: u64,
    /// Sub-leases drawn.
    pub sub: u64,
}

/// Global pools.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pools {
    /// UTC day number the budget counts for.
    pub budget_day: i64,
    /// Reservations plus settled actuals of that day (cents).
    pub budget_used: u64,
    /// Live leases.
    pub in_flight: u64,
    /// Compute units reserved.
    pub compute_used: u64,
    /// Budget alert thresholds (percent) already raised for the daily budget that day.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub alerted: Vec<u8>,
}

/// A scoped daily budget counter.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DayCounter {
    /// UTC day.
    pub day: i64,
    /// Cents used that day.
    pub used: u64,
    /// Budget alert thresholds (percent) already raised for this budget that day.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub alerted: Vec<u8>,
}

impl DayCounter {
    /// A counter of `day` with nothing used.
    pub fn new(day: i64) -> DayCounter {
        DayCounter {
            day,
            ..DayCounter::default()
        }
    }
}

/// One admitted request in the rate window.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RateEvent {
    /// When (unix ms).
    pub at: i64,
    /// Token cost (estimate, replaced by actuals at release).
    pub tokens: u64,
    /// Org.
    pub org: String,
    /// Workspace.
    pub ws: String,
    /// Actor.
    pub actor: String,
    /// Lease.
    pub lease: String,
}

/// A tool sub-lease.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SubLease {
    /// Tool id.
    pub tool_id: String,
    /// Category.
    pub category: ToolCategory,
    /// Calls allowed.
    pub allowed: u32,
    /// Calls used.
    pub used: u32,
    /// Timeout ceiling.
    pub timeout_ms: u64,
    /// Output ceiling.
    pub max_output_bytes: u64,
    /// Expiry (the parent's).
    pub expires_at: i64,
}

/// Lifecycle of a lease record.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum LeaseStatus {
    /// Live.
    #[default]
    Live,
    /// Expired and settled at its reservation; a late release may still correct it.
    Expired,
    /// Released (kept for an idempotent replay of the release).
    Released,
}

/// A lease.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LeaseRec {
    /// Id.
    pub id: String,
    /// Status.
    pub status: LeaseStatus,
    /// The request as granted (defaults filled in, no tokens).
    pub request: AcquireRequest,
    /// Effective role.
    pub role: crate::governor::wire::Role,
    /// UTC day of the acquire (its spend belongs to it).
    pub day: i64,
    /// Cents reserved (settled at expiry).
    pub reserved: u64,
    /// Compute units reserved.
    pub compute: u64,
    /// Acquired at (unix ms).
    pub acquired_at: i64,
    /// Expires at (unix ms).
    pub expires_at: i64,
    /// When the record may be forgotten (Expired/Released).
    pub retain_until: i64,
    /// Constraints granted.
    pub constraints: LeaseConstraintsWire,
    /// Tool calls the lease may hand to sub-leases.
    pub max_tool_calls: u32,
    /// Calls already handed out.
    pub calls_allocated: u32,
    /// Sub-leases by id.
    pub subs: BTreeMap<String, SubLease>,
    /// Reviews of the approval used.
    pub approval_chain: Vec<ApprovalDecisionTrace>,
    /// Summarization traces.
    pub context_summaries: Vec<ContextSummaryTrace>,
    /// The narrowed ARCP lease.
    pub effective_lease: Option<Value>,
    /// The release's idempotency key and response (once released).
    pub release: Option<(String, ReleaseResponse)>,
    /// Cents the release settled (its actuals).
    #[serde(default)]
    pub settled: Option<u64>,
    /// The peer uid that acquired it through a daemon (SEMANTICS 13.14); `None` in process.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner_uid: Option<u32>,
}

/// An approval.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApprovalRec {
    /// Id.
    pub id: String,
    /// The request.
    pub request: ApprovalRequest,
    /// Status.
    pub status: ApprovalDecisionStatus,
    /// Created (unix ms).
    pub created_at: i64,
    /// Expires (unix ms).
    pub expires_at: i64,
    /// Reviewers needed.
    pub required: u32,
    /// Reviews (one per reviewer, latest wins).
    pub reviews: Vec<ApprovalDecisionTrace>,
    /// SHA-256 hex of the token once granted (the token itself is never stored).
    pub token_hash: String,
    /// Used (single-use tokens).
    pub used: bool,
    /// When the record may be forgotten.
    pub retain_until: i64,
    /// The peer uid that requested it through a daemon (SEMANTICS 13.16 "Reviewers").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requester_uid: Option<u32>,
    /// The peer uid of each review made through a daemon, by normalized reviewer id.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub reviewer_uids: BTreeMap<String, u32>,
}

/// A stored acquire grant under a scoped idempotency key.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct IdemRec {
    /// Fingerprint of the normalized request.
    pub fingerprint: String,
    /// The response as first sent.
    pub response: AcquireResponse,
    /// Stored at (unix ms).
    pub stored_at: i64,
}

/// The `RecordDecision` records and bytes of one peer scope in its current fixed window.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DecisionWindow {
    /// Window start (unix ms).
    pub start: i64,
    /// Records appended in it.
    pub records: u64,
    /// Bytes of record text appended in it.
    pub bytes: u64,
}

/// A windowed counter with its insertion sequence (for deterministic eviction).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Window {
    /// Insertion sequence.
    pub seq: u64,
    /// Event times.
    pub events: VecDeque<i64>,
}

/// An "until" entry with its sequence.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Until {
    /// Insertion sequence.
    pub seq: u64,
    /// Until (unix ms).
    pub until: i64,
    /// A value (the clamp).
    pub value: u64,
}

/// Safety automation (SEMANTICS 13.7).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Safety {
    /// Sequence for eviction order.
    pub seq: u64,
    /// Retry-storm windows by scoped idempotency key.
    pub retry: BTreeMap<String, Window>,
    /// Policy-deny windows by (peer scope, workspace).
    pub denies: BTreeMap<String, Window>,
    /// Tool-loop windows by (peer scope, lease, lower-cased tool).
    pub loops: BTreeMap<String, Window>,
    /// Actor cooldowns by (peer scope, actor).
    pub cooldowns: BTreeMap<String, Until>,
    /// Workspace breakers by (peer scope, workspace).
    pub breakers: BTreeMap<String, Until>,
    /// Actor output clamps by (peer scope, actor).
    pub clamps: BTreeMap<String, Until>,
    /// Interventions, oldest first.
    pub interventions: VecDeque<Intervention>,
}

/// Counters behind `GetMetrics`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct MetricsState {
    /// Grants by reason.
    pub grants: BTreeMap<String, u64>,
    /// Denials by reason.
    pub denies: BTreeMap<String, u64>,
    /// Audit records not written.
    pub failed_audit_writes: u64,
    /// The last request's context ratio.
    pub last_context_utilization: f64,
}

/// An activated policy.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PolicyRec {
    /// Version.
    pub version: String,
    /// Content as submitted (with the bundle's version). A store that keeps policy contents as
    /// rows (`Store::keeps_meta_parts_as_rows`) stores it in its own row, `null` in the meta row.
    pub content: Value,
    /// Hash.
    pub hash: String,
}

/// A staged bundle.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct StagedRec {
    /// The bundle as sent (in a store that keeps policy contents as rows, its
    /// `policyContentJson` is in the row `staged:<hash>`, empty in the meta row).
    pub bundle: crate::governor::wire::PolicyBundle,
    /// Hash of its content.
    pub hash: String,
}

/// Policy lifecycle.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PolicyState {
    /// Activations, oldest first (the construction policy first).
    pub history: Vec<PolicyRec>,
    /// Index of the active one.
    pub active: usize,
    /// The staging slot.
    pub staged: Option<StagedRec>,
}

/// The audit chain head.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuditHead {
    /// `entryHash` of the last record (genesis: 64 `0`).
    pub head: String,
    /// Records written.
    pub count: u64,
}

/// Everything but the rows.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Meta {
    /// Ids.
    pub ids: IdCounters,
    /// Pools.
    pub pools: Pools,
    /// Scoped budgets (`org:<id>`, `ws:<id>`, `actor:<id>`); rows of their own in a store that
    /// keeps them so (`Store::keeps_meta_parts_as_rows`), left out of its meta row.
    pub scoped: BTreeMap<String, DayCounter>,
    /// Per-actor in-flight.
    pub actor_in_flight: BTreeMap<String, u64>,
    /// Tool-call rate windows by lower-cased tool id.
    pub tool_rate: BTreeMap<String, VecDeque<i64>>,
    /// `RecordDecision` windows by peer scope (`[uid]`, `[null]` in process).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub decision_windows: BTreeMap<String, DecisionWindow>,
    /// Safety.
    pub safety: Safety,
    /// Metrics.
    pub metrics: MetricsState,
    /// Policy lifecycle.
    pub policy: PolicyState,
    /// Audit head.
    pub audit: AuditHead,
    /// The format of the composite keys in this state (0: ids joined by U+001F, before
    /// SEMANTICS 13.16; rewritten once when a store is opened).
    #[serde(default)]
    pub key_format: u32,
}

/// The whole state.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct State {
    /// Meta.
    pub meta: Meta,
    /// Leases (live, expired-unreleased, released tombstones).
    pub leases: BTreeMap<String, LeaseRec>,
    /// Approvals.
    pub approvals: BTreeMap<String, ApprovalRec>,
    /// Idempotency records by scoped key.
    pub idem: BTreeMap<String, IdemRec>,
    /// The rate window, oldest first (one row per event).
    pub rate: VecDeque<RateEvent>,
}

impl RateEvent {
    /// The row key: time then lease (sorts in window order).
    pub fn key(&self) -> String {
        format!("{:020}|{}", self.at.max(0), self.lease)
    }
}
