//! Metrics, status, diagnostics and the runaway report.

use serde_json::json;

use super::Engine;
use crate::governor::wire::{MetricsSnapshot, RunawayReport, StatusResponse, format_time_ms};

impl Engine {
    fn rate_utilization(&self) -> f64 {
        let (n, t) = (self.st.rate.len() as u64, self.rate_tokens);
        let r = |a: u64, b: u64| if b == 0 { 0.0 } else { a as f64 / b as f64 };
        r(n, self.settings.max_requests_per_minute).max(r(t, self.settings.max_tokens_per_minute))
    }

    /// Live leases: the expiry index holds exactly those (no scan of the lease table).
    fn active_leases(&self) -> u64 {
        self.expiry.len() as u64
    }

    /// `GetMetrics`.
    pub fn metrics(&self) -> MetricsSnapshot {
        let m = &self.st.meta.metrics;
        MetricsSnapshot {
            active_leases: self.active_leases(),
            spend_today_cents: self.st.meta.pools.budget_used,
            rate_pool_utilization: self.rate_utilization(),
            context_pool_utilization: m.last_context_utilization,
            compute_pool_utilization: if self.settings.max_compute_units == 0 {
                0.0
            } else {
                self.st.meta.pools.compute_used as f64 / self.settings.max_compute_units as f64
            },
            failed_audit_writes: m.failed_audit_writes,
            grants_by_reason: m.grants.clone(),
            denies_by_reason: m.denies.clone(),
        }
    }

    /// `GetStatus` (`started`, `durable` and `path` come from the governor).
    pub fn status(&self, started: i64, durable: bool, path: String) -> StatusResponse {
        StatusResponse {
            timestamp_utc: self.time(),
            started_at_utc: format_time_ms(started),
            healthy: true,
            durable_state_enabled: durable,
            state_database_path: path,
            active_leases: self.active_leases(),
            pending_approvals: self.approval_index.pending.len() as u64,
            spend_today_cents: self.st.meta.pools.budget_used,
            policy_version: self.policy.version().to_string(),
            policy_hash: self.policy.hash().to_string(),
            audit_level: self.policy.doc().audit_level.clone().unwrap_or_default(),
            audit_records: self.st.meta.audit.count,
            connected_governors: None,
        }
    }

    /// The diagnostics document.
    pub fn diagnostics(&self, started: i64, durable: bool, path: String) -> serde_json::Value {
        let s = &self.settings;
        json!({
            "status": self.status(started, durable, path),
            "metrics": self.metrics(),
            "pools": {
                "concurrency": {"active": self.st.meta.pools.in_flight, "capacity": s.max_in_flight},
                "compute": {"used": self.st.meta.pools.compute_used, "capacity": s.max_compute_units},
                "rate": {"utilization": self.rate_utilization(), "maxRequestsPerMinute": s.max_requests_per_minute,
                         "maxTokensPerMinute": s.max_tokens_per_minute, "windowMs": s.rate_window_ms},
                "context": {"utilization": self.st.meta.metrics.last_context_utilization,
                            "maxContextTokens": s.max_context_tokens, "maxRetrievedChunks": s.max_retrieved_chunks,
                            "maxToolOutputTokens": s.max_tool_output_tokens},
                "budget": {"reservedCents": self.st.meta.pools.budget_used, "limitCents": s.daily_budget_cents},
            }
        })
    }

    /// The runaway report.
    pub fn runaway_report(&self) -> RunawayReport {
        RunawayReport {
            generated_at_utc: self.time(),
            interventions: self.st.meta.safety.interventions.iter().cloned().collect(),
        }
    }
}
