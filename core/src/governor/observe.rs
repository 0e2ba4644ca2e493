//! Figures a governor reports as it works, for a metrics exporter: how long each store commit
//! took and whether it failed, how long a fleet's wait for durability took, and how each
//! release ended. Set one [`GovernorObserver`] with [`super::Governor::set_observer`]; without
//! one nothing is measured.

use std::time::Duration;

/// Receives a governor's figures. Called on the committing thread: keep it cheap (an atomic
/// add), never block.
pub trait GovernorObserver: Send + Sync {
    /// One store commit (a batch of one or more commands) took `elapsed`; `ok` false when
    /// it failed or its outcome is unknown.
    fn store_commit(&self, elapsed: Duration, ok: bool);

    /// A shared store's wait for a committed batch to be durable (PostgreSQL fleets).
    fn fleet_settle(&self, elapsed: Duration, ok: bool);

    /// A release ended with `outcome`: one of [`RELEASE_OUTCOMES`].
    fn release(&self, outcome: &'static str);
}

/// Every outcome [`GovernorObserver::release`] reports: the release classifications, and
/// `error` for a release refused before it was classified (bad payload, store failure).
pub const RELEASE_OUTCOMES: [&str; 4] = ["recorded", "leaseNotFound", "leaseExpired", "error"];
