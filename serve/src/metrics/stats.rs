//! Counters the daemon keeps for its metrics whether or not an endpoint serves them: plain
//! atomics bumped on the hot paths (connection accept and refusal, each command), read at
//! scrape time.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use leasekit::governor::wire::Command;
use leasekit::governor::{BUDGET_SCOPES, BudgetAlert, GovernorObserver, RELEASE_OUTCOMES};
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};

/// Why a connection (or its request) was refused: the `reason` label of
/// `leasekit_connections_refused_total`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// `--max-connections` reached.
    TooMany,
    /// `--max-connections-per-uid` reached for the peer's uid.
    TooManyForUid,
    /// The peer's credentials could not be read (no uid, no service).
    NoCredentials,
    /// A request frame over the size limit, or no room in the shared request buffers.
    Oversized,
}

impl Refusal {
    /// Every reason, in label order.
    pub const ALL: [Refusal; 4] = [
        Refusal::TooMany,
        Refusal::TooManyForUid,
        Refusal::NoCredentials,
        Refusal::Oversized,
    ];

    /// The label value.
    pub fn as_str(self) -> &'static str {
        match self {
            Refusal::TooMany => "too_many",
            Refusal::TooManyForUid => "too_many_for_uid",
            Refusal::NoCredentials => "no_credentials",
            Refusal::Oversized => "oversized",
        }
    }
}

/// Transport counters of the Unix socket.
#[derive(Debug, Default)]
pub struct TransportStats {
    accepted: AtomicU64,
    refused: [AtomicU64; 4],
    open: AtomicU64,
}

impl TransportStats {
    /// A connection was accepted (and is open until [`TransportStats::closed`]).
    pub fn accepted(&self) {
        self.accepted.fetch_add(1, Ordering::Relaxed);
        self.open.fetch_add(1, Ordering::Relaxed);
    }

    /// An accepted connection ended.
    pub fn closed(&self) {
        self.open.fetch_sub(1, Ordering::Relaxed);
    }

    /// A connection or its request was refused.
    pub fn refused(&self, why: Refusal) {
        let i = Refusal::ALL.iter().position(|r| *r == why).unwrap_or(0);
        self.refused[i].fetch_add(1, Ordering::Relaxed);
    }

    /// Connections accepted so far.
    pub fn accepted_total(&self) -> u64 {
        self.accepted.load(Ordering::Relaxed)
    }

    /// Refusals for `why` so far.
    pub fn refused_total(&self, why: Refusal) -> u64 {
        let i = Refusal::ALL.iter().position(|r| *r == why).unwrap_or(0);
        self.refused[i].load(Ordering::Relaxed)
    }

    /// Connections open now.
    pub fn open(&self) -> u64 {
        self.open.load(Ordering::Relaxed)
    }
}

/// The `command` label of a command name that is not a governor command.
pub const UNKNOWN_COMMAND: &str = "unknown";

/// Commands answered, by command and result.
#[derive(Debug)]
pub struct CommandStats {
    /// Per command of [`Command::ALL`] then one for unknown names: [success, failure].
    counts: Vec<[AtomicU64; 2]>,
}

impl Default for CommandStats {
    fn default() -> Self {
        CommandStats {
            counts: (0..=Command::ALL.len())
                .map(|_| Default::default())
                .collect(),
        }
    }
}

impl CommandStats {
    /// Counts one answer to `command` (the client's string: only a known name is kept).
    pub fn record(&self, command: &str, success: bool) {
        let i = Command::parse(command)
            .and_then(|c| Command::ALL.iter().position(|k| *k == c))
            .unwrap_or(Command::ALL.len());
        self.counts[i][usize::from(!success)].fetch_add(1, Ordering::Relaxed);
    }

    /// `(command label, successes, failures)` for every command, unknown names last.
    pub fn snapshot(&self) -> Vec<(&'static str, u64, u64)> {
        let names = Command::ALL
            .iter()
            .map(|c| c.as_str())
            .chain([UNKNOWN_COMMAND]);
        names
            .zip(&self.counts)
            .map(|(n, [ok, fail])| (n, ok.load(Ordering::Relaxed), fail.load(Ordering::Relaxed)))
            .collect()
    }
}

/// The governor's store and release figures ([`GovernorObserver`]).
#[derive(Debug)]
pub struct StoreStats {
    /// Store commit latency (seconds).
    pub commit_seconds: Histogram,
    /// Fleet settle latency (seconds).
    pub settle_seconds: Histogram,
    commit_errors: AtomicU64,
    settle_errors: AtomicU64,
    releases: [AtomicU64; 4],
    /// Budget alerts by kind ([`BUDGET_SCOPES`]) and threshold (index `percent - 1`).
    alerts: [[AtomicU64; 100]; 4],
}

impl Default for StoreStats {
    fn default() -> Self {
        // 50 us .. ~3.3 s, doubling.
        let buckets = || Histogram::new(exponential_buckets(0.00005, 2.0, 17));
        StoreStats {
            commit_seconds: buckets(),
            settle_seconds: buckets(),
            commit_errors: AtomicU64::new(0),
            settle_errors: AtomicU64::new(0),
            releases: Default::default(),
            alerts: std::array::from_fn(|_| std::array::from_fn(|_| AtomicU64::new(0))),
        }
    }
}

impl StoreStats {
    /// Failed commits so far.
    pub fn commit_errors(&self) -> u64 {
        self.commit_errors.load(Ordering::Relaxed)
    }

    /// Failed waits for durability so far.
    pub fn settle_errors(&self) -> u64 {
        self.settle_errors.load(Ordering::Relaxed)
    }

    /// `(scope, threshold percent, count)` of every budget alert reported so far.
    pub fn budget_alerts(&self) -> Vec<(&'static str, u8, u64)> {
        let mut out = Vec::new();
        for (scope, row) in BUDGET_SCOPES.iter().zip(&self.alerts) {
            for (i, n) in row.iter().enumerate() {
                let n = n.load(Ordering::Relaxed);
                if n > 0 {
                    out.push((*scope, i as u8 + 1, n));
                }
            }
        }
        out
    }

    /// `(outcome, count)` for every release outcome.
    pub fn releases(&self) -> Vec<(&'static str, u64)> {
        RELEASE_OUTCOMES
            .iter()
            .zip(&self.releases)
            .map(|(o, n)| (*o, n.load(Ordering::Relaxed)))
            .collect()
    }
}

impl GovernorObserver for StoreStats {
    fn store_commit(&self, elapsed: Duration, ok: bool) {
        self.commit_seconds.observe(elapsed.as_secs_f64());
        if !ok {
            self.commit_errors.fetch_add(1, Ordering::Relaxed);
        }
    }

    fn fleet_settle(&self, elapsed: Duration, ok: bool) {
        self.settle_seconds.observe(elapsed.as_secs_f64());
        if !ok {
            self.settle_errors.fetch_add(1, Ordering::Relaxed);
        }
    }

    fn release(&self, outcome: &'static str) {
        let i = RELEASE_OUTCOMES
            .iter()
            .position(|o| *o == outcome)
            .unwrap_or(RELEASE_OUTCOMES.len() - 1);
        self.releases[i].fetch_add(1, Ordering::Relaxed);
    }

    fn budget_threshold_crossed(&self, alert: &BudgetAlert) {
        let scope = BUDGET_SCOPES.iter().position(|s| *s == alert.scope);
        let percent = usize::from(alert.threshold_percent);
        if let Some(row) = scope.and_then(|s| self.alerts.get(s))
            && let Some(n) = percent.checked_sub(1).and_then(|i| row.get(i))
        {
            n.fetch_add(1, Ordering::Relaxed);
        }
        crate::logging::budget_alert(alert);
    }
}
