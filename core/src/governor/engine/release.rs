//! `Release` (SEMANTICS 13.4): the reservation is replaced by the actuals (same UTC day
//! only), actual tokens replace the estimate in the rate window, the lease's slots and
//! sub-leases are freed; a late release of an expired lease is `leaseExpired`; a second
//! release with the same `idempotencyKey` replays the first response.

use super::Engine;
use super::state::LeaseStatus;
use super::sweep::lease_fields;
use crate::governor::wire::{
    LeaseOutcome, LeaseReceipt, ProviderErrorClassification, ReleaseClassification, ReleaseRequest,
    ReleaseResponse,
};
use crate::{Error, ErrorCode};

fn recommendation(req: &ReleaseRequest) -> &'static str {
    match req.provider_error_classification {
        ProviderErrorClassification::RateLimited => "backoff and retry",
        ProviderErrorClassification::Timeout => "reduce context or increase provider timeout",
        ProviderErrorClassification::ContextTooLarge => "reduce context tokens or chunks",
        ProviderErrorClassification::ModelUnavailable => "switch model",
        ProviderErrorClassification::Unauthorized => "check provider credentials",
        _ if req.outcome == LeaseOutcome::PolicyDenied => "request approval or update policy",
        _ => "continue",
    }
}

impl Engine {
    /// `Release`. Fails (an internal error, nothing changed) only when the audit record of
    /// the settlement cannot be written.
    pub fn release(&mut self, req: ReleaseRequest) -> crate::Result<ReleaseResponse> {
        let not_found = |e: &Engine| ReleaseResponse {
            classification: ReleaseClassification::LeaseNotFound,
            recommendation: "lease missing or already expired".into(),
            idempotency_key: req.idempotency_key.clone(),
            policy_version: e.policy.version().to_string(),
            policy_hash: e.policy.hash().to_string(),
            receipt: None,
        };
        if self.foreign(&req.lease_id) {
            return Ok(not_found(self));
        }
        let Some(l) = self.st.leases.get(&req.lease_id) else {
            return Ok(not_found(self));
        };
        let status = l.status;
        if status == LeaseStatus::Released {
            return Ok(match &l.release {
                Some((key, resp))
                    if !req.idempotency_key.is_empty() && *key == req.idempotency_key =>
                {
                    resp.clone()
                }
                _ => not_found(self),
            });
        }
        if !self.audit_ok {
            self.st.meta.metrics.failed_audit_writes =
                self.st.meta.metrics.failed_audit_writes.saturating_add(1);
            self.touch_meta();
            return Err(Error::new(
                ErrorCode::InternalError,
                "audit_unavailable: the release cannot be recorded; nothing was changed",
            ));
        }
        let id = req.lease_id.clone();
        let today = self.today();
        let now = self.now;
        let retention = self.settings.idempotency_retention_ms as i64;
        // The settled spend of the day and of each scope, checked before anything changes
        // (SEMANTICS 13.16 Arithmetic): a settlement that would overflow is refused whole.
        let settled = self.settled_counters(&id, req.actual_cost_cents)?;
        let l = self.st.leases.get_mut(&id).expect("checked");
        let (reserved, day, compute, actor, owner) = (
            l.reserved,
            l.day,
            l.compute,
            l.request.actor_id.clone(),
            l.owner_uid,
        );
        let (expires_at, old_retain) = (l.expires_at, l.retain_until);
        l.status = LeaseStatus::Released;
        for s in std::mem::take(&mut l.subs).into_keys() {
            self.sub_owner.remove(&s);
        }
        l.retain_until = now.saturating_add(retention);
        let chain = l.approval_chain.clone();
        let summaries = l.context_summaries.clone();
        // Settle the day's spend (a settlement after that day changes no pool).
        if day == today {
            let (global, scoped) = settled;
            self.st.meta.pools.budget_used = global;
            for (key, used) in scoped {
                if let Some(c) = self.st.meta.scoped.get_mut(&key) {
                    c.used = used;
                    self.touch_scope(&key);
                }
            }
        }
        if status == LeaseStatus::Live {
            let pools = &mut self.st.meta.pools;
            pools.in_flight = pools.in_flight.saturating_sub(1);
            pools.compute_used = pools.compute_used.saturating_sub(compute);
            self.release_actor_slot(&actor);
        }
        let actual_tokens =
            u64::from(req.actual_prompt_tokens) + u64::from(req.actual_output_tokens);
        let acquired_at = self.st.leases[&id].acquired_at;
        if let Some(i) = self.find_rate(acquired_at, &id) {
            let e = &mut self.st.rate[i];
            self.rate_tokens = self
                .rate_tokens
                .saturating_sub(e.tokens)
                .saturating_add(actual_tokens);
            e.tokens = actual_tokens;
            let e = e.clone();
            self.touch_rate(&e);
        }
        let classification = if status == LeaseStatus::Expired {
            ReleaseClassification::LeaseExpired
        } else {
            ReleaseClassification::Recorded
        };
        let recommendation = recommendation(&req);
        let mut rec = self.record("lease_released");
        lease_fields(&mut rec, &self.st.leases[&id]);
        rec.i("actualCostCents", req.actual_cost_cents as i64)
            .i("actualPromptTokens", i64::from(req.actual_prompt_tokens))
            .i("actualOutputTokens", i64::from(req.actual_output_tokens))
            .i("reservedCents", reserved as i64)
            .s("classification", classification.as_str())
            .list(
                "toolUsageSummary",
                req.tool_calls
                    .iter()
                    .map(|t| format!("{}:{}:{}ms", t.tool_id, t.outcome.pascal(), t.duration_ms))
                    .collect(),
            )
            .s("decision", req.outcome.as_str())
            .s("reason", "")
            .s("recommendation", recommendation);
        let hash = self.audit(rec).unwrap_or_default();
        let receipt =
            (req.actual_cost_cents >= self.settings.receipt_threshold_cost_cents).then(|| {
                LeaseReceipt {
                    lease_id: id.clone(),
                    policy_hash: self.policy.hash().to_string(),
                    actual_prompt_tokens: req.actual_prompt_tokens,
                    actual_output_tokens: req.actual_output_tokens,
                    actual_cost_cents: req.actual_cost_cents,
                    outcome: req.outcome,
                    audit_entry_hash: hash,
                    timestamp_utc: self.time(),
                    approval_chain: chain,
                    context_summaries: summaries,
                }
            });
        let response = ReleaseResponse {
            classification,
            recommendation: recommendation.to_string(),
            idempotency_key: req.idempotency_key.clone(),
            policy_version: self.policy.version().to_string(),
            policy_hash: self.policy.hash().to_string(),
            receipt,
        };
        if req.actual_cost_cents >= self.settings.spend_spike_cents {
            // The actor as its lease's owner declared it (13.16: safety state is per uid).
            let scope = super::keys::Scope::of(owner);
            self.start_clamp(scope, &actor, "spend_spike");
            self.start_cooldown(scope, &actor, "spend_spike");
        }
        if status == LeaseStatus::Live {
            self.expiry.remove(&(expires_at, id.clone()));
        } else {
            self.retention.remove(&(old_retain, id.clone()));
        }
        // A settlement of the same day changed the budgets' use (its lease no longer counts
        // as a reservation).
        if day == today {
            self.check_budget_alerts(&id);
        }
        let l = self.st.leases.get_mut(&id).expect("checked");
        l.settled = Some(req.actual_cost_cents);
        if req.idempotency_key.is_empty() {
            // Nothing can replay a keyless release: the record goes (a later release of the
            // id answers leaseNotFound either way).
            self.st.leases.remove(&id);
        } else {
            l.release = Some((req.idempotency_key.clone(), response.clone()));
            self.retention.insert((l.retain_until, id.clone()));
        }
        self.touch_lease(&id);
        Ok(response)
    }

    /// What settling lease `id` at `actual` cents makes of the day's spend and of each of its
    /// scoped counters of that day (`(global, [(key, used)])`; unchanged when the lease is of
    /// an earlier day). Refused, nothing changed, when a sum would overflow.
    fn settled_counters(&self, id: &str, actual: u64) -> crate::Result<(u64, Vec<(String, u64)>)> {
        let l = &self.st.leases[id];
        let pools = &self.st.meta.pools;
        if l.day != self.today() {
            return Ok((pools.budget_used, Vec::new()));
        }
        let overflow = || {
            Error::new(
                ErrorCode::InvalidRequest,
                format!(
                    "arithmetic_overflow: actualCostCents {actual} would overflow the day's \
                     spend; nothing was changed"
                ),
            )
        };
        let settle = |used: u64| used.saturating_sub(l.reserved).checked_add(actual);
        let global = settle(pools.budget_used).ok_or_else(overflow)?;
        let mut scoped = Vec::with_capacity(3);
        let r = &l.request;
        for (prefix, scope) in [
            ("org:", &r.org_id),
            ("ws:", &r.workspace_id),
            ("actor:", &r.actor_id),
        ] {
            let key = format!("{prefix}{scope}");
            if let Some(c) = self.st.meta.scoped.get(&key).filter(|c| c.day == l.day) {
                scoped.push((key, settle(c.used).ok_or_else(overflow)?));
            }
        }
        Ok((global, scoped))
    }
}
