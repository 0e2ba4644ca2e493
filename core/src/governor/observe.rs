//! Figures a governor reports as it works, for a metrics exporter: how long each store commit
//! took and whether it failed, how long a fleet's wait for durability took, how each
//! release ended, and each budget alert once it is committed. Set one [`GovernorObserver`] with [`super::Governor::set_observer`]; without
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

    /// A budget crossed one of the policy's `budgetAlertThresholdsPercent`; its
    /// `budget_threshold_crossed` audit record is committed. Called once per alert, after the
    /// command that raised it committed (an alert of a command that failed is never reported).
    fn budget_threshold_crossed(&self, alert: &BudgetAlert) {
        let _ = alert;
    }
}

/// Every budget kind a [`BudgetAlert`] names: the daily budget (`dailyBudgetCents`) and the
/// org, workspace and actor daily budgets.
pub const BUDGET_SCOPES: [&str; 4] = ["daily", "org", "workspace", "actor"];

/// One budget alert: a threshold of a budget reached for the first time in its UTC day.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BudgetAlert {
    /// The budget's kind: one of [`BUDGET_SCOPES`].
    pub scope: &'static str,
    /// The org, workspace or actor id of a scoped budget (`""` for the daily budget). It is
    /// the id a request declared: client text unless the policy's `uidBindings` binds it.
    pub scope_id: String,
    /// The threshold reached (percent of the limit, 1-100).
    pub threshold_percent: u8,
    /// The budget's use that day: `spent_cents + reserved_cents`.
    pub used_cents: u64,
    /// Settled spend (releases' actuals and expired leases' reservations).
    pub spent_cents: u64,
    /// Reservations of live leases.
    pub reserved_cents: u64,
    /// The budget's limit for the day.
    pub limit_cents: u64,
    /// The `entryHash` of the alert's audit record.
    pub entry_hash: String,
}

/// Every outcome [`GovernorObserver::release`] reports: the release classifications, and
/// `error` for a release refused before it was classified (bad payload, store failure).
pub const RELEASE_OUTCOMES: [&str; 4] = ["recorded", "leaseNotFound", "leaseExpired", "error"];
