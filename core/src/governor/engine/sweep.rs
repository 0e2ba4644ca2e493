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
        while let Some((at, _)) = self.idem_order.first() {
            if now - *at < retention {
                break;
            }
            let (at, key) = self.idem_order.pop_first().expect("first exists");
            if self.st.idem.get(&key).is_some_and(|r| r.stored_at == at) {
                self.st.idem.remove(&key);
                self.touch_idem(&key);
            }
        }
        self.sweep_approvals();
    }

    /// Expires pending approvals whose time has come and forgets approvals past retention,
    /// through their indexes (never a scan of every approval). A pending approval that
    /// expires is kept (answering `approval expired`) for one more TTL at most: approvals that
    /// nobody decided never pile up beyond twice the queue.
    fn sweep_approvals(&mut self) {
        let now = self.now;
        while let Some((at, _)) = self.approval_index.expiry.first() {
            if *at > now {
                break;
            }
            let (_, id) = self
                .approval_index
                .expiry
                .pop_first()
                .expect("first exists");
            let Some(mut a) = self
                .st
                .approvals
                .get(&id)
                .filter(|a| a.status == ApprovalDecisionStatus::Pending)
                .cloned()
            else {
                continue;
            };
            a.status = ApprovalDecisionStatus::Expired;
            let ttl = a.expires_at.saturating_sub(a.created_at);
            a.retain_until = a.retain_until.min(a.expires_at.saturating_add(ttl));
            self.put_approval(a);
        }
        while let Some((at, _)) = self.approval_index.retention.first() {
            if *at > now {
                break;
            }
            let (_, id) = self
                .approval_index
                .retention
                .pop_first()
                .expect("first exists");
            if self
                .st
                .approvals
                .get(&id)
                .is_some_and(|a| now >= a.retain_until)
            {
                self.drop_approval(&id);
            }
        }
    }

    fn expire_lease(&mut self, id: &str, restart: bool) {
        let retention = self.settings.idempotency_retention_ms as i64;
        let now = self.now;
        let Some(l) = self.st.leases.get_mut(id) else {
            return;
        };
        l.status = LeaseStatus::Expired;
        for s in std::mem::take(&mut l.subs).into_keys() {
            self.sub_owner.remove(&s);
        }
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
