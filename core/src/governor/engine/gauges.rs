//! A read-only view of the governor's pools for a metrics exporter ([`GovernorGauges`]): what a
//! command run now would see, read without running one (no sweep, no commit, no audit record).

use std::collections::BTreeMap;

use super::{DAY_MS, Engine};
use crate::governor::policy::doc::ScopedLimit;

/// The most scoped-budget entries a view carries ([`GovernorGauges::scoped`]); ids past it
/// (in the policy's order) are left out and counted in [`GovernorGauges::scoped_omitted`].
pub const MAX_SCOPED_GAUGES: usize = 100;

/// The kinds of scoped daily budgets, as the metrics name them.
pub const SCOPE_KINDS: [&str; 3] = ["org", "workspace", "actor"];

/// One scoped daily budget the policy sets for a named id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScopedGauge {
    /// `org`, `workspace` or `actor` (one of [`SCOPE_KINDS`]).
    pub kind: &'static str,
    /// The id as the policy names it (never an id only a client sent).
    pub id: String,
    /// Cents used today (reservations and settled actuals).
    pub used_cents: u64,
    /// The day's limit (cents).
    pub limit_cents: u64,
}

/// The governor's pools and counters at one moment.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GovernorGauges {
    /// Live leases (not expired at the moment of the view).
    pub in_flight: u64,
    /// The policy's `maxInFlight`.
    pub max_in_flight: u64,
    /// Today's budget use: reservations of live leases plus settled actuals (cents).
    pub budget_used_cents: u64,
    /// The part of `budget_used_cents` held by live leases' reservations.
    pub budget_reserved_cents: u64,
    /// The policy's `dailyBudgetCents`.
    pub daily_budget_cents: u64,
    /// Scoped daily budgets set per id by the policy, at most [`MAX_SCOPED_GAUGES`].
    pub scoped: Vec<ScopedGauge>,
    /// Per-id scoped budgets of the policy left out of `scoped` by the cap.
    pub scoped_omitted: u64,
    /// Requests admitted in the rate window.
    pub rate_requests: u64,
    /// The policy's `maxRequestsPerMinute` (0: no limit).
    pub rate_requests_limit: u64,
    /// Tokens admitted in the rate window.
    pub rate_tokens: u64,
    /// The policy's `maxTokensPerMinute` (0: no limit).
    pub rate_tokens_limit: u64,
    /// Approvals waiting for a decision.
    pub pending_approvals: u64,
    /// Audit records written (the chain's length).
    pub audit_records: u64,
    /// Audit records that could not be written.
    pub failed_audit_writes: u64,
    /// Grants by reason (`granted` or the automatic adjustment applied).
    pub grants_by_reason: BTreeMap<String, u64>,
    /// Acquire denials by reason code (the part of the reason before any `:`).
    pub denies_by_code: BTreeMap<String, u64>,
    /// The active policy's `budgetAlertThresholdsPercent` (empty: no alerts).
    pub budget_alert_thresholds: Vec<u8>,
}

impl Engine {
    /// The pools and counters as of `now_ms` (a clock reading): leases past their expiry,
    /// rate events past the window and a budget of an earlier day count as a sweep at
    /// `now_ms` would leave them.
    pub fn gauges_at(&self, now_ms: i64) -> GovernorGauges {
        let now = now_ms.max(self.now);
        let today = now.div_euclid(DAY_MS).max(self.st.meta.pools.budget_day);
        let pools = &self.st.meta.pools;
        let mut in_flight = 0u64;
        let mut reserved = 0u64;
        for (_, id) in self.expiry.range((now.saturating_add(1), String::new())..) {
            in_flight += 1;
            if let Some(l) = self.st.leases.get(id)
                && l.day == today
            {
                reserved = reserved.saturating_add(l.reserved);
            }
        }
        let budget_used = if pools.budget_day == today {
            pools.budget_used
        } else {
            0
        };
        let window_start = now.saturating_sub(self.settings.rate_window_ms as i64);
        let (mut rate_requests, mut rate_tokens) = (0u64, 0u64);
        for e in self
            .st
            .rate
            .iter()
            .rev()
            .take_while(|e| e.at > window_start)
        {
            rate_requests += 1;
            rate_tokens = rate_tokens.saturating_add(e.tokens);
        }
        let doc = self.policy.doc();
        let mut scoped = Vec::new();
        let mut scoped_omitted = 0u64;
        for (kind, prefix, limit) in [
            ("org", "org:", &doc.org_daily_budget_cents),
            ("workspace", "ws:", &doc.workspace_daily_budget_cents),
            ("actor", "actor:", &doc.actor_daily_budget_cents),
        ] {
            let Some(ScopedLimit::PerId(ids)) = limit else {
                continue;
            };
            for (id, cents) in ids {
                if scoped.len() >= MAX_SCOPED_GAUGES {
                    scoped_omitted += 1;
                    continue;
                }
                let used = self
                    .st
                    .meta
                    .scoped
                    .get(&format!("{prefix}{id}"))
                    .filter(|c| c.day >= today)
                    .map_or(0, |c| c.used);
                scoped.push(ScopedGauge {
                    kind,
                    id: id.clone(),
                    used_cents: used,
                    limit_cents: (*cents).max(0) as u64,
                });
            }
        }
        let m = &self.st.meta.metrics;
        GovernorGauges {
            in_flight,
            max_in_flight: self.settings.max_in_flight,
            budget_used_cents: budget_used,
            budget_reserved_cents: reserved.min(budget_used),
            daily_budget_cents: self.settings.daily_budget_cents,
            scoped,
            scoped_omitted,
            rate_requests,
            rate_requests_limit: self.settings.max_requests_per_minute,
            rate_tokens,
            rate_tokens_limit: self.settings.max_tokens_per_minute,
            pending_approvals: self.approval_index.pending.len() as u64,
            audit_records: self.st.meta.audit.count,
            failed_audit_writes: m.failed_audit_writes,
            grants_by_reason: m.grants.clone(),
            denies_by_code: m.denies.clone(),
            budget_alert_thresholds: doc
                .budget_alert_thresholds_percent
                .iter()
                .flatten()
                .map(|p| *p as u8)
                .collect(),
        }
    }

    /// [`Engine::gauges_at`] at the engine's clock (its last command's time when the clock
    /// cannot be read).
    pub fn gauges(&self) -> GovernorGauges {
        let now = self.clock.now().map_or(self.now, |t| t.unix_millis());
        self.gauges_at(now)
    }
}

/// Every reason code an acquire is denied with (the `denies_by_code` keys the engine writes).
pub const ACQUIRE_DENIAL_CODES: [&str; 32] = [
    "actor_cooldown_active",
    "actor_exhausted",
    "actor_throttled",
    "approval_required",
    "audit_unavailable",
    "capability_not_allowed",
    "capability_not_allowed_for_role",
    "compute_capacity_reached",
    "concurrency_limit_reached",
    "daily_budget_exceeded",
    "idempotency_key_conflict",
    "identity_not_bound",
    "intent_cost_exceeded",
    "intent_model_not_allowed",
    "invalid_requested_lease",
    "model_not_allowed",
    "org_exhausted",
    "rate_limit_reached",
    "risk_requires_approval",
    "service_account_capability_denied",
    "service_account_model_denied",
    "service_account_tool_denied",
    "service_account_unauthorized",
    "summarization_budget_unavailable",
    "tool_category_denied",
    "tool_category_mismatch",
    "tool_not_allowed",
    "tool_not_allowed_for_role",
    "tool_not_registered",
    "workspace_circuit_breaker",
    "workspace_exhausted",
    "workspace_model_not_allowed",
];

/// Every reason a grant is counted under (`granted`, or the automatic adjustment applied).
pub const GRANT_REASONS: [&str; 4] = [
    "granted",
    "context_auto_compression_applied",
    "retrieval_auto_compression_applied",
    "budget_auto_downgrade_applied",
];

#[cfg(test)]
mod tests {
    use super::{ACQUIRE_DENIAL_CODES, GRANT_REASONS};

    /// The literal codes the acquire path denies with (`deny("code"`, `p("code"`,
    /// `format!("code:`) and the scoped quotas' `*_exhausted`, read from its source: a new
    /// code must be added to the list, or its denials would be counted as `other`.
    #[test]
    fn every_denial_code_of_the_acquire_path_is_listed() {
        let src = include_str!("acquire.rs");
        let re = regex::Regex::new(
            r#"(?:deny|p)\(\s*(?:&?format!\(\s*)?"([a-z_]+)|"([a-z]+_exhausted)""#,
        )
        .unwrap();
        let found: std::collections::BTreeSet<&str> = re
            .captures_iter(src)
            .filter_map(|c| c.get(1).or(c.get(2)).map(|m| m.as_str()))
            .collect();
        assert!(found.len() >= 30, "the scan found too little: {found:?}");
        for code in &found {
            assert!(ACQUIRE_DENIAL_CODES.contains(code), "{code} is not listed");
        }
        let re = regex::Regex::new(r#"plan\.recommendation = "([a-z_]+)""#).unwrap();
        for c in re.captures_iter(src) {
            assert!(GRANT_REASONS.contains(&&c[1]), "{} is not listed", &c[1]);
        }
    }

    /// The view counts as a sweep at the clock would: an expired lease is not in flight, a
    /// past day's budget is 0, and reading it changes nothing.
    #[test]
    fn the_view_is_as_of_the_clock_without_running_a_command() {
        use std::sync::Arc;

        use crate::governor::policy::{GovernorOptions, Policy};
        use crate::governor::store::MemoryStore;
        use crate::governor::wire::AcquireRequest;
        use crate::governor::{Governor, IdSource};
        use crate::{ManualClock, Timestamp};

        let start = 1_767_225_600_000; // a UTC midnight
        let clock = Arc::new(ManualClock::new(Timestamp::from_unix_millis(start)));
        let policy = Policy::from_json(
            r#"{"maxInFlight": 3, "dailyBudgetCents": 900, "leaseTtlMs": 60000,
                "actorDailyBudgetCents": {"a": 400, "b": 100}}"#,
        )
        .unwrap();
        let gov = Governor::new(
            policy,
            GovernorOptions::default(),
            Arc::new(MemoryStore::new()),
            clock.clone(),
            IdSource::Deterministic,
        )
        .unwrap();
        let req = AcquireRequest {
            actor_id: "a".into(),
            workspace_id: "w".into(),
            estimated_cost_cents: 70,
            ..AcquireRequest::default()
        };
        assert!(gov.acquire(req).unwrap().granted);
        let g = gov.gauges();
        assert_eq!((g.in_flight, g.max_in_flight), (1, 3));
        assert_eq!((g.budget_used_cents, g.budget_reserved_cents), (70, 70));
        assert_eq!(g.daily_budget_cents, 900);
        assert_eq!((g.rate_requests, g.scoped.len()), (1, 2));
        assert_eq!((g.scoped[0].id.as_str(), g.scoped[0].used_cents), ("a", 70));
        assert_eq!(g.scoped[0].limit_cents, 400);
        assert_eq!(g.grants_by_reason.get("granted"), Some(&1));
        let records = g.audit_records;
        // Past the lease's expiry and the rate window: nothing in flight, still today's spend.
        clock.set(Timestamp::from_unix_millis(start + 61_000));
        let g = gov.gauges();
        assert_eq!((g.in_flight, g.budget_reserved_cents), (0, 0));
        assert_eq!((g.budget_used_cents, g.rate_requests), (70, 0));
        // The next UTC day: the budgets start over.
        clock.set(Timestamp::from_unix_millis(start + 86_400_000));
        let g = gov.gauges();
        assert_eq!((g.budget_used_cents, g.scoped[0].used_cents), (0, 0));
        // Reading ran no command: no sweep, no audit record.
        assert_eq!(g.audit_records, records);
        gov.with_engine(|e| assert_eq!(e.state().meta.pools.in_flight, 1));
    }
}
