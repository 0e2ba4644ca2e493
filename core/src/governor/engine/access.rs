//! Lease ownership for daemon peers (SEMANTICS 13.14): a lease acquired through a daemon
//! records its peer uid, and every command on a lease (release, sub-lease, tool call,
//! `Authorize`) from another uid behaves exactly as for a lease that does not exist.
//! Idempotency keys and safety state are scoped by uid as well ([`super::keys`]), so another
//! uid never gets a replay of a grant it did not make nor trips another uid's safety state.
//! In process (`caller` is `None`) every lease is visible.

use super::Engine;
use super::state::LeaseRec;

impl Engine {
    /// Sets the peer uid the next command acts for (`None`: in process).
    pub fn set_caller(&mut self, uid: Option<u32>) {
        self.caller = uid;
    }

    /// May the current caller act on this lease?
    pub(crate) fn visible(&self, l: &LeaseRec) -> bool {
        match self.caller {
            None => true,
            // A lease without an owner was acquired in process: no peer may act on it.
            Some(uid) => l.owner_uid == Some(uid),
        }
    }

    /// True when the lease exists and the current caller may not act on it.
    pub(crate) fn foreign(&self, id: &str) -> bool {
        self.st.leases.get(id).is_some_and(|l| !self.visible(l))
    }
}
