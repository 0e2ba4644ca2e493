//! Refreshing the state image (SEMANTICS 13.12): when several governors share one store, each
//! batch transaction first locks the store's meta row and brings this engine's image up to
//! date with what the others committed since it last looked: the meta row replaces ours,
//! changed rows are upserted or removed, and a policy another governor activated is
//! installed. Only then does the engine decide.

use super::{Engine, internal};
use crate::governor::policy::Policy;
use crate::governor::store::Table;

impl Engine {
    /// Applies what other writers committed: the whole `meta` row and the rows written since
    /// the version this image last saw (`None` body: the row was deleted). Refused while this
    /// engine holds changes not yet taken ([`Engine::take_changes`]): they were decided on the
    /// old image.
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
        let bad =
            |what: &str, e: serde_json::Error| internal(&format!("stored {what} is corrupt: {e}"));
        let meta: super::state::Meta = serde_json::from_str(meta).map_err(|e| bad("meta", e))?;
        // Parse everything before changing anything: a corrupt row leaves the image as it was.
        let mut leases = Vec::new();
        let mut approvals = Vec::new();
        let mut idem = Vec::new();
        for (t, id, body) in rows {
            match t {
                Table::Lease => leases.push((
                    id,
                    body.map(|b| serde_json::from_str(&b))
                        .transpose()
                        .map_err(|e| bad("lease", e))?,
                )),
                Table::Approval => approvals.push((
                    id,
                    body.map(|b| serde_json::from_str(&b))
                        .transpose()
                        .map_err(|e| bad("approval", e))?,
                )),
                Table::Idem => idem.push((
                    id,
                    body.map(|b| serde_json::from_str(&b))
                        .transpose()
                        .map_err(|e| bad("idem", e))?,
                )),
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
        for (id, rec) in leases {
            match rec {
                Some(r) => self.st.leases.insert(id, r),
                None => self.st.leases.remove(&id),
            };
        }
        for (id, rec) in approvals {
            match rec {
                Some(r) => self.st.approvals.insert(id, r),
                None => self.st.approvals.remove(&id),
            };
        }
        for (id, rec) in idem {
            match rec {
                Some(r) => self.st.idem.insert(id, r),
                None => self.st.idem.remove(&id),
            };
        }
        if let Some(p) = policy {
            self.install_policy(p);
        }
        Ok(())
    }

    /// True when changes are waiting for [`Engine::take_changes`].
    pub fn has_changes(&self) -> bool {
        !(self.audit_lines.is_empty()
            && self.dirty_leases.is_empty()
            && self.dirty_approvals.is_empty()
            && self.dirty_idem.is_empty()
            && !self.dirty_meta)
    }
}
