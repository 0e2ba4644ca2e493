//! Budget calls of `dev.leasekit.Native`: budget entries, sums and AMOUNT text (decimals
//! cross as strings).

use jni::jni_mangle;
use jni::objects::JString;
use leasekit::{parse_budget_amount, sum_budget_entries, wire};

use crate::convert::{new_string, parse_json, string_arg};
use crate::error::{invalid, natives};

natives! {
    /// `Native.parseBudgetAmount("USD:2.50")`: `{"currency": "USD", "amount": "2.5"}`.
    #[jni_mangle("dev.leasekit.Native")]
    pub fn parse_budget_amount_json(env, entry: JString<'local>) -> JString<'local> {
        let entry = parse_budget_amount(&string_arg(env, &entry, "entry")?)?;
        new_string(env, &wire::BudgetEntryAnswer::from(&entry).to_value().to_string())
    }

    /// `Native.sumBudgetEntries(["USD:1", ...])` (a JSON array): `{cur: "dec"}`.
    #[jni_mangle("dev.leasekit.Native")]
    pub fn sum_budget_entries_json(env, entries_json: JString<'local>) -> JString<'local> {
        let entries = parse_json(&string_arg(env, &entries_json, "entries")?, "entries")?;
        let entries: Vec<String> = serde_json::from_value(entries)
            .map_err(|_| invalid("entries must be an array of strings"))?;
        new_string(env, &wire::amounts_json(&sum_budget_entries(&entries)?))
    }

    /// `Native.parseAmountText("2.50")`: an AMOUNT (no sign, exponent, NaN; at most 15 integer
    /// and 9 fraction digits), normalized.
    #[jni_mangle("dev.leasekit.Native")]
    pub fn parse_amount_text(env, text: JString<'local>) -> JString<'local> {
        let amount = leasekit::parse_amount(&string_arg(env, &text, "amount")?)?;
        new_string(env, &leasekit::format_amount(&amount))
    }
}
