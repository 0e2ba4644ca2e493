//! Answer shapes: what the core hands back to a binding as JSON.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::to_value;
use crate::agentfile::AgentfileReport;
use crate::budget::{BudgetEntry, format_amount};
use crate::error::Result;
use crate::expiry::LeaseConstraints;
use crate::guard::Metric;
use crate::narrow::{Narrowed, Reduction};

/// A parsed `cost.budget` entry, `{"currency": "USD", "amount": "2.5"}` (amount normalized).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BudgetEntryAnswer {
    /// The currency, case-sensitive.
    pub currency: String,
    /// The normalized amount.
    pub amount: String,
}

impl From<&BudgetEntry> for BudgetEntryAnswer {
    fn from(e: &BudgetEntry) -> BudgetEntryAnswer {
        BudgetEntryAnswer {
            currency: e.currency.clone(),
            amount: format_amount(&e.amount),
        }
    }
}

impl BudgetEntryAnswer {
    /// As a JSON value.
    pub fn to_value(&self) -> Value {
        serde_json::json!({"currency": self.currency, "amount": self.amount})
    }
}

/// Emitted metrics as `[{"name", "value", "unit"}]`, values as normalized decimal strings.
pub fn metrics_value(metrics: &[Metric]) -> Result<Value> {
    to_value(&metrics)
}

/// [`metrics_value`] as JSON text.
pub fn metrics_json(metrics: &[Metric]) -> Result<String> {
    metrics_value(metrics).map(|v| v.to_string())
}

/// Narrowing reductions as `[{"capability", "pattern", "action", "replacement"}]`.
pub fn reductions_value(reductions: &[Reduction]) -> Result<Value> {
    to_value(&reductions)
}

/// [`reductions_value`] as JSON text.
pub fn reductions_json(reductions: &[Reduction]) -> Result<String> {
    reductions_value(reductions).map(|v| v.to_string())
}

/// The result of narrowing, `{"lease": {...}, "reductions": [...]}`.
#[derive(Clone, Debug, Serialize)]
pub struct NarrowedAnswer<'a> {
    /// The effective lease (stored, canonical patterns).
    pub lease: &'a crate::Lease,
    /// What was reduced, in capability order.
    pub reductions: &'a [Reduction],
}

impl<'a> From<&'a Narrowed> for NarrowedAnswer<'a> {
    fn from(n: &'a Narrowed) -> NarrowedAnswer<'a> {
        NarrowedAnswer {
            lease: &n.lease,
            reductions: &n.reductions,
        }
    }
}

impl NarrowedAnswer<'_> {
    /// As a JSON value.
    pub fn to_value(&self) -> Result<Value> {
        to_value(self)
    }

    /// As JSON text.
    pub fn to_json(&self) -> Result<String> {
        self.to_value().map(|v| v.to_string())
    }
}

/// Lease constraints as `{"expires_at": "..."}` or `{}`.
pub fn constraints_value(constraints: &LeaseConstraints) -> Value {
    constraints.to_value()
}

/// The Agentfile report, `{"ok": bool, "diagnostics": [...], "lease": {...} | null}`.
pub fn agentfile_report_value(report: &AgentfileReport) -> Result<Value> {
    to_value(report)
}
