//! `StagePolicyBundle`, `ActivatePolicy`, `RollbackPolicy` (SEMANTICS 13.9): the signature is
//! checked at stage and again at activation; activated policies are kept with their content;
//! rollback re-activates an earlier activated version (a staged bundle stays staged).
//!
//! The history lives in the meta row, which every batch that changes it rewrites: it holds
//! each activated policy (version and hash) once and at most [`POLICY_HISTORY_MAX`] of them,
//! so a command's cost does not grow with the number of past activations (SEMANTICS 13.16).

use super::Engine;
use super::state::{PolicyRec, StagedRec};
use crate::governor::policy::{Policy, policy_hash, verify_bundle};
use crate::governor::wire::{
    ActivatePolicyRequest, ActivatePolicyResponse, PolicyBundle, RollbackPolicyRequest,
    StagePolicyBundleResponse,
};

/// The same activated policy: version and hash.
fn same_policy(a: &PolicyRec, b: &PolicyRec) -> bool {
    a.version == b.version && a.hash == b.hash
}

/// The most activated policies the history keeps (the active one included): rollback reaches
/// the 15 before the active one; an older version answers "policy version not found".
pub const POLICY_HISTORY_MAX: usize = 16;

impl Engine {
    /// Makes `rec` the active policy: appended to the history (an entry of the same version and
    /// hash is moved to the end, not repeated), the oldest dropped beyond
    /// [`POLICY_HISTORY_MAX`].
    fn push_active_policy(&mut self, rec: PolicyRec) {
        let h = &mut self.st.meta.policy.history;
        h.retain(|p| !same_policy(p, &rec));
        h.push(rec);
        let extra = h.len().saturating_sub(POLICY_HISTORY_MAX);
        h.drain(..extra);
        self.st.meta.policy.active = h.len() - 1;
    }

    /// Trims a history stored by an earlier leasekit (repeated entries, more than
    /// [`POLICY_HISTORY_MAX`]) to what [`Engine::push_active_policy`] keeps, by replaying it
    /// through that, the active policy last; true when it changed.
    pub(super) fn trim_policy_history(&mut self) -> bool {
        let ps = &mut self.st.meta.policy;
        let Some(active) = ps.history.get(ps.active).cloned() else {
            return false;
        };
        let active_was_last = ps.active + 1 == ps.history.len();
        let old = std::mem::take(&mut ps.history);
        let before = old.len();
        for rec in old.into_iter().filter(|r| !same_policy(r, &active)) {
            self.push_active_policy(rec);
        }
        self.push_active_policy(active);
        // Replaying only removes entries: the same length with the active one last before is
        // the same list.
        !(active_was_last && self.st.meta.policy.history.len() == before)
    }

    fn signature_ok(&self, b: &PolicyBundle) -> bool {
        // A signature that is present must verify; an absent one only passes when signed
        // bundles are not required.
        if b.signature_base64.trim().is_empty() {
            !self.options.require_signed_bundles
        } else {
            verify_bundle(b, &self.keys)
        }
    }

    fn bundle_policy(b: &PolicyBundle) -> Result<(Policy, String), String> {
        let value: serde_json::Value = serde_json::from_str(&b.policy_content_json)
            .map_err(|e| format!("invalid policy: not JSON: {e}"))?;
        let hash = policy_hash(&value).map_err(|e| format!("invalid policy: {}", e.message()))?;
        let p = Policy::with_hash(value, hash.clone())
            .map_err(|e| format!("invalid policy: {}", e.message()))?;
        Ok((p.with_version(&b.version), hash))
    }

    /// `StagePolicyBundle` (one staging slot: a new stage replaces the old).
    pub fn stage_policy(&mut self, b: PolicyBundle) -> StagePolicyBundleResponse {
        let refuse = |m: String| StagePolicyBundleResponse {
            accepted: false,
            message: m,
            ..Default::default()
        };
        if !self.signature_ok(&b) {
            return refuse("invalid policy bundle signature".into());
        }
        let (_, hash) = match Self::bundle_policy(&b) {
            Ok(p) => p,
            Err(m) => return refuse(m),
        };
        if !self.audit_ok {
            self.st.meta.metrics.failed_audit_writes =
                self.st.meta.metrics.failed_audit_writes.saturating_add(1);
            self.touch_meta();
            return refuse("audit_unavailable".into());
        }
        let mut rec = self.record("policy_staged");
        rec.s("stagedPolicyVersion", &b.version)
            .s("stagedPolicyHash", &hash)
            .s("author", &b.author)
            .s("createdAtUtc", &b.created_at_utc)
            .s("decision", "staged");
        self.audit(rec);
        let version = b.version.clone();
        self.st.meta.policy.staged = Some(StagedRec {
            bundle: b,
            hash: hash.clone(),
        });
        self.touch_meta();
        StagePolicyBundleResponse {
            accepted: true,
            message: "policy staged".into(),
            staged_policy_hash: hash,
            staged_policy_version: version,
        }
    }

    fn active_response(&self, activated: bool, message: &str) -> ActivatePolicyResponse {
        ActivatePolicyResponse {
            activated,
            message: message.into(),
            active_policy_hash: self.policy.hash().to_string(),
            active_policy_version: self.policy.version().to_string(),
        }
    }

    /// `ActivatePolicy`.
    pub fn activate_policy(&mut self, req: ActivatePolicyRequest) -> ActivatePolicyResponse {
        let Some(staged) = self.st.meta.policy.staged.clone() else {
            return self.active_response(false, "no staged policy");
        };
        if !req.version.is_empty() && !req.version.eq_ignore_ascii_case(&staged.bundle.version) {
            return self.active_response(false, "staged policy version mismatch");
        }
        if !self.signature_ok(&staged.bundle) {
            return self.active_response(false, "invalid policy bundle signature");
        }
        let (policy, hash) = match Self::bundle_policy(&staged.bundle) {
            Ok(p) => p,
            Err(m) => return self.active_response(false, &m),
        };
        if !self.audit_ok {
            self.st.meta.metrics.failed_audit_writes =
                self.st.meta.metrics.failed_audit_writes.saturating_add(1);
            self.touch_meta();
            return self.active_response(false, "audit_unavailable");
        }
        self.push_active_policy(PolicyRec {
            version: staged.bundle.version.clone(),
            content: policy.source().clone(),
            hash,
        });
        self.st.meta.policy.staged = None;
        self.install_policy(policy);
        let mut rec = self.record("policy_activated");
        rec.s("decision", "activated")
            .s("recommendation", self.policy.version());
        self.audit(rec);
        self.touch_meta();
        self.active_response(true, "policy activated")
    }

    /// `RollbackPolicy`.
    pub fn rollback_policy(&mut self, req: RollbackPolicyRequest) -> ActivatePolicyResponse {
        let found = self
            .st
            .meta
            .policy
            .history
            .iter()
            .rposition(|p| p.version == req.version);
        let Some(i) = found else {
            return self.active_response(false, "policy version not found");
        };
        let rec_p = self.st.meta.policy.history[i].clone();
        let policy = match Policy::with_hash(rec_p.content.clone(), rec_p.hash.clone()) {
            Ok(p) => p,
            Err(e) => {
                return self.active_response(false, &format!("invalid policy: {}", e.message()));
            }
        };
        if !self.audit_ok {
            self.st.meta.metrics.failed_audit_writes =
                self.st.meta.metrics.failed_audit_writes.saturating_add(1);
            self.touch_meta();
            return self.active_response(false, "audit_unavailable");
        }
        let from = self.policy.version().to_string();
        self.push_active_policy(rec_p);
        self.install_policy(policy);
        let mut rec = self.record("policy_rolled_back");
        rec.s("decision", "activated")
            .s("fromPolicyVersion", &from)
            .s("recommendation", self.policy.version());
        self.audit(rec);
        self.touch_meta();
        self.active_response(true, "policy rolled back")
    }
}
