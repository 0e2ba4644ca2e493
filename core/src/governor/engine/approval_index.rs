//! Derived indexes over the approvals (SEMANTICS 13.16 "Bounded state": a command's cost does
//! not grow with the number of past approvals): pending approvals in queue order and per
//! requester, pending expiries, retention times and token hashes. Rebuilt at open, kept exact
//! by every change of an approval record (through [`Engine::put_approval`] and
//! [`Engine::drop_approval`]) and by a refresh.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::Engine;
use super::reviewer_id::normalized;
use super::state::ApprovalRec;
use crate::governor::wire::ApprovalDecisionStatus;

/// The indexes.
#[derive(Debug, Default)]
pub(crate) struct ApprovalIndex {
    /// Pending approvals by (created at, id): the queue, oldest first.
    pub(crate) pending: BTreeSet<(i64, String)>,
    /// Pending approvals per normalized `requestedBy`.
    pub(crate) pending_by: BTreeMap<String, u32>,
    /// Pending approvals by (expires at, id).
    pub(crate) expiry: BTreeSet<(i64, String)>,
    /// Every approval by (forget at, id).
    pub(crate) retention: BTreeSet<(i64, String)>,
    /// Token SHA-256 hex -> approval id.
    pub(crate) tokens: HashMap<String, String>,
}

impl ApprovalIndex {
    /// Adds (or removes) the entries of `a`.
    pub(crate) fn apply(&mut self, a: &ApprovalRec, add: bool) {
        if a.status == ApprovalDecisionStatus::Pending {
            let by = normalized(&a.request.requested_by);
            let queue = (a.created_at, a.id.clone());
            let exp = (a.expires_at, a.id.clone());
            if add {
                self.pending.insert(queue);
                self.expiry.insert(exp);
                *self.pending_by.entry(by).or_default() += 1;
            } else {
                self.pending.remove(&queue);
                self.expiry.remove(&exp);
                if let Some(n) = self.pending_by.get_mut(&by) {
                    *n = n.saturating_sub(1);
                    if *n == 0 {
                        self.pending_by.remove(&by);
                    }
                }
            }
        }
        let keep = (a.retain_until, a.id.clone());
        if add {
            self.retention.insert(keep);
        } else {
            self.retention.remove(&keep);
        }
        if !a.token_hash.is_empty() {
            if add {
                self.tokens.insert(a.token_hash.clone(), a.id.clone());
            } else if self.tokens.get(&a.token_hash) == Some(&a.id) {
                self.tokens.remove(&a.token_hash);
            }
        }
    }

    /// Pending approvals of a requester (any spelling of the id).
    pub(crate) fn pending_of(&self, requested_by: &str) -> u32 {
        self.pending_by
            .get(&normalized(requested_by))
            .copied()
            .unwrap_or(0)
    }
}

impl Engine {
    /// Stores `a` (new or changed), keeping the indexes exact, and marks its row changed.
    pub(crate) fn put_approval(&mut self, a: ApprovalRec) {
        let id = a.id.clone();
        if let Some(old) = self.st.approvals.remove(&id) {
            self.approval_index.apply(&old, false);
        }
        self.approval_index.apply(&a, true);
        self.st.approvals.insert(id.clone(), a);
        self.touch_approval(&id);
    }

    /// Forgets an approval, keeping the indexes exact, and marks its row changed.
    pub(crate) fn drop_approval(&mut self, id: &str) {
        if let Some(old) = self.st.approvals.remove(id) {
            self.approval_index.apply(&old, false);
            self.touch_approval(id);
        }
    }

    /// Rebuilds the approval indexes from the state.
    pub(crate) fn rebuild_approval_index(&mut self) {
        let mut idx = ApprovalIndex::default();
        for a in self.st.approvals.values() {
            idx.apply(a, true);
        }
        self.approval_index = idx;
    }

    /// A refreshed row: replaces (or removes) the approval without marking it changed.
    pub(crate) fn refresh_approval(&mut self, id: String, rec: Option<ApprovalRec>) {
        if let Some(old) = self.st.approvals.remove(&id) {
            self.approval_index.apply(&old, false);
        }
        if let Some(r) = rec {
            self.approval_index.apply(&r, true);
            self.st.approvals.insert(id, r);
        }
    }
}
