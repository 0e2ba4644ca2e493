//! Expiry (SEMANTICS 13.4): a lease not released by its expiry is settled at its
//! reservation (counted as spent) and audited `lease_expired` (or `lease_expired_by_restart`
//! during a reopen); it frees concurrency, compute, the actor's in-flight slot and its
//! sub-leases. Old tombstones, idempotency records and approvals are forgotten after the
//! retention time.

use super::Engine;
use super::state::LeaseStatus;
use crate::governor::wire::ApprovalDecisionStatus;

impl Engine {
    pub(crate) fn sweep(&mut self, restart: bool) {
        let now = self.now;
        while let Some((at, _)) = self.expiry.first() {
            if *at > now {
                break;
            }
            let (_, id) = self.expiry.pop_first().expect("first exists");
            self.expire_lease(&id, restart);
        }
        while let Some((at, _)) = self.retention.first() {
            if *at > now {
                break;
            }
            let (_, id) = self.retention.pop_first().expect("first exists");
            if self
                .st
                .leases
                .get(&id)
                .is_some_and(|l| l.status != LeaseStatus::Live)
            {
                self.st.leases.remove(&id);
                self.touch_lease(&id);
            }
        }
        let retention = self.settings.idempotency_retention_ms as i64;
        while let Some((at, _)) = self.st.meta.idem_order.front() {
            if now - *at < retention {
                break;
            }
            let (at, key) = self.st.meta.idem_order.pop_front().expect("front exists");
            if self.st.idem.get(&key).is_some_and(|r| r.stored_at == at) {
                self.st.idem.remove(&key);
                self.touch_idem(&key);
            }
            self.touch_meta();
        }
        let approvals: Vec<String> = self
            .st
            .approvals
            .values()
            .filter(|a| {
                (a.status == ApprovalDecisionStatus::Pending && now >= a.expires_at)
                    || now >= a.retain_until
            })
            .map(|a| a.id.clone())
            .collect();
        for id in approvals {
            let a = self.st.approvals.get_mut(&id).expect("listed");
            if now >= a.retain_until {
                self.st.approvals.remove(&id);
            } else {
                a.status = ApprovalDecisionStatus::Expired;
            }
            self.touch_approval(&id);
        }
    }

    fn expire_lease(&mut self, id: &str, restart: bool) {
        let retention = self.settings.idempotency_retention_ms as i64;
        let now = self.now;
        let Some(l) = self.st.leases.get_mut(id) else {
            return;
        };
        l.status = LeaseStatus::Expired;
        l.subs.clear();
        l.retain_until = now.saturating_add(retention);
        self.retention.insert((l.retain_until, l.id.clone()));
        let (compute, actor) = (l.compute, l.request.actor_id.clone());
        let mut rec = self.record(if restart {
            "lease_expired_by_restart"
        } else {
            "lease_expired"
        });
        let l = &self.st.leases[id];
        lease_fields(&mut rec, l);
        rec.s("decision", "expired")
            .i("reservedCents", l.reserved as i64);
        let pools = &mut self.st.meta.pools;
        pools.in_flight = pools.in_flight.saturating_sub(1);
        pools.compute_used = pools.compute_used.saturating_sub(compute);
        self.release_actor_slot(&actor);
        self.audit(rec);
        self.touch_lease(id);
    }

    pub(crate) fn release_actor_slot(&mut self, actor: &str) {
        if let Some(n) = self.st.meta.actor_in_flight.get_mut(actor) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                self.st.meta.actor_in_flight.remove(actor);
            }
        }
    }
}

/// The lease fields every lease audit record carries.
pub(crate) fn lease_fields(
    rec: &mut crate::governor::audit::AuditRecord,
    l: &super::state::LeaseRec,
) {
    let r = &l.request;
    rec.s("leaseId", &l.id)
        .s("orgId", &r.org_id)
        .s("actorId", &r.actor_id)
        .s("workspaceId", &r.workspace_id)
        .s("principalType", r.principal_type.as_str())
        .s("role", l.role.as_str())
        .s("actionType", r.action_type.as_str())
        .s("modelId", &r.model_id)
        .i("estimatedCostCents", r.estimated_cost_cents as i64)
        .list_parts(
            "requestedTools",
            r.requested_tools
                .iter()
                .map(|t| [t.tool_id.as_str(), ":", t.category.pascal()]),
        );
}
