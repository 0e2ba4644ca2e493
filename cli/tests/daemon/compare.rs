//! The comparison rule of the governor vectors (API.md): expected keys only, recursively for
//! objects; lists whole, element by element with the same rule; numbers as numbers; decimal
//! strings as decimals; the lists of an `effectiveLease` as sets.

use rust_decimal::Decimal;
use serde_json::Value;
use std::str::FromStr;

/// `Ok` when `actual` matches `expect`; else where it differs.
pub fn matches(expect: &Value, actual: &Value) -> Result<(), String> {
    at(expect, actual, "$", false)
}

fn at(expect: &Value, actual: &Value, path: &str, sets: bool) -> Result<(), String> {
    let differ = || {
        Err(format!(
            "{path}: expected {expect}, got {}",
            truncate(&actual.to_string())
        ))
    };
    match (expect, actual) {
        (Value::Object(e), Value::Object(a)) => {
            for (k, ev) in e {
                let Some(av) = a.get(k) else {
                    return Err(format!("{path}.{k}: missing (expected {ev})"));
                };
                at(
                    ev,
                    av,
                    &format!("{path}.{k}"),
                    sets || k == "effectiveLease",
                )?;
            }
            Ok(())
        }
        (Value::Array(e), Value::Array(a)) => {
            if e.len() != a.len() {
                return Err(format!(
                    "{path}: expected {} elements {expect}, got {} {}",
                    e.len(),
                    a.len(),
                    truncate(&actual.to_string())
                ));
            }
            if sets {
                let mut used = vec![false; a.len()];
                for (i, ev) in e.iter().enumerate() {
                    let hit = a
                        .iter()
                        .enumerate()
                        .position(|(j, av)| !used[j] && at(ev, av, path, sets).is_ok());
                    match hit {
                        Some(j) => used[j] = true,
                        None => return Err(format!("{path}[{i}]: {ev} not in {actual}")),
                    }
                }
                Ok(())
            } else {
                for (i, (ev, av)) in e.iter().zip(a).enumerate() {
                    at(ev, av, &format!("{path}[{i}]"), sets)?;
                }
                Ok(())
            }
        }
        (Value::Number(e), Value::Number(a)) => {
            if e.as_f64() == a.as_f64() || e.to_string() == a.to_string() {
                Ok(())
            } else {
                differ()
            }
        }
        (Value::String(e), Value::String(a)) => {
            if e == a {
                return Ok(());
            }
            match (Decimal::from_str(e), Decimal::from_str(a)) {
                (Ok(x), Ok(y)) if x == y => Ok(()),
                _ => differ(),
            }
        }
        _ if expect == actual => Ok(()),
        _ => differ(),
    }
}

fn truncate(s: &str) -> String {
    if s.chars().count() > 600 {
        format!("{}...", s.chars().take(600).collect::<String>())
    } else {
        s.to_string()
    }
}
