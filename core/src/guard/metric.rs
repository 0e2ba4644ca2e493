//! The metric a guard asks the runtime to emit (`cost.budget.remaining`, SEMANTICS 6).

use crate::budget::{Decimal, format_amount};
use serde::Serialize;

/// The name of emitted remaining metrics.
pub const REMAINING_METRIC: &str = "cost.budget.remaining";

/// A metric the runtime should emit (`cost.budget.remaining`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Metric {
    /// Always `cost.budget.remaining` for emitted metrics.
    pub name: String,
    /// The remaining amount (serialized as a decimal string).
    #[serde(serialize_with = "ser_decimal")]
    pub value: Decimal,
    /// The currency.
    pub unit: String,
}

impl Metric {
    /// The `cost.budget.remaining` metric for `currency` at `value`.
    pub(crate) fn remaining(currency: &str, value: Decimal) -> Metric {
        Metric {
            name: REMAINING_METRIC.to_string(),
            value,
            unit: currency.to_string(),
        }
    }
}

fn ser_decimal<S: serde::Serializer>(d: &Decimal, s: S) -> std::result::Result<S::Ok, S::Error> {
    s.serialize_str(&format_amount(d))
}
