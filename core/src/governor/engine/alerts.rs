//! Budget alerts (`budgetAlertThresholdsPercent`, SEMANTICS 13.15 Audit records): when a
//! command changes a budget's use (a grant's reservation, a release settled the same UTC
//! day), every threshold that use now reaches and that was not raised for that budget that
//! day is raised: one `budget_threshold_crossed` audit record each, after the command's own
//! record, and a [`BudgetAlert`] for the observer once the command is committed. A budget's
//! use is what admission counts against it: reservations of live leases plus settled spend.
//! The thresholds raised are stored with the budget's day counter, so a restart or another
//! governor of a fleet never raises them again that day; the day roll re-arms them.

use super::Engine;
use crate::governor::observe::BudgetAlert;
use crate::governor::wire::AcquireRequest;

/// Whether `used` cents of a `limit` reach `percent` percent of it (exact: integer
/// arithmetic on 128 bits). Nothing used reaches nothing, so a budget of 0 alerts only once
/// something is counted in it.
pub(crate) fn reaches(used: u64, limit: u64, percent: u8) -> bool {
    used > 0 && u128::from(used) * 100 >= u128::from(percent) * u128::from(limit)
}

/// The thresholds of `thresholds` that `used` reaches and `raised` does not hold yet.
fn due(thresholds: &[u8], raised: &[u8], used: u64, limit: u64) -> Vec<u8> {
    thresholds
        .iter()
        .copied()
        .filter(|t| !raised.contains(t) && reaches(used, limit, *t))
        .collect()
}

/// Audit records hold cents as JSON integers.
fn cents(v: u64) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

/// Whether a request counts in the scoped budget `kind` of `id`.
fn in_scope(kind: &str, id: &str, r: &AcquireRequest) -> bool {
    match kind {
        "org" => r.org_id == id,
        "workspace" => r.workspace_id == id,
        "actor" => r.actor_id == id,
        _ => true,
    }
}

impl Engine {
    /// Takes the alerts raised by the current command (reported once it is committed).
    pub fn take_alerts(&mut self) -> Vec<BudgetAlert> {
        std::mem::take(&mut self.alerts)
    }

    /// Raises the alerts due on the budgets lease `lease_id` counts in (the daily budget and
    /// its org, workspace and actor budgets where the policy sets one) after the current
    /// command changed their use. Nothing when the policy sets no thresholds, the lease is of
    /// an earlier day or the audit log cannot be written.
    pub(crate) fn check_budget_alerts(&mut self, lease_id: &str) {
        let thresholds: Vec<u8> = match &self.policy.doc().budget_alert_thresholds_percent {
            Some(t) if !t.is_empty() => t.iter().map(|p| *p as u8).collect(),
            _ => return,
        };
        let today = self.today();
        let Some(l) = self.st.leases.get(lease_id).filter(|l| l.day == today) else {
            return;
        };
        if !self.audit_ok {
            return;
        }
        let ids = [
            ("org", l.request.org_id.clone()),
            ("workspace", l.request.workspace_id.clone()),
            ("actor", l.request.actor_id.clone()),
        ];
        let (used, limit) = (
            self.st.meta.pools.budget_used,
            self.settings.daily_budget_cents,
        );
        let raise = due(&thresholds, &self.st.meta.pools.alerted, used, limit);
        if !raise.is_empty() {
            let alerted = &mut self.st.meta.pools.alerted;
            alerted.extend(&raise);
            alerted.sort_unstable();
            self.touch_meta();
            self.raise("daily", "", &raise, used, limit, lease_id);
        }
        for (kind, id) in ids {
            let doc = self.policy.doc();
            let (prefix, limit) = match kind {
                "org" => ("org:", &doc.org_daily_budget_cents),
                "workspace" => ("ws:", &doc.workspace_daily_budget_cents),
                _ => ("actor:", &doc.actor_daily_budget_cents),
            };
            let Some(limit) = limit.as_ref().and_then(|l| l.for_id(&id)) else {
                continue;
            };
            let key = format!("{prefix}{id}");
            let Some(c) = self.st.meta.scoped.get_mut(&key).filter(|c| c.day == today) else {
                continue;
            };
            let raise = due(&thresholds, &c.alerted, c.used, limit);
            if raise.is_empty() {
                continue;
            }
            c.alerted.extend(&raise);
            c.alerted.sort_unstable();
            let used = c.used;
            self.touch_scope(&key);
            self.raise(kind, &id, &raise, used, limit, lease_id);
        }
    }

    /// Cents reserved today by live leases whose request counts in budget `kind` of `id`.
    fn reserved_in(&self, kind: &str, id: &str) -> u64 {
        let today = self.today();
        self.expiry
            .iter()
            .filter_map(|(_, lid)| self.st.leases.get(lid))
            .filter(|l| l.day == today && in_scope(kind, id, &l.request))
            .fold(0u64, |sum, l| sum.saturating_add(l.reserved))
    }

    /// Writes one record per threshold in `raise` and queues its alert.
    fn raise(
        &mut self,
        kind: &'static str,
        id: &str,
        raise: &[u8],
        used: u64,
        limit: u64,
        lease: &str,
    ) {
        let reserved = self.reserved_in(kind, id).min(used);
        let spent = used - reserved;
        for percent in raise {
            let mut rec = self.record("budget_threshold_crossed");
            rec.s("scope", kind)
                .s("scopeId", id)
                .i("thresholdPercent", i64::from(*percent))
                .i("usedCents", cents(used))
                .i("spentCents", cents(spent))
                .i("reservedCents", cents(reserved))
                .i("limitCents", cents(limit))
                .s("leaseId", lease);
            let Some(entry_hash) = self.audit(rec) else {
                continue;
            };
            self.alerts.push(BudgetAlert {
                scope: kind,
                scope_id: id.to_string(),
                threshold_percent: *percent,
                used_cents: used,
                spent_cents: spent,
                reserved_cents: reserved,
                limit_cents: limit,
                entry_hash,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::reaches;

    #[test]
    fn a_threshold_is_reached_at_its_exact_share_of_the_limit() {
        assert!(!reaches(49, 100, 50));
        assert!(reaches(50, 100, 50));
        assert!(reaches(1, 3, 33), "1/3 is 33.3 %: past 33");
        assert!(!reaches(1, 3, 34));
        assert!(reaches(u64::MAX, u64::MAX, 100), "no overflow at the top");
        assert!(!reaches(u64::MAX - 1, u64::MAX, 100));
        assert!(!reaches(0, 0, 1), "nothing used reaches nothing");
        assert!(
            reaches(1, 0, 100),
            "any use of a budget of 0 is past every threshold"
        );
    }
}
