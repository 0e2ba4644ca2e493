//! Budgets: `CURRENCY:AMOUNT` entries and exact decimal amounts (as strings).

use leasekit::{Error, wire};
use napi_derive::napi;
use serde_json::Value;

use crate::convert::{AmountInput, JsArg};
use crate::error::{Result, run};
use crate::lease::{LeaseArg, lease_arg};
use crate::text::Text;

/// Parses a `cost.budget` entry such as `"USD:2.50"`. Throws `InvalidRequestError` when
/// the currency or amount is invalid.
#[napi(ts_return_type = "BudgetAmount")]
pub fn parse_budget_amount(#[napi(ts_arg_type = "string")] entry: Text) -> Result<Value> {
    run(|| {
        let parsed = leasekit::parse_budget_amount(&entry)?;
        Ok(wire::BudgetEntryAnswer::from(&parsed).to_value())
    })
}

/// Parses an AMOUNT (a decimal string, a number through its shortest decimal form, or a
/// bigint) and returns it normalized, e.g. `parseAmount(0.3) === "0.3"`.
#[napi(ts_args_type = "amount: AmountInput")]
pub fn parse_amount(amount: AmountInput) -> Result<String> {
    run(|| amount.decimal().map(|d| leasekit::format_amount(&d)))
}

/// Sums `CURRENCY:AMOUNT` entries per currency: `{currency: "decimal"}`.
#[napi(
    ts_args_type = "entries: string[]",
    ts_return_type = "Record<string, string>"
)]
pub fn sum_budget_entries(entries: JsArg) -> Result<Value> {
    run(|| {
        let entries: Vec<String> = serde_json::from_value(entries.json()?)
            .map_err(|_| Error::invalid("entries must be an array of strings"))?;
        leasekit::sum_budget_entries(&entries).map(|m| wire::amounts_value(&m))
    })
}

/// The initial budget counters of a lease (its summed `cost.budget`): `{currency: "decimal"}`.
/// `initialBudgetFromLease` is the same function under its former name.
#[napi(
    ts_args_type = "lease: LeaseInput",
    ts_return_type = "Record<string, string>"
)]
pub fn initial_budget(lease: LeaseArg<'_>) -> Result<Value> {
    run(|| lease_arg(&lease).map(|l| wire::amounts_value(&leasekit::initial_budget(&l))))
}

/// Throws `BudgetExhaustedError` when a caller-tracked counter of `remaining`
/// (`{currency: "decimal"}`, decimal strings only, as every amount map) is at or below zero.
#[napi(ts_args_type = "remaining: Record<string, string>")]
pub fn check_budget_remaining(remaining: JsArg) -> Result<()> {
    run(|| {
        let remaining = wire::Amounts::from_value(remaining.json()?, "remaining")?;
        leasekit::check_budget_remaining(&remaining.0)
    })
}
