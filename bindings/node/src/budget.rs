//! Budgets: `CURRENCY:AMOUNT` entries and exact decimal amounts (as strings).

use napi_derive::napi;
use serde_json::Value;

use crate::boundary::{Result, run};
use crate::compiled::{LeaseArg, lease_arg};
use crate::convert::{AmountInput, amount_from_js, decimal_map_to_js};

/// A parsed `cost.budget` entry.
#[napi(object)]
pub struct BudgetAmount {
    /// The currency, case-sensitive (`usd` is not `USD`).
    pub currency: String,
    /// The exact amount as a normalized decimal string (no trailing zeros), e.g. `"2.5"`.
    pub amount: String,
}

/// Parses a `cost.budget` entry such as `"USD:2.50"`. Throws `InvalidRequestError` when
/// the currency or amount is invalid.
#[napi]
pub fn parse_budget_amount(entry: String) -> Result<BudgetAmount> {
    run(|| {
        let parsed = leasekit::parse_budget_amount(&entry)?;
        Ok(BudgetAmount {
            amount: leasekit::format_amount(&parsed.amount),
            currency: parsed.currency,
        })
    })
}

/// Parses an AMOUNT (a decimal string, a number through its shortest decimal form, or a
/// bigint) and returns it normalized, e.g. `parseAmount(0.3) === "0.3"`.
#[napi(ts_args_type = "amount: AmountInput")]
pub fn parse_amount(amount: AmountInput) -> Result<String> {
    run(|| amount_from_js(&amount).map(|d| leasekit::format_amount(&d)))
}

/// Sums `CURRENCY:AMOUNT` entries per currency: `{currency: "decimal"}`.
#[napi(ts_return_type = "Record<string, string>")]
pub fn sum_budget_entries(entries: Vec<String>) -> Result<Value> {
    run(|| leasekit::sum_budget_entries(&entries).map(|m| decimal_map_to_js(&m)))
}

/// The initial budget counters of a lease (its summed `cost.budget`): `{currency: "decimal"}`.
#[napi(
    ts_args_type = "lease: LeaseInput",
    ts_return_type = "Record<string, string>"
)]
pub fn initial_budget_from_lease(lease: LeaseArg<'_>) -> Result<Value> {
    run(|| lease_arg(&lease).map(|l| decimal_map_to_js(&leasekit::initial_budget(&l))))
}
