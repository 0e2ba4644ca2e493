//! The exposition: every `leasekit_` metric, read at scrape time from the governor's gauges
//! and the daemon's counters, encoded by `prometheus-client` in the Prometheus text format.
//! Every label value comes from a fixed set (reason codes, command names, release outcomes,
//! refusal reasons) or from the policy (scoped-budget ids, capped); none comes from a client.

use std::fmt::Write as _;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use leasekit::governor::{
    ACQUIRE_DENIAL_CODES, BUDGET_SCOPES, GRANT_REASONS, Governor, GovernorGauges,
};
use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric};
use prometheus_client::metrics::MetricType;
use prometheus_client::metrics::counter::ConstCounter;
use prometheus_client::metrics::gauge::ConstGauge;
use prometheus_client::registry::Registry;

use super::stats::{CommandStats, Refusal, StoreStats, TransportStats};
use crate::limits::{ByteBudget, UidConnections};

/// The label value of a reason outside the fixed set (never expected; counted, not named).
pub const OTHER: &str = "other";

/// Everything a scrape reads.
#[derive(Debug, Clone)]
pub struct Sources {
    /// The governor (its gauges are read without running a command).
    pub governor: Governor,
    /// Commands answered.
    pub commands: Arc<CommandStats>,
    /// Store commits and releases.
    pub store: Arc<StoreStats>,
    /// The socket's connections.
    pub transport: Arc<TransportStats>,
    /// Request bytes buffered across connections.
    pub budget: Arc<ByteBudget>,
    /// Connections per uid.
    pub uids: Arc<UidConnections>,
    /// `--max-connections`.
    pub max_connections: usize,
    /// Scrapes refused because every scrape slot was taken.
    pub scrapes_refused: Arc<AtomicU64>,
}

/// Renders the exposition.
#[derive(Debug)]
pub struct Exporter {
    registry: Registry,
}

impl Exporter {
    /// An exporter over `sources`.
    pub fn new(sources: Sources) -> Exporter {
        let mut registry = Registry::default();
        registry.register(
            "leasekit_store_commit_seconds",
            "Time of one store commit (a batch of commands), seconds",
            sources.store.commit_seconds.clone(),
        );
        registry.register(
            "leasekit_fleet_settle_seconds",
            "Time a fleet member waits for a committed batch to be durable (PostgreSQL store only), seconds",
            sources.store.settle_seconds.clone(),
        );
        registry.register_collector(Box::new(Live(sources)));
        Exporter { registry }
    }

    /// The exposition in the OpenMetrics text format (ends with `# EOF`).
    pub fn render_openmetrics(&self) -> String {
        let mut out = String::with_capacity(16 * 1024);
        if prometheus_client::encoding::text::encode(&mut out, &self.registry).is_err() {
            out.clear();
            let _ = writeln!(out, "# EOF");
        }
        out
    }

    /// The exposition in the Prometheus text format 0.0.4 (what a scraper gets unless it
    /// asks for OpenMetrics).
    pub fn render(&self) -> String {
        to_prometheus_text(&self.render_openmetrics())
    }
}

/// Turns `prometheus-client`'s OpenMetrics text into the Prometheus text format 0.0.4: the
/// two differ, for what this exporter writes, only in a counter family's name (OpenMetrics
/// names the family `x` and its sample `x_total`; 0.0.4 names both `x_total`) and in the
/// `# EOF` line.
pub fn to_prometheus_text(openmetrics: &str) -> String {
    let counters: std::collections::HashSet<&str> = openmetrics
        .lines()
        .filter_map(|l| l.strip_prefix("# TYPE "))
        .filter_map(|l| l.strip_suffix(" counter"))
        .collect();
    let mut out = String::with_capacity(openmetrics.len());
    for line in openmetrics.lines() {
        if line == "# EOF" {
            continue;
        }
        let renamed = ["# HELP ", "# TYPE "].iter().find_map(|p| {
            let rest = line.strip_prefix(p)?;
            let (name, tail) = rest.split_once(' ')?;
            counters
                .contains(name)
                .then(|| format!("{p}{name}_total {tail}"))
        });
        match renamed {
            Some(l) => out.push_str(&l),
            None => out.push_str(line),
        }
        out.push('\n');
    }
    out
}

#[derive(Debug)]
struct Live(Sources);

type R = Result<(), std::fmt::Error>;

fn gauge(e: &mut DescriptorEncoder, name: &str, help: &str, v: u64) -> R {
    let m = e.encode_descriptor(name, help, None, MetricType::Gauge)?;
    ConstGauge::new(v as i64).encode(m)
}

fn counter(e: &mut DescriptorEncoder, name: &str, help: &str, v: u64) -> R {
    let m = e.encode_descriptor(name, help, None, MetricType::Counter)?;
    ConstCounter::new(v).encode(m)
}

/// A labelled family of counters or gauges: `rows` are (label values, value).
fn family(
    e: &mut DescriptorEncoder,
    name: &str,
    help: &str,
    kind: MetricType,
    labels: &[&str],
    rows: &[(Vec<String>, u64)],
) -> R {
    let mut d = e.encode_descriptor(name, help, None, kind)?;
    for (values, v) in rows {
        let set: Vec<(String, String)> = labels
            .iter()
            .map(|l| l.to_string())
            .zip(values.iter().cloned())
            .collect();
        let m = d.encode_family(&set)?;
        match kind {
            MetricType::Counter => ConstCounter::new(*v).encode(m)?,
            _ => ConstGauge::new(*v as i64).encode(m)?,
        }
    }
    Ok(())
}

/// Counts by a fixed set of keys: every key of `fixed` (0 when absent), then anything else
/// summed under [`OTHER`] (only when there is some).
fn fixed_rows(
    fixed: &[&str],
    counts: &std::collections::BTreeMap<String, u64>,
) -> Vec<(Vec<String>, u64)> {
    let mut rows: Vec<(Vec<String>, u64)> = fixed
        .iter()
        .map(|k| (vec![k.to_string()], counts.get(*k).copied().unwrap_or(0)))
        .collect();
    let other: u64 = counts
        .iter()
        .filter(|(k, _)| !fixed.contains(&k.as_str()))
        .map(|(_, v)| *v)
        .fold(0, u64::saturating_add);
    if other > 0 {
        rows.push((vec![OTHER.to_string()], other));
    }
    rows
}

/// One row per budget kind and threshold of the active policy (0 until raised), plus any
/// threshold raised under an earlier policy: at most 4 x 100 series, labels from fixed sets.
fn alert_rows(thresholds: &[u8], raised: &[(&'static str, u8, u64)]) -> Vec<(Vec<String>, u64)> {
    let mut keys: std::collections::BTreeSet<(usize, u8)> = std::collections::BTreeSet::new();
    for (i, _) in BUDGET_SCOPES.iter().enumerate() {
        keys.extend(thresholds.iter().map(|t| (i, *t)));
    }
    for (scope, t, _) in raised {
        if let Some(i) = BUDGET_SCOPES.iter().position(|s| s == scope) {
            keys.insert((i, *t));
        }
    }
    keys.into_iter()
        .map(|(i, t)| {
            let scope = BUDGET_SCOPES[i];
            let n = raised
                .iter()
                .find(|(s, p, _)| *s == scope && *p == t)
                .map_or(0, |(_, _, n)| *n);
            (vec![scope.to_string(), t.to_string()], n)
        })
        .collect()
}

impl Collector for Live {
    fn encode(&self, mut e: DescriptorEncoder) -> R {
        let s = &self.0;
        let g: GovernorGauges = s.governor.gauges();
        let granted: u64 = g
            .grants_by_reason
            .values()
            .fold(0, |a, b| a.saturating_add(*b));
        let denied: u64 = g
            .denies_by_code
            .values()
            .fold(0, |a, b| a.saturating_add(*b));
        let e = &mut e;
        family(
            e,
            "leasekit_acquires",
            "Acquires decided, by outcome (counted by the governor's store: survives restarts)",
            MetricType::Counter,
            &["outcome"],
            &[
                (vec!["granted".into()], granted),
                (vec!["denied".into()], denied),
            ],
        )?;
        family(
            e,
            "leasekit_acquire_denials",
            "Acquires denied, by reason code",
            MetricType::Counter,
            &["reason"],
            &fixed_rows(&ACQUIRE_DENIAL_CODES, &g.denies_by_code),
        )?;
        family(
            e,
            "leasekit_acquire_grants",
            "Acquires granted, by reason (granted, or the automatic adjustment applied)",
            MetricType::Counter,
            &["reason"],
            &fixed_rows(&GRANT_REASONS, &g.grants_by_reason),
        )?;
        let releases: Vec<(Vec<String>, u64)> = s
            .store
            .releases()
            .into_iter()
            .map(|(o, n)| (vec![o.to_string()], n))
            .collect();
        family(
            e,
            "leasekit_releases",
            "Releases answered by this daemon, by outcome",
            MetricType::Counter,
            &["outcome"],
            &releases,
        )?;
        let mut commands = Vec::new();
        for (name, ok, fail) in s.commands.snapshot() {
            commands.push((vec![name.to_string(), "success".into()], ok));
            commands.push((vec![name.to_string(), "failure".into()], fail));
        }
        family(
            e,
            "leasekit_commands",
            "Commands answered by this daemon, by command and result (success: false is failure)",
            MetricType::Counter,
            &["command", "result"],
            &commands,
        )?;
        gauge(e, "leasekit_leases_in_flight", "Live leases", g.in_flight)?;
        gauge(
            e,
            "leasekit_leases_in_flight_capacity",
            "The policy's maxInFlight",
            g.max_in_flight,
        )?;
        gauge(
            e,
            "leasekit_budget_used_cents",
            "Today's budget use: live reservations plus settled actuals, cents",
            g.budget_used_cents,
        )?;
        gauge(
            e,
            "leasekit_budget_reserved_cents",
            "The part of today's budget use held by live leases' reservations, cents",
            g.budget_reserved_cents,
        )?;
        gauge(
            e,
            "leasekit_budget_limit_cents",
            "The policy's dailyBudgetCents",
            g.daily_budget_cents,
        )?;
        let used: Vec<(Vec<String>, u64)> = g
            .scoped
            .iter()
            .map(|b| (vec![b.kind.to_string(), b.id.clone()], b.used_cents))
            .collect();
        let limits: Vec<(Vec<String>, u64)> = g
            .scoped
            .iter()
            .map(|b| (vec![b.kind.to_string(), b.id.clone()], b.limit_cents))
            .collect();
        family(
            e,
            "leasekit_scope_budget_used_cents",
            "Today's use of a scoped daily budget the policy sets per id, cents",
            MetricType::Gauge,
            &["scope", "id"],
            &used,
        )?;
        family(
            e,
            "leasekit_scope_budget_limit_cents",
            "A scoped daily budget the policy sets per id, cents",
            MetricType::Gauge,
            &["scope", "id"],
            &limits,
        )?;
        gauge(
            e,
            "leasekit_scope_budget_series_omitted",
            "Per-id scoped budgets of the policy not exported (over the cap of 100 series)",
            g.scoped_omitted,
        )?;
        family(
            e,
            "leasekit_budget_alerts",
            "Budget alerts this daemon reported (budget_threshold_crossed audit records), by budget kind and threshold percent",
            MetricType::Counter,
            &["scope", "threshold"],
            &alert_rows(&g.budget_alert_thresholds, &s.store.budget_alerts()),
        )?;
        gauge(
            e,
            "leasekit_rate_window_requests",
            "Requests admitted in the rate window",
            g.rate_requests,
        )?;
        gauge(
            e,
            "leasekit_rate_window_requests_limit",
            "The policy's maxRequestsPerMinute (0: none)",
            g.rate_requests_limit,
        )?;
        gauge(
            e,
            "leasekit_rate_window_tokens",
            "Tokens admitted in the rate window",
            g.rate_tokens,
        )?;
        gauge(
            e,
            "leasekit_rate_window_tokens_limit",
            "The policy's maxTokensPerMinute (0: none)",
            g.rate_tokens_limit,
        )?;
        gauge(
            e,
            "leasekit_approvals_pending",
            "Approvals waiting for a decision",
            g.pending_approvals,
        )?;
        counter(
            e,
            "leasekit_audit_records",
            "Audit records written (the chain's length)",
            g.audit_records,
        )?;
        counter(
            e,
            "leasekit_audit_write_failures",
            "Audit records that could not be written",
            g.failed_audit_writes,
        )?;
        counter(
            e,
            "leasekit_store_errors",
            "Store commits that failed or whose outcome is unknown",
            s.store.commit_errors(),
        )?;
        counter(
            e,
            "leasekit_fleet_settle_errors",
            "Waits for durability that failed (PostgreSQL store only)",
            s.store.settle_errors(),
        )?;
        gauge(
            e,
            "leasekit_connections_open",
            "Socket connections open",
            s.transport.open(),
        )?;
        gauge(
            e,
            "leasekit_connections_capacity",
            "--max-connections",
            s.max_connections as u64,
        )?;
        counter(
            e,
            "leasekit_connections_accepted",
            "Socket connections accepted",
            s.transport.accepted_total(),
        )?;
        let refused: Vec<(Vec<String>, u64)> = Refusal::ALL
            .iter()
            .map(|r| (vec![r.as_str().to_string()], s.transport.refused_total(*r)))
            .collect();
        family(
            e,
            "leasekit_connections_refused",
            "Socket connections or requests refused, by reason",
            MetricType::Counter,
            &["reason"],
            &refused,
        )?;
        gauge(
            e,
            "leasekit_peer_uids_connected",
            "Distinct peer uids with an open connection",
            s.uids.distinct() as u64,
        )?;
        gauge(
            e,
            "leasekit_buffered_bytes",
            "Request bytes buffered across connections",
            s.budget.used() as u64,
        )?;
        gauge(
            e,
            "leasekit_buffered_bytes_limit",
            "--max-buffered-bytes",
            s.budget.limit() as u64,
        )?;
        counter(
            e,
            "leasekit_metrics_scrapes_refused",
            "Metrics connections refused because every scrape slot was taken",
            s.scrapes_refused.load(Ordering::Relaxed),
        )?;
        Ok(())
    }
}
