//! Refreshing the state image (SEMANTICS 13.12): when several governors share one store, each
//! batch transaction first locks the store's meta row and brings this engine's image up to
//! date with what the others committed since it last looked: the meta row replaces ours,
//! changed rows are upserted or removed (with the derived expiry, retention and rate-window
//! indexes kept exact), and a policy another governor activated is installed. Only then does
//! the engine decide.

use super::state::{DayCounter, IdemRec, LeaseRec, LeaseStatus, RateEvent};
use super::{Engine, internal};
use crate::governor::policy::Policy;
use crate::governor::store::Table;

type Rows<T> = Vec<(String, Option<T>)>;

fn parse<T: serde::de::DeserializeOwned>(
    what: &str,
    body: Option<String>,
) -> crate::Result<Option<T>> {
    body.map(|b| serde_json::from_str(&b))
        .transpose()
        .map_err(|e| internal(&format!("stored {what} is corrupt: {e}")))
}

impl Engine {
    /// Applies what other writers committed: the whole `meta` row and the rows written since
    /// the version this image last saw (`None` body: the row was deleted). Refused while this
    /// engine holds changes not yet taken ([`Engine::take_changes`]): they were decided on the
    /// old image. A corrupt row is refused before anything changes.
    pub fn refresh(
        &mut self,
        meta: &str,
        rows: Vec<(Table, String, Option<String>)>,
    ) -> crate::Result<()> {
        if self.has_changes() {
            return Err(internal(
                "refresh refused: the engine holds changes not yet committed",
            ));
        }
        let meta: super::state::Meta = serde_json::from_str(meta)
            .map_err(|e| internal(&format!("stored meta is corrupt: {e}")))?;
        let mut leases: Rows<LeaseRec> = Vec::new();
        let mut approvals = Vec::new();
        let mut idem: Rows<IdemRec> = Vec::new();
        let mut rate: Rows<RateEvent> = Vec::new();
        let mut scopes: Rows<DayCounter> = Vec::new();
        for (t, id, body) in rows {
            match t {
                Table::Lease => leases.push((id, parse("lease", body)?)),
                Table::Approval => approvals.push((id, parse("approval", body)?)),
                Table::Idem => idem.push((id, parse("idem", body)?)),
                Table::Rate => rate.push((id, parse("rate event", body)?)),
                Table::Scope => scopes.push((id, parse("scoped counter", body)?)),
                // A shared store keeps policy contents in the meta row.
                Table::Policy => {
                    return Err(internal("refresh refused: a policy content row"));
                }
            }
        }
        let active = meta
            .policy
            .history
            .get(meta.policy.active)
            .ok_or_else(|| internal("stored policy history is empty"))?;
        let policy = if active.hash != self.policy.hash() {
            Some(Policy::with_hash(
                active.content.clone(),
                active.hash.clone(),
            )?)
        } else {
            None
        };
        self.st.meta = meta;
        for (key, counter) in scopes {
            match counter {
                Some(c) => self.st.meta.scoped.insert(key, c),
                None => self.st.meta.scoped.remove(&key),
            };
        }
        for (id, rec) in leases {
            if let Some(old) = self.st.leases.remove(&id) {
                self.index_lease(&old, false);
            }
            if let Some(r) = rec {
                self.index_lease(&r, true);
                self.st.leases.insert(id, r);
            }
        }
        for (id, rec) in approvals {
            self.refresh_approval(id, rec);
        }
        for (id, rec) in idem {
            let old = match rec {
                Some(r) => {
                    self.idem_order.insert((r.stored_at, id.clone()));
                    self.st.idem.insert(id.clone(), r)
                }
                None => self.st.idem.remove(&id),
            };
            if let Some(old) = old
                && self
                    .st
                    .idem
                    .get(&id)
                    .is_none_or(|r| r.stored_at != old.stored_at)
            {
                self.idem_order.remove(&(old.stored_at, id));
            }
        }
        // Events with one admission time are in admission order; an updated event keeps its
        // place, a new one goes after those of its time (the order only breaks ties the
        // window never looks at).
        for (key, ev) in rate {
            let found = key
                .split_once('|')
                .and_then(|(at, lease)| Some((at.parse::<i64>().ok()?, lease)))
                .and_then(|(at, lease)| self.find_rate(at, lease));
            match (found, ev) {
                (Some(i), Some(ev)) => {
                    let old = std::mem::replace(&mut self.st.rate[i], ev);
                    self.rate_tokens = self
                        .rate_tokens
                        .saturating_sub(old.tokens)
                        .saturating_add(self.st.rate[i].tokens);
                }
                (Some(i), None) => {
                    let old = self.st.rate.remove(i).expect("found");
                    self.rate_tokens = self.rate_tokens.saturating_sub(old.tokens);
                }
                (None, Some(ev)) => {
                    let at = ev.at;
                    let pos = self.st.rate.partition_point(|e| e.at <= at);
                    self.rate_tokens = self.rate_tokens.saturating_add(ev.tokens);
                    self.st.rate.insert(pos, ev);
                }
                (None, None) => {}
            }
        }
        if let Some(p) = policy {
            self.install_policy(p);
        }
        Ok(())
    }

    /// Adds (or removes) a lease's entries in the expiry and retention indexes.
    fn index_lease(&mut self, l: &LeaseRec, add: bool) {
        for s in l.subs.keys() {
            if add && l.status == LeaseStatus::Live {
                self.sub_owner.insert(s.clone(), l.id.clone());
            } else if self.sub_owner.get(s) == Some(&l.id) {
                self.sub_owner.remove(s);
            }
        }
        let entry = match l.status {
            LeaseStatus::Live => (true, (l.expires_at, l.id.clone())),
            _ => (false, (l.retain_until, l.id.clone())),
        };
        let set = if entry.0 {
            &mut self.expiry
        } else {
            &mut self.retention
        };
        if add {
            set.insert(entry.1);
        } else {
            set.remove(&entry.1);
        }
    }

    /// Rebuilds the derived indexes (expiry, retention, idempotency order, sub-lease owners,
    /// rate-window token sum, approvals) from the state.
    pub(crate) fn rebuild_indexes(&mut self) {
        self.expiry.clear();
        self.retention.clear();
        self.idem_order = self
            .st
            .idem
            .iter()
            .map(|(k, r)| (r.stored_at, k.clone()))
            .collect();
        self.sub_owner = self
            .st
            .leases
            .values()
            .filter(|l| l.status == LeaseStatus::Live)
            .flat_map(|l| l.subs.keys().map(|s| (s.clone(), l.id.clone())))
            .collect();
        self.rate_tokens = self
            .st
            .rate
            .iter()
            .fold(0u64, |sum, r| sum.saturating_add(r.tokens));
        let entries: Vec<_> = self
            .st
            .leases
            .values()
            .map(|l| (l.status, l.expires_at, l.retain_until, l.id.clone()))
            .collect();
        for (status, expires, retain, id) in entries {
            match status {
                LeaseStatus::Live => self.expiry.insert((expires, id)),
                _ => self.retention.insert((retain, id)),
            };
        }
        self.rebuild_approval_index();
    }

    /// True when changes are waiting for [`Engine::take_changes`].
    pub fn has_changes(&self) -> bool {
        !(self.audit_lines.is_empty()
            && self.dirty_leases.is_empty()
            && self.dirty_approvals.is_empty()
            && self.dirty_idem.is_empty()
            && self.dirty_rate_keys.is_empty()
            && self.dirty_scopes.is_empty()
            && !self.dirty_meta)
    }
}
