//! Resolved limits: policy field, else construction option, else LeaseGate's default.

use super::doc::Limits;

/// Every numeric limit, resolved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(missing_docs)]
pub struct Settings {
    pub lease_ttl_ms: u64,
    pub max_in_flight: u64,
    pub daily_budget_cents: u64,
    pub max_requests_per_minute: u64,
    pub max_tokens_per_minute: u64,
    pub rate_window_ms: u64,
    pub max_context_tokens: u64,
    pub max_retrieved_chunks: u64,
    pub max_tool_output_tokens: u64,
    pub max_tool_calls_per_lease: u64,
    pub max_compute_units: u64,
    pub receipt_threshold_cost_cents: u64,
    pub max_retrieved_bytes: u64,
    pub max_retrieved_tokens: u64,
    pub summarization_target_tokens: u64,
    pub retry_threshold_per_lease: u64,
    pub tool_loop_threshold: u64,
    pub policy_deny_circuit_breaker_threshold: u64,
    pub spend_spike_cents: u64,
    pub safety_cooldown_ms: u64,
    pub clamped_max_output_tokens: u64,
    pub default_tool_timeout_ms: u64,
    pub max_tool_output_bytes: u64,
    pub safety_window_ms: u64,
    pub clamp_duration_ms: u64,
    pub idempotency_retention_ms: u64,
    pub max_approval_ttl_seconds: u64,
    pub max_pending_approvals: u64,
}

impl Settings {
    /// Resolves `policy` over `options` over the defaults of SEMANTICS 13.2.
    pub fn resolve(policy: &Limits, options: &Limits) -> Settings {
        macro_rules! pick {
            ($field:ident, $default:expr) => {
                policy
                    .$field
                    .or(options.$field)
                    .map_or($default, |v| v.max(0) as u64)
            };
        }
        Settings {
            lease_ttl_ms: pick!(lease_ttl_ms, 20_000),
            max_in_flight: pick!(max_in_flight, 4),
            daily_budget_cents: pick!(daily_budget_cents, 500),
            max_requests_per_minute: pick!(max_requests_per_minute, 120),
            max_tokens_per_minute: pick!(max_tokens_per_minute, 250_000),
            rate_window_ms: pick!(rate_window_ms, 60_000),
            max_context_tokens: pick!(max_context_tokens, 16_000),
            max_retrieved_chunks: pick!(max_retrieved_chunks, 40),
            max_tool_output_tokens: pick!(max_tool_output_tokens, 4_000),
            max_tool_calls_per_lease: pick!(max_tool_calls_per_lease, 6),
            max_compute_units: pick!(max_compute_units, 8),
            receipt_threshold_cost_cents: pick!(receipt_threshold_cost_cents, 20),
            max_retrieved_bytes: pick!(max_retrieved_bytes, 1_000_000),
            max_retrieved_tokens: pick!(max_retrieved_tokens, 12_000),
            summarization_target_tokens: pick!(summarization_target_tokens, 1_000),
            retry_threshold_per_lease: pick!(retry_threshold_per_lease, 3),
            tool_loop_threshold: pick!(tool_loop_threshold, 4),
            policy_deny_circuit_breaker_threshold: pick!(policy_deny_circuit_breaker_threshold, 5),
            spend_spike_cents: pick!(spend_spike_cents, 20),
            safety_cooldown_ms: pick!(safety_cooldown_ms, 2_000),
            clamped_max_output_tokens: pick!(clamped_max_output_tokens, 64),
            default_tool_timeout_ms: pick!(default_tool_timeout_ms, 2_000),
            max_tool_output_bytes: pick!(max_tool_output_bytes, 16_384),
            safety_window_ms: pick!(safety_window_ms, 60_000),
            clamp_duration_ms: pick!(clamp_duration_ms, 3_600_000),
            idempotency_retention_ms: pick!(idempotency_retention_ms, 86_400_000),
            max_approval_ttl_seconds: pick!(max_approval_ttl_seconds, 86_400),
            max_pending_approvals: pick!(max_pending_approvals, 1_000),
        }
    }
}
