//! Amount maps `{currency: "decimal"}`: the one rule for amounts a caller hands back
//! (`parent_remaining`, the counters of `check_budget_remaining`) and the one writer.

use std::collections::BTreeMap;
use std::fmt;

use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::{Deserialize, Serialize, Serializer};
use serde_json::Value;

use crate::budget::{
    Decimal, MAX_FRACTION_DIGITS, MAX_RESULT_DIGITS, format_amount, parse_decimal,
};
use crate::error::{Error, Result};

/// Parses an amount a caller hands back: `-?[0-9]+(\.[0-9]+)?` with at most 9 fraction digits
/// (the AMOUNT precision) and fewer than 28 significant digits (integer digits without leading
/// zeros plus fraction digits: the bound of leasekit's budget arithmetic).
///
/// Every value leasekit itself produces passes: a guard's `remaining()` may be negative after
/// an overspend and a summed budget may have more than 15 integer digits, but every counter
/// keeps at most 9 fraction digits and fewer than 28 digits. So `remaining()` passed back as
/// `parent_remaining` is always accepted, in every language (docs/decisions.md).
pub fn parse_signed_amount(text: &str) -> Result<Decimal> {
    // The syntax (an optional `-`, digits, an optional `.fraction`) is core's signed decimal.
    let amount = parse_decimal(text)?;
    if amount.scale() > MAX_FRACTION_DIGITS as u32 {
        return Err(Error::invalid(format!(
            "invalid amount {text:?}: more than {MAX_FRACTION_DIGITS} fraction digits"
        )));
    }
    let digits = amount
        .mantissa()
        .unsigned_abs()
        .checked_ilog10()
        .map_or(1, |l| l + 1);
    if digits >= MAX_RESULT_DIGITS {
        return Err(Error::invalid(format!(
            "invalid amount {text:?}: {MAX_RESULT_DIGITS} or more significant digits"
        )));
    }
    Ok(amount)
}

/// A caller-given amount map `{currency: "decimal"}`: every amount a string read with
/// [`parse_signed_amount`]; a duplicate currency in JSON text is refused.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Amounts(pub BTreeMap<String, Decimal>);

impl Amounts {
    /// Reads an amount map from JSON text.
    pub fn from_json(text: &str, what: &str) -> Result<Amounts> {
        super::from_json_str(text, what)
    }

    /// Reads an amount map from a parsed value.
    pub fn from_value(value: Value, what: &str) -> Result<Amounts> {
        serde_json::from_value(value).map_err(|e| Error::invalid(format!("{what}: {e}")))
    }
}

impl<'de> Deserialize<'de> for Amounts {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Amounts, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Amounts;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object {currency: \"decimal string\"}")
            }
            fn visit_map<A: MapAccess<'de>>(
                self,
                mut map: A,
            ) -> std::result::Result<Amounts, A::Error> {
                let mut out = BTreeMap::new();
                while let Some(currency) = map.next_key::<String>()? {
                    let text = map.next_value::<AmountText>()?.0;
                    let amount = parse_signed_amount(&text)
                        .map_err(|e| de::Error::custom(format!("{currency}: {}", e.message())))?;
                    if out.insert(currency.clone(), amount).is_some() {
                        return Err(de::Error::custom(format!(
                            "duplicate currency {currency:?}"
                        )));
                    }
                }
                Ok(Amounts(out))
            }
        }
        d.deserialize_map(V)
    }
}

/// One amount of a map: a JSON string (a JSON number is refused: it may not be exact).
struct AmountText(String);

impl<'de> Deserialize<'de> for AmountText {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<AmountText, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = AmountText;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a decimal string such as \"2.50\"")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> std::result::Result<AmountText, E> {
                Ok(AmountText(s.to_owned()))
            }
        }
        d.deserialize_str(V)
    }
}

impl Serialize for Amounts {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.collect_map(self.0.iter().map(|(k, v)| (k, format_amount(v))))
    }
}

/// An amount map as `{currency: "decimal"}`, amounts normalized (`2.50` -> `"2.5"`).
pub fn amounts_value(amounts: &BTreeMap<String, Decimal>) -> Value {
    Value::Object(
        amounts
            .iter()
            .map(|(k, v)| (k.clone(), Value::String(format_amount(v))))
            .collect(),
    )
}

/// [`amounts_value`] as JSON text.
pub fn amounts_json(amounts: &BTreeMap<String, Decimal>) -> String {
    amounts_value(amounts).to_string()
}
