//! `RecordDecision` (leasekit): a guard's decision appended to the governor's audit chain as a
//! `guard_decision` record. The record carries the peer uid the daemon read from the socket;
//! the declared ids must be bound to that uid when the policy has `uidBindings`; a `leaseId`
//! must name a lease the caller acquired. Each uid may append at most
//! [`DECISIONS_PER_WINDOW`] records and [`DECISION_BYTES_PER_WINDOW`] bytes of record text
//! per [`DECISION_WINDOW_MS`] (a fixed window per uid, at most [`MAX_DECISION_WINDOWS`] uids
//! kept, oldest window dropped first), so a hostile peer cannot grow the chain without bound.

use super::Engine;
use super::keys::composite;
use super::state::DecisionWindow;
use crate::governor::wire::{RecordDecisionRequest, RecordDecisionResponse};

/// Records one uid may append per window.
pub const DECISIONS_PER_WINDOW: u64 = 3_000;
/// Bytes of record text one uid may append per window.
pub const DECISION_BYTES_PER_WINDOW: u64 = 16 * 1024 * 1024;
/// The window (fixed, per uid).
pub const DECISION_WINDOW_MS: i64 = 60_000;
/// Uids whose windows are kept (beyond, the oldest window is dropped).
pub const MAX_DECISION_WINDOWS: usize = 10_000;

fn refused(reason: &str, retry_after_ms: Option<u64>) -> RecordDecisionResponse {
    RecordDecisionResponse {
        recorded: false,
        audit_entry_hash: String::new(),
        denied_reason: reason.to_string(),
        retry_after_ms,
    }
}

impl Engine {
    /// `RecordDecision`: appends the caller's decision record, or refuses it (nothing changed).
    pub fn record_decision(&mut self, mut req: RecordDecisionRequest) -> RecordDecisionResponse {
        let Some(decision) = req.decision else {
            // The payload readers refuse this before the engine; a typed caller gets the same.
            return refused("decision_missing", None);
        };
        if req.org_id.is_empty() {
            req.org_id = "default-org".to_string();
        }
        if let (Some(bindings), Some(uid)) = (self.policy.doc().uid_bindings.as_ref(), self.caller)
        {
            let bound = bindings
                .get(&uid.to_string())
                .is_some_and(|b| b.covers(&req.org_id, &req.workspace_id, &req.actor_id));
            if !bound {
                return refused("identity_not_bound", None);
            }
        }
        if !req.lease_id.is_empty()
            && !self
                .st
                .leases
                .get(&req.lease_id)
                .is_some_and(|l| self.visible(l))
        {
            return refused("lease_not_found", None);
        }
        let bytes = req.text_bytes() as u64;
        let key = composite(self.scope(), &[]);
        let now = self.now;
        if let Some(w) = self.st.meta.decision_windows.get(&key)
            && now.saturating_sub(w.start) < DECISION_WINDOW_MS
            && (w.records >= DECISIONS_PER_WINDOW
                || w.bytes.saturating_add(bytes) > DECISION_BYTES_PER_WINDOW)
        {
            let retry = (w.start + DECISION_WINDOW_MS - now).max(1) as u64;
            return refused("decision_rate_limited", Some(retry));
        }
        let mut rec = self.record("guard_decision");
        rec.s("orgId", &req.org_id)
            .s("actorId", &req.actor_id)
            .s("workspaceId", &req.workspace_id)
            .s("source", &req.source)
            .s("decision", decision.as_str())
            .s("rule", &req.rule)
            .s("method", &req.method)
            .s("server", &req.server)
            .s("tool", &req.tool)
            .s("requestId", &req.request_id)
            .s("code", &req.code)
            .s("reason", &req.reason)
            .list("targets", std::mem::take(&mut req.targets))
            .s("leaseId", &req.lease_id);
        if let Some(uid) = self.caller {
            rec.i("peerUid", i64::from(uid));
        }
        let Some(hash) = self.audit(rec) else {
            return refused("audit_unavailable", Some(1000));
        };
        self.count_decision(key, bytes);
        RecordDecisionResponse {
            recorded: true,
            audit_entry_hash: hash,
            denied_reason: String::new(),
            retry_after_ms: None,
        }
    }

    /// Counts one record of `bytes` in the window of `key` (a new window when the last one
    /// ended), keeping at most [`MAX_DECISION_WINDOWS`] windows.
    fn count_decision(&mut self, key: String, bytes: u64) {
        let now = self.now;
        let windows = &mut self.st.meta.decision_windows;
        let w = windows.entry(key).or_insert(DecisionWindow {
            start: now,
            records: 0,
            bytes: 0,
        });
        if now.saturating_sub(w.start) >= DECISION_WINDOW_MS {
            *w = DecisionWindow {
                start: now,
                records: 0,
                bytes: 0,
            };
        }
        w.records = w.records.saturating_add(1);
        w.bytes = w.bytes.saturating_add(bytes);
        if windows.len() > MAX_DECISION_WINDOWS {
            windows.retain(|_, w| now.saturating_sub(w.start) < DECISION_WINDOW_MS);
            while windows.len() > MAX_DECISION_WINDOWS {
                let oldest = windows
                    .iter()
                    .min_by_key(|(k, w)| (w.start, (*k).clone()))
                    .map(|(k, _)| k.clone());
                match oldest {
                    Some(k) => windows.remove(&k),
                    None => break,
                };
            }
        }
        self.touch_meta();
    }
}
