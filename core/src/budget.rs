//! Budgets (SEMANTICS 6): `CURRENCY:AMOUNT` entries with exact decimals, never binary floats.

use crate::error::{Error, Result};
pub use rust_decimal::Decimal;
use std::collections::BTreeMap;

/// At most this many integer digits in an amount (leading zeros not counted).
pub const MAX_INTEGER_DIGITS: usize = 15;
/// At most this many fraction digits in an amount.
pub const MAX_FRACTION_DIGITS: usize = 9;
/// Arithmetic whose result needs this many digits or more is refused.
pub const MAX_RESULT_DIGITS: u32 = 28;

/// One parsed `cost.budget` entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BudgetEntry {
    /// The currency, case-sensitive (`usd` is not `USD`).
    pub currency: String,
    /// The exact amount.
    pub amount: Decimal,
}

/// Parses an AMOUNT: `[0-9]+(\.[0-9]+)?`, at most 15 integer digits (leading zeros not counted)
/// and 9 fraction digits. No sign, exponent, NaN or infinity.
pub fn parse_amount(text: &str) -> Result<Decimal> {
    let bad = |why: &str| Error::invalid(format!("invalid amount {text:?}: {why}"));
    let (int, frac) = match text.split_once('.') {
        Some((i, f)) => (i, Some(f)),
        None => (text, None),
    };
    if int.is_empty() || !int.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad("expected digits with an optional .fraction"));
    }
    let frac = match frac {
        Some(f) if f.is_empty() || !f.bytes().all(|b| b.is_ascii_digit()) => {
            return Err(bad("expected digits after the decimal point"));
        }
        Some(f) => f,
        None => "",
    };
    let int = int.trim_start_matches('0');
    if int.len() > MAX_INTEGER_DIGITS {
        return Err(bad("more than 15 integer digits"));
    }
    if frac.len() > MAX_FRACTION_DIGITS {
        return Err(bad("more than 9 fraction digits"));
    }
    let mut mantissa: i128 = 0;
    for b in int.bytes().chain(frac.bytes()) {
        mantissa = mantissa * 10 + i128::from(b - b'0');
    }
    Decimal::try_from_i128_with_scale(mantissa, frac.len() as u32).map_err(|_| bad("out of range"))
}

/// Checks an amount given as a decimal (not parsed from text) against the AMOUNT rules:
/// non-negative, at most 15 integer and 9 fraction digits.
pub(crate) fn validate_amount(d: Decimal) -> Result<()> {
    let n = d.normalize();
    let int_digits = n
        .trunc()
        .mantissa()
        .unsigned_abs()
        .checked_ilog10()
        .map_or(0, |l| l + 1);
    if n.is_sign_negative() && !n.is_zero()
        || n.scale() > MAX_FRACTION_DIGITS as u32
        || int_digits > MAX_INTEGER_DIGITS as u32
    {
        return Err(Error::invalid(format!(
            "invalid amount {d}: must be non-negative with at most 15 integer and 9 fraction digits"
        )));
    }
    Ok(())
}

/// At most this many digits in a remaining amount (leading integer zeros not counted): the
/// most budget arithmetic can leave (results of [`MAX_RESULT_DIGITS`] digits are refused).
pub const MAX_REMAINING_DIGITS: usize = MAX_RESULT_DIGITS as usize - 1;

/// Parses a remaining amount, the value of an amount map such as a caller-given
/// `parent_remaining` (SEMANTICS 6 and 9): `-?[0-9]+(\.[0-9]+)?`. Signed, because a counter may
/// be below zero after an overspend; at most 9 fraction digits (AMOUNT's scale; more is
/// `INVALID_REQUEST`, never rounded); at most 27 digits in all, leading integer zeros not
/// counted, which every value a guard's `remaining()` reports fits. No `+`, exponent, spaces,
/// NaN or infinity.
pub fn parse_remaining_amount(text: &str) -> Result<Decimal> {
    let bad = |why: &str| Error::invalid(format!("invalid remaining amount {text:?}: {why}"));
    let digits = text.strip_prefix('-').unwrap_or(text);
    let (int, frac) = match digits.split_once('.') {
        Some((i, f)) => (i, Some(f)),
        None => (digits, None),
    };
    let all_digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !all_digits(int) || frac.is_some_and(|f| !all_digits(f)) {
        return Err(bad("expected -?digits with an optional .fraction"));
    }
    let frac = frac.unwrap_or("");
    if frac.len() > MAX_FRACTION_DIGITS {
        return Err(bad("more than 9 fraction digits"));
    }
    if int.trim_start_matches('0').len() + frac.len() > MAX_REMAINING_DIGITS {
        return Err(bad("more than 27 digits"));
    }
    Decimal::from_str_exact(text).map_err(|_| bad("out of range"))
}

/// Parses a signed decimal `-?[0-9]+(\.[0-9]+)?` without the AMOUNT bounds (up to what the
/// decimal type holds): for remaining amounts (which may be negative after an overspend),
/// sums, and comparing decimals given as text in tests and bindings.
pub fn parse_decimal(text: &str) -> Result<Decimal> {
    let digits = text.strip_prefix('-').unwrap_or(text);
    let well_formed = match digits.split_once('.') {
        Some((i, f)) => {
            !i.is_empty()
                && !f.is_empty()
                && (i.bytes().chain(f.bytes())).all(|b| b.is_ascii_digit())
        }
        None => !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()),
    };
    if !well_formed {
        return Err(Error::invalid(format!("invalid decimal {text:?}")));
    }
    Decimal::from_str_exact(text)
        .map_err(|_| Error::invalid(format!("decimal {text:?} is out of range")))
}

/// Converts a binary float (a JavaScript number) through its shortest decimal form, then
/// applies the AMOUNT rules: `0.3` is `0.3`; NaN, infinities and negatives are `INVALID_REQUEST`.
pub fn amount_from_f64(value: f64) -> Result<Decimal> {
    if !value.is_finite() || value.is_sign_negative() {
        return Err(Error::invalid(format!(
            "invalid amount {value}: must be a finite, non-negative number"
        )));
    }
    // Rust's Display for f64 prints the shortest round-tripping digits, never an exponent.
    parse_amount(&format!("{value}"))
}

/// Parses a `cost.budget` entry `CURRENCY:AMOUNT`; CURRENCY is `[A-Za-z][A-Za-z0-9_-]{0,31}`.
pub fn parse_budget_amount(entry: &str) -> Result<BudgetEntry> {
    let Some((currency, amount)) = entry.split_once(':') else {
        return Err(Error::invalid(format!(
            "invalid budget entry {entry:?}: expected CURRENCY:AMOUNT"
        )));
    };
    if !is_valid_currency(currency) {
        return Err(Error::invalid(format!(
            "invalid currency {currency:?}: expected [A-Za-z][A-Za-z0-9_-]{{0,31}}"
        )));
    }
    Ok(BudgetEntry {
        currency: currency.to_string(),
        amount: parse_amount(amount)?,
    })
}

/// Whether `c` is a valid currency name.
pub fn is_valid_currency(c: &str) -> bool {
    let b = c.as_bytes();
    !b.is_empty()
        && b.len() <= 32
        && b[0].is_ascii_alphabetic()
        && b[1..]
            .iter()
            .all(|&x| x.is_ascii_alphanumeric() || x == b'_' || x == b'-')
}

/// Sums entries per currency.
pub fn sum_budget_entries<S: AsRef<str>>(entries: &[S]) -> Result<BTreeMap<String, Decimal>> {
    let mut out: BTreeMap<String, Decimal> = BTreeMap::new();
    for e in entries {
        let BudgetEntry { currency, amount } = parse_budget_amount(e.as_ref())?;
        let slot = out.entry(currency).or_insert(Decimal::ZERO);
        *slot = checked_add(*slot, amount)?;
    }
    Ok(out)
}

/// Checks caller-tracked remaining counters the way a guard checks its own: the first currency
/// whose remaining amount is <= 0 gives `BUDGET_EXHAUSTED` (for runtimes that keep counters
/// outside a [`crate::LeaseGuard`], like the ARCP SDKs' `validate_lease_op(budget=...)`).
pub fn check_budget_remaining(remaining: &BTreeMap<String, Decimal>) -> Result<()> {
    match remaining.iter().find(|(_, v)| **v <= Decimal::ZERO) {
        Some((cur, v)) => Err(Error::new(
            crate::ErrorCode::BudgetExhausted,
            format!(
                "the {cur} budget is exhausted (remaining {})",
                format_amount(v)
            ),
        )
        .with_detail("currency", cur.as_str())
        .with_detail("remaining", format_amount(v))),
        None => Ok(()),
    }
}

/// The normalized text of an amount: no trailing zeros (`2.50` -> `2.5`, `2.00` -> `2`).
pub fn format_amount(d: &Decimal) -> String {
    d.normalize().to_string()
}

/// `a + b`, refused (`INVALID_REQUEST`) when the result would need 28 or more digits.
pub fn checked_add(a: Decimal, b: Decimal) -> Result<Decimal> {
    a.checked_add(b).and_then(fits).ok_or_else(too_large)
}

/// `a - b`, refused (`INVALID_REQUEST`) when the result would need 28 or more digits.
pub fn checked_sub(a: Decimal, b: Decimal) -> Result<Decimal> {
    a.checked_sub(b).and_then(fits).ok_or_else(too_large)
}

fn fits(d: Decimal) -> Option<Decimal> {
    let n = d.normalize();
    let digits = n
        .mantissa()
        .unsigned_abs()
        .checked_ilog10()
        .map_or(1, |l| l + 1);
    // Leading integer zeros of a pure fraction are not significant, but the scale is the
    // number of digits a faithful rendering needs; use whichever is larger.
    (digits.max(n.scale()) < MAX_RESULT_DIGITS).then_some(n)
}

fn too_large() -> Error {
    Error::invalid("amount arithmetic would exceed 27 significant digits")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> Decimal {
        s.parse().unwrap()
    }

    #[test]
    fn amounts() {
        assert_eq!(parse_amount("2.50").unwrap(), d("2.5"));
        assert_eq!(format_amount(&parse_amount("2.00").unwrap()), "2");
        assert_eq!(format_amount(&parse_amount("0007.50").unwrap()), "7.5");
        assert_eq!(
            format_amount(&parse_amount("999999999999999.999999999").unwrap()),
            "999999999999999.999999999"
        );
        assert!(parse_amount("0000000000000000000001").is_ok());
        for bad in [
            "",
            "-1",
            "+1",
            "1e3",
            ".5",
            "5.",
            "NaN",
            "inf",
            "1.0000000000",
            "1000000000000000",
            " 1",
            "1 ",
            "1,5",
            "١",
        ] {
            assert!(parse_amount(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn signed_decimals() {
        assert_eq!(parse_decimal("-1.50").unwrap(), d("-1.5"));
        assert_eq!(
            parse_decimal("1234567890123456789.5").unwrap(),
            d("1234567890123456789.5")
        );
        for bad in ["", "-", "+1", "1e3", ".5", "5.", "--1", "1 "] {
            assert!(parse_decimal(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn remaining_amounts() {
        assert_eq!(parse_remaining_amount("-0.5").unwrap(), d("-0.5"));
        assert_eq!(parse_remaining_amount("-0").unwrap(), Decimal::ZERO);
        assert_eq!(parse_remaining_amount("1.000000000").unwrap(), d("1"));
        let big = format!("-{}", "9".repeat(27));
        assert_eq!(parse_remaining_amount(&big).unwrap(), d(&big));
        assert_eq!(
            parse_remaining_amount("-999999999999999999.123456789").unwrap(),
            d("-999999999999999999.123456789")
        );
        assert!(parse_remaining_amount(&format!("000{}", "9".repeat(27))).is_ok());
        for bad in [
            "",
            "-",
            "+1",
            "--1",
            "1e3",
            ".5",
            "5.",
            "-.5",
            "1.0000000001",
            "-1.0000000001",
            "0.0000000000",
            " 1",
            "1 ",
            "1.2.3",
            "NaN",
            "\u{0661}",
            &"9".repeat(28),
            &format!("-{}.5", "9".repeat(27)),
        ] {
            assert!(parse_remaining_amount(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn every_remaining_a_guard_reports_parses_back() {
        // The most negative counter arithmetic allows, normalized as `remaining()` reports it.
        let spend = parse_amount("999999999999999.999999999").unwrap();
        let mut v = Decimal::ZERO;
        for _ in 0..100_000 {
            match checked_sub(v, spend) {
                Ok(next) => v = next,
                Err(_) => break,
            }
        }
        assert!(checked_sub(v, spend).is_err(), "the loop reached the bound");
        assert_eq!(parse_remaining_amount(&format_amount(&v)).unwrap(), v);
    }

    #[test]
    fn floats_go_through_shortest_decimal() {
        assert_eq!(amount_from_f64(0.3).unwrap(), d("0.3"));
        assert_eq!(amount_from_f64(1e-7).unwrap(), d("0.0000001"));
        assert!(amount_from_f64(0.1 + 0.2).is_err()); // 0.30000000000000004: 17 fraction digits
        assert!(amount_from_f64(f64::NAN).is_err());
        assert!(amount_from_f64(-1.0).is_err());
        assert!(amount_from_f64(1e21).is_err());
    }

    #[test]
    fn entries_and_sums() {
        let e = parse_budget_amount("USD:2.50").unwrap();
        assert_eq!((e.currency.as_str(), e.amount), ("USD", d("2.5")));
        for bad in [
            "USD",
            ":1",
            "1USD:1",
            "US D:1",
            "USD:-1",
            "€:1",
            &format!("{}:1", "A".repeat(33)),
        ] {
            assert!(parse_budget_amount(bad).is_err(), "{bad}");
        }
        let s = sum_budget_entries(&["USD:1.10", "usd:1", "USD:0.20"]).unwrap();
        assert_eq!(s["USD"], d("1.3"));
        assert_eq!(s["usd"], d("1"));
    }

    #[test]
    fn remaining_counters() {
        let mut m: BTreeMap<String, Decimal> = [("USD".to_string(), d("0.01"))].into();
        assert!(check_budget_remaining(&m).is_ok());
        m.insert("EUR".into(), d("0"));
        let e = check_budget_remaining(&m).unwrap_err();
        assert_eq!(
            (e.code(), e.details()["currency"].as_str()),
            (crate::ErrorCode::BudgetExhausted, Some("EUR"))
        );
    }

    #[test]
    fn arithmetic_limits() {
        let big = d("9999999999999999999");
        assert!(checked_add(big, d("1")).is_ok());
        assert!(checked_add(big, d("0.000000001")).is_err());
        assert_eq!(checked_sub(d("1"), d("0.3")).unwrap(), d("0.7"));
    }
}
