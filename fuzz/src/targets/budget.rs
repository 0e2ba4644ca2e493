//! `budget_amount`: amounts, budget entries, float conversion and spend metrics against an
//! independent parser; `expires_at`: strict timestamps against an independent parser.

use crate::fields::split;
use crate::model;
use leasekit::{
    Decimal, Lease, LeaseConstraints, LeaseGuard, ManualClock, Timestamp, amount_from_f64,
    format_amount, parse_amount, parse_budget_amount, parse_expires_at, sum_budget_entries,
};
use std::sync::Arc;

/// Input: text. `parse_budget_amount` accepts exactly the entries the model of SEMANTICS 6
/// accepts, with the same currency and normalized amount; `parse_amount` likewise for the
/// text as an amount; an amount's normalized text parses to the same amount; the first 8 bytes
/// as a float convert only when finite and non-negative, to a decimal that reads back as that
/// float; a spend metric with the text as its value is refused exactly when the text is not an
/// amount, and otherwise lowers the counter by exactly that amount; `sum_budget_entries` over
/// the text split at `,` never panics and refuses with `INVALID_REQUEST`.
pub fn budget_amount(data: &[u8]) {
    if let Ok(bytes) = <[u8; 8]>::try_from(data.get(..8).unwrap_or(&[])) {
        let v = f64::from_le_bytes(bytes);
        match amount_from_f64(v) {
            Ok(d) => {
                assert!(v.is_finite() && v >= 0.0, "{v} converted");
                let back: f64 = format_amount(&d).parse().expect("decimal text");
                assert_eq!(back, v, "{v} -> {d}");
            }
            Err(e) => {
                assert_eq!(e.code(), leasekit::ErrorCode::InvalidRequest);
            }
        }
    }
    let Some(f) = split(data, 1) else { return };
    let text = f[0];
    let entry = parse_budget_amount(text);
    super::invalid(&entry, "parse_budget_amount");
    let want = model::budget_entry(text);
    let got = entry
        .as_ref()
        .ok()
        .map(|e| (e.currency.clone(), format_amount(&e.amount)));
    assert_eq!(got, want, "parse_budget_amount({text:?})");
    let amount = parse_amount(text);
    super::invalid(&amount, "parse_amount");
    let got = amount.as_ref().ok().map(format_amount);
    assert_eq!(got, model::amount(text), "parse_amount({text:?})");
    if let Ok(a) = &amount {
        assert_eq!(
            parse_amount(&format_amount(a)).ok(),
            Some(*a),
            "normalized {a} reparses"
        );
    }
    let entries: Vec<&str> = text.split(',').collect();
    let sum = sum_budget_entries(&entries);
    super::invalid(&sum, "sum_budget_entries");
    spend(text, amount.ok());
}

/// A guard with `USD:100` records `cost.llm` = `value`.
fn spend(value: &str, amount: Option<Decimal>) {
    let lease = Lease::from_json(r#"{"cost.budget": ["USD:100"]}"#).expect("valid");
    let clock = Arc::new(ManualClock::new(Timestamp::from_unix_nanos(0)));
    let guard = LeaseGuard::new(lease, LeaseConstraints::none(), clock);
    let r = guard.record_metric("cost.llm", value, "USD");
    let left = guard.remaining()["USD"];
    match amount {
        Some(a) => {
            assert!(r.is_ok(), "spend {value:?} refused");
            assert_eq!(left, Decimal::from(100) - a, "spend {value:?}");
        }
        None => {
            assert_eq!(
                r.map(|_| ()).map_err(|e| e.code()),
                Err(leasekit::ErrorCode::InvalidRequest),
                "spend {value:?}"
            );
            assert_eq!(
                left,
                Decimal::from(100),
                "a refused spend changed the counter"
            );
        }
    }
    // Ignored metrics never fail and never change anything, whatever their value.
    let r = guard.record_metric("tokens.in", value, "USD");
    assert!(r.is_ok(), "an ignored metric failed");
    assert_eq!(guard.remaining()["USD"], left);
}

/// Input: text. `parse_expires_at` accepts exactly what the model of SEMANTICS 7 accepts, at
/// the same instant; the RFC 3339 form of an accepted instant parses back to it.
pub fn expires_at(data: &[u8]) {
    let Some(f) = split(data, 1) else { return };
    let text = f[0];
    let got = parse_expires_at(text);
    super::invalid(&got, "parse_expires_at");
    let want = model::expires_at(text);
    assert_eq!(
        got.as_ref().ok().map(|t| t.unix_nanos()),
        want,
        "parse_expires_at({text:?})"
    );
    if let Ok(t) = got {
        let again = parse_expires_at(&t.to_rfc3339()).expect("own output parses");
        assert_eq!(again, t, "{text:?} -> {}", t.to_rfc3339());
        let c = LeaseConstraints::expiring_at(t);
        let json = c.to_value().to_string();
        let back = LeaseConstraints::from_json(&json).expect("own constraints parse");
        assert_eq!(back, c, "constraints {json}");
    }
}
