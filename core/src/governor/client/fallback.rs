//! The local fallback of SEMANTICS 13.13: LeaseGate's client rules, applied only when the
//! daemon cannot be reached (never when it answered `success: false`).
//!
//! - Dev: a risky capability or tool category -> `service_unavailable_risky_capability`;
//!   `maxOutputTokens` > 256 -> `service_unavailable_dev_cap`; else a local grant.
//! - Prod: risky -> `service_unavailable_prod_deny_risky`; an action other than
//!   `chatCompletion` -> `service_unavailable_prod_readonly_only`; `maxOutputTokens` > 128 ->
//!   `service_unavailable_prod_cap`; else a local grant.
//!
//! A local grant has id `local-<32 hex>`, expires 15 s later and is marked `degradedMode`;
//! denials carry `retryAfterMs` 1000. Releasing a local lease through the same client answers
//! `recorded` ("local fallback release recorded").

use std::collections::HashSet;
use std::sync::Mutex;

use crate::governor::wire::{
    AcquireRequest, AcquireResponse, ActionType, LeaseConstraintsWire, LeaseLocality, NO_EXPIRY,
    ReleaseClassification, ReleaseRequest, ReleaseResponse, ToolCategory, format_time_ms,
};

/// What a client does when the daemon cannot be reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FallbackMode {
    /// No fallback: every call fails when the daemon is unreachable.
    Off,
    /// LeaseGate's dev rules (small, non-risky grants).
    Dev,
    /// LeaseGate's prod rules (read-only chat with at most 128 output tokens); the default.
    #[default]
    Prod,
}

impl FallbackMode {
    /// Parses `off`, `dev` or `prod`.
    pub fn parse(s: &str) -> Option<FallbackMode> {
        match s {
            "off" => Some(FallbackMode::Off),
            "dev" => Some(FallbackMode::Dev),
            "prod" => Some(FallbackMode::Prod),
            _ => None,
        }
    }

    /// The name `parse` accepts.
    pub fn as_str(self) -> &'static str {
        match self {
            FallbackMode::Off => "off",
            FallbackMode::Dev => "dev",
            FallbackMode::Prod => "prod",
        }
    }
}

/// LeaseGate's risky capability names.
pub const RISKY_CAPABILITIES: [&str; 3] = ["network_write", "file_write", "exec"];
/// Dev fallback's output-token cap.
pub const DEV_MAX_OUTPUT_TOKENS: u32 = 256;
/// Prod fallback's output-token cap.
pub const PROD_MAX_OUTPUT_TOKENS: u32 = 128;
/// Lifetime of a local grant.
pub const LOCAL_LEASE_TTL_MS: i64 = 15_000;

/// Local leases a client granted and has not released.
#[derive(Debug, Default)]
pub(crate) struct LocalLeases {
    ids: Mutex<HashSet<String>>,
}

impl LocalLeases {
    /// Decides an acquire locally (`mode` is Dev or Prod).
    pub(crate) fn acquire(
        &self,
        mode: FallbackMode,
        req: &AcquireRequest,
        now_ms: i64,
    ) -> AcquireResponse {
        let risky = req
            .requested_capabilities
            .iter()
            .any(|c| RISKY_CAPABILITIES.contains(&c.as_str()))
            || req.requested_tools.iter().any(|t| {
                matches!(
                    t.category,
                    ToolCategory::NetworkWrite | ToolCategory::FileWrite | ToolCategory::Exec
                )
            });
        let denial = match mode {
            FallbackMode::Dev if risky => Some((
                "service_unavailable_risky_capability",
                "disable risky capabilities in dev fallback",
            )),
            FallbackMode::Dev if req.max_output_tokens > DEV_MAX_OUTPUT_TOKENS => Some((
                "service_unavailable_dev_cap",
                "reduce max output tokens for local fallback",
            )),
            FallbackMode::Dev => None,
            _ if risky => Some((
                "service_unavailable_prod_deny_risky",
                "retry when governor service is available",
            )),
            _ if req.action_type != ActionType::ChatCompletion => Some((
                "service_unavailable_prod_readonly_only",
                "only read-only chat is allowed in prod fallback",
            )),
            _ if req.max_output_tokens > PROD_MAX_OUTPUT_TOKENS => Some((
                "service_unavailable_prod_cap",
                "reduce output tokens for prod fallback",
            )),
            _ => None,
        };
        let mut resp = AcquireResponse {
            idempotency_key: req.idempotency_key.clone(),
            principal_type: req.principal_type,
            role: req.role,
            lease_locality: LeaseLocality::LocalIssued,
            degraded_mode: true,
            constraints: LeaseConstraintsWire::default(),
            ..AcquireResponse::default()
        };
        match denial {
            Some((reason, recommendation)) => {
                resp.expires_at_utc = NO_EXPIRY.to_string();
                resp.denied_reason = reason.to_string();
                resp.recommendation = recommendation.to_string();
                resp.retry_after_ms = Some(1000);
            }
            None => {
                let id = format!("local-{}", random_hex());
                self.ids
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .insert(id.clone());
                resp.granted = true;
                resp.lease_id = id;
                resp.expires_at_utc = format_time_ms(now_ms + LOCAL_LEASE_TTL_MS);
                resp.recommendation = match mode {
                    FallbackMode::Dev => "dev fallback grant",
                    _ => "prod read-only fallback grant",
                }
                .to_string();
            }
        }
        resp
    }

    /// Releases a local lease this client granted; `None` for any other id.
    pub(crate) fn release(&self, req: &ReleaseRequest) -> Option<ReleaseResponse> {
        let removed = self
            .ids
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&req.lease_id);
        removed.then(|| ReleaseResponse {
            classification: ReleaseClassification::Recorded,
            recommendation: "local fallback release recorded".to_string(),
            idempotency_key: req.idempotency_key.clone(),
            ..ReleaseResponse::default()
        })
    }
}

fn random_hex() -> String {
    let mut b = [0u8; 16];
    if getrandom::fill(&mut b).is_err() {
        use sha2::{Digest, Sha256};
        use std::sync::atomic::{AtomicU64, Ordering};
        static N: AtomicU64 = AtomicU64::new(0);
        let seed = format!(
            "{:?}{}{}",
            std::time::SystemTime::now(),
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        );
        b.copy_from_slice(&Sha256::digest(seed.as_bytes())[..16]);
    }
    hex::encode(b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::governor::wire::ToolIntent;

    fn req(f: impl FnOnce(&mut AcquireRequest)) -> AcquireRequest {
        let mut r = AcquireRequest {
            actor_id: "a".into(),
            max_output_tokens: 100,
            idempotency_key: "k".into(),
            ..AcquireRequest::default()
        };
        f(&mut r);
        r
    }

    #[test]
    fn dev_and_prod_rules() {
        let l = LocalLeases::default();
        let cases: Vec<(FallbackMode, AcquireRequest, &str)> = vec![
            (FallbackMode::Dev, req(|_| {}), ""),
            (FallbackMode::Dev, req(|r| r.max_output_tokens = 256), ""),
            (
                FallbackMode::Dev,
                req(|r| r.max_output_tokens = 257),
                "service_unavailable_dev_cap",
            ),
            (
                FallbackMode::Dev,
                req(|r| r.requested_capabilities = vec!["exec".into()]),
                "service_unavailable_risky_capability",
            ),
            (
                FallbackMode::Dev,
                req(|r| {
                    r.requested_tools = vec![ToolIntent {
                        tool_id: "x".into(),
                        category: ToolCategory::FileWrite,
                    }]
                }),
                "service_unavailable_risky_capability",
            ),
            (
                FallbackMode::Dev,
                req(|r| r.action_type = ActionType::ToolCall),
                "",
            ),
            (FallbackMode::Prod, req(|_| {}), ""),
            (
                FallbackMode::Prod,
                req(|r| r.max_output_tokens = 129),
                "service_unavailable_prod_cap",
            ),
            (
                FallbackMode::Prod,
                req(|r| r.action_type = ActionType::Embedding),
                "service_unavailable_prod_readonly_only",
            ),
            (
                FallbackMode::Prod,
                req(|r| r.requested_capabilities = vec!["network_write".into()]),
                "service_unavailable_prod_deny_risky",
            ),
        ];
        for (mode, r, want) in cases {
            let resp = l.acquire(mode, &r, 1_000);
            assert_eq!(resp.denied_reason, want, "{mode:?} {r:?}");
            assert_eq!(resp.granted, want.is_empty());
            assert!(resp.degraded_mode);
            assert_eq!(resp.idempotency_key, "k");
            if resp.granted {
                assert!(resp.lease_id.starts_with("local-") && resp.lease_id.len() == 38);
                assert_eq!(resp.expires_at_utc, "1970-01-01T00:00:16.000Z");
                assert_eq!(resp.retry_after_ms, None);
            } else {
                assert_eq!(resp.retry_after_ms, Some(1000));
                assert!(resp.lease_id.is_empty());
            }
        }
    }

    #[test]
    fn a_local_lease_is_released_once() {
        let l = LocalLeases::default();
        let g = l.acquire(FallbackMode::Prod, &req(|_| {}), 0);
        let rel = ReleaseRequest {
            lease_id: g.lease_id.clone(),
            ..ReleaseRequest::default()
        };
        let r = l.release(&rel).unwrap();
        assert_eq!(r.classification, ReleaseClassification::Recorded);
        assert_eq!(r.recommendation, "local fallback release recorded");
        assert!(l.release(&rel).is_none());
        let other = ReleaseRequest {
            lease_id: "local-unknown".into(),
            ..ReleaseRequest::default()
        };
        assert!(l.release(&other).is_none());
    }
}
