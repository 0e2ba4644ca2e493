//! Expiry (SEMANTICS 7): a strict `expires_at` parser of our own, timestamps, and injectable clocks.
//!
//! The RFC 3339 parsers of `time` and `chrono` accept lowercase `z`, offsets, a space instead of
//! `T` or second 60; ARCP wants exactly `YYYY-MM-DDTHH:MM:SS[.f{1,9}]Z`, so this module parses
//! that grammar by hand.

use crate::error::{Error, ErrorCode, Result};
use serde_json::Value;
use std::fmt;
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

/// An instant in UTC, as nanoseconds since the Unix epoch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp(i128);

const NANOS_PER_SEC: i128 = 1_000_000_000;

impl Timestamp {
    /// From nanoseconds since the Unix epoch.
    pub fn from_unix_nanos(nanos: i128) -> Timestamp {
        Timestamp(nanos)
    }

    /// Nanoseconds since the Unix epoch.
    pub fn unix_nanos(self) -> i128 {
        self.0
    }

    /// From milliseconds since the Unix epoch (a JavaScript `Date`).
    pub fn from_unix_millis(millis: i64) -> Timestamp {
        Timestamp(i128::from(millis) * 1_000_000)
    }

    /// Milliseconds since the Unix epoch, rounded down.
    pub fn unix_millis(self) -> i64 {
        self.0.div_euclid(1_000_000) as i64
    }

    /// This instant plus `millis` milliseconds.
    pub fn plus_millis(self, millis: u64) -> Timestamp {
        Timestamp(self.0 + i128::from(millis) * 1_000_000)
    }

    /// The RFC 3339 form `YYYY-MM-DDTHH:MM:SS[.fraction]Z` (fraction without trailing zeros).
    pub fn to_rfc3339(self) -> String {
        let secs = self.0.div_euclid(NANOS_PER_SEC) as i64;
        let nanos = self.0.rem_euclid(NANOS_PER_SEC) as u32;
        let days = secs.div_euclid(86_400);
        let sod = secs.rem_euclid(86_400);
        let (y, m, d) = civil_from_days(days);
        let mut s = format!(
            "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}",
            sod / 3600,
            (sod % 3600) / 60,
            sod % 60
        );
        if nanos != 0 {
            let frac = format!("{nanos:09}");
            s.push('.');
            s.push_str(frac.trim_end_matches('0'));
        }
        s.push('Z');
        s
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_rfc3339())
    }
}

/// Parses `expires_at` strictly: `YYYY-MM-DDTHH:MM:SS[.f{1,9}]Z`, upper-case `T` and `Z`, no
/// offsets, no second 60, no hour 24, a valid calendar date. Anything else is `INVALID_REQUEST`.
pub fn parse_expires_at(text: &str) -> Result<Timestamp> {
    let bad = || {
        Error::invalid(format!(
            "invalid timestamp {text:?}: expected YYYY-MM-DDTHH:MM:SS[.fraction]Z (UTC)"
        ))
    };
    let b = text.as_bytes();
    if b.len() < 20 {
        return Err(bad());
    }
    let num = |r: std::ops::Range<usize>| -> Option<i64> {
        let s = b.get(r)?;
        if s.iter().all(u8::is_ascii_digit) {
            Some(s.iter().fold(0i64, |a, d| a * 10 + i64::from(d - b'0')))
        } else {
            None
        }
    };
    if b[4] != b'-' || b[7] != b'-' || b[10] != b'T' || b[13] != b':' || b[16] != b':' {
        return Err(bad());
    }
    let (year, month, day) = (
        num(0..4).ok_or_else(bad)?,
        num(5..7).ok_or_else(bad)?,
        num(8..10).ok_or_else(bad)?,
    );
    let (hour, minute, second) = (
        num(11..13).ok_or_else(bad)?,
        num(14..16).ok_or_else(bad)?,
        num(17..19).ok_or_else(bad)?,
    );
    let mut nanos: i64 = 0;
    let rest = &b[19..];
    let rest = if rest.first() == Some(&b'.') {
        let digits = rest[1..].iter().take_while(|c| c.is_ascii_digit()).count();
        if digits == 0 || digits > 9 {
            return Err(bad());
        }
        for (i, d) in rest[1..=digits].iter().enumerate() {
            nanos += i64::from(d - b'0') * 10i64.pow(8 - i as u32);
        }
        &rest[1 + digits..]
    } else {
        rest
    };
    if rest != b"Z" {
        return Err(bad());
    }
    if !(1..=12).contains(&month)
        || day < 1
        || day > days_in_month(year, month)
        || hour > 23
        || minute > 59
        || second > 59
    {
        return Err(bad());
    }
    let days = days_from_civil(year, month, day);
    let secs = days * 86_400 + hour * 3600 + minute * 60 + second;
    Ok(Timestamp(
        i128::from(secs) * NANOS_PER_SEC + i128::from(nanos),
    ))
}

fn is_leap(y: i64) -> bool {
    (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
}

fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        _ if is_leap(y) => 29,
        _ => 28,
    }
}

// Howard Hinnant's civil-date algorithms (proleptic Gregorian).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (
        if m <= 2 {
            yoe + era * 400 + 1
        } else {
            yoe + era * 400
        },
        m,
        d,
    )
}

/// A source of the current time. Inject one into a [`crate::LeaseGuard`] to control expiry.
pub trait Clock: Send + Sync {
    /// The current instant; an error makes the gated operation fail (fail closed).
    fn now(&self) -> Result<Timestamp>;
}

/// The system's wall clock.
#[derive(Clone, Copy, Debug, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Result<Timestamp> {
        let d = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_err(|_| Error::new(ErrorCode::InternalError, "system clock before 1970"))?;
        Ok(Timestamp(d.as_nanos() as i128))
    }
}

/// A clock that only moves when told to (tests, vectors, simulations).
#[derive(Debug)]
pub struct ManualClock(Mutex<Timestamp>);

impl ManualClock {
    /// A clock showing `t`.
    pub fn new(t: Timestamp) -> ManualClock {
        ManualClock(Mutex::new(t))
    }

    /// Sets the time.
    pub fn set(&self, t: Timestamp) {
        *self.0.lock().unwrap_or_else(|p| p.into_inner()) = t;
    }

    /// The time shown.
    pub fn get(&self) -> Timestamp {
        *self.0.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl Clock for ManualClock {
    fn now(&self) -> Result<Timestamp> {
        Ok(self.get())
    }
}

/// `lease_constraints` of ARCP v1.1: for now only `expires_at`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LeaseConstraints {
    /// The instant at and after which every gated operation fails with `LEASE_EXPIRED`.
    pub expires_at: Option<Timestamp>,
}

impl LeaseConstraints {
    /// No constraints.
    pub fn none() -> LeaseConstraints {
        LeaseConstraints::default()
    }

    /// Constraints expiring at `t`.
    pub fn expiring_at(t: Timestamp) -> LeaseConstraints {
        LeaseConstraints {
            expires_at: Some(t),
        }
    }

    /// Parses `{"expires_at": "..."}` (`null`, `{}` or a null `expires_at` mean none). Unknown
    /// keys are rejected (fail closed), and the timestamp is parsed strictly.
    pub fn from_json(text: &str) -> Result<LeaseConstraints> {
        let v: Value = serde_json::from_str(text)
            .map_err(|e| Error::invalid(format!("lease_constraints is not valid JSON: {e}")))?;
        LeaseConstraints::from_value(&v)
    }

    /// As [`LeaseConstraints::from_json`], from a parsed value.
    pub fn from_value(v: &Value) -> Result<LeaseConstraints> {
        match v {
            Value::Null => Ok(LeaseConstraints::none()),
            Value::Object(m) => {
                let mut out = LeaseConstraints::none();
                for (k, val) in m {
                    match (k.as_str(), val) {
                        ("expires_at", Value::Null) => {}
                        ("expires_at", Value::String(s)) => {
                            out.expires_at = Some(parse_expires_at(s)?)
                        }
                        ("expires_at", _) => {
                            return Err(Error::invalid("expires_at must be a string"));
                        }
                        _ => {
                            return Err(Error::invalid(format!(
                                "unknown lease_constraints field {k:?}"
                            )));
                        }
                    }
                }
                Ok(out)
            }
            _ => Err(Error::invalid("lease_constraints must be an object")),
        }
    }

    /// The JSON form, `{"expires_at": "..."}` or `{}`.
    pub fn to_value(&self) -> Value {
        match self.expires_at {
            Some(t) => serde_json::json!({ "expires_at": t.to_rfc3339() }),
            None => serde_json::json!({}),
        }
    }
}

/// The submit-time rule: `expires_at`, when present, must be strictly after `now`.
pub fn validate_lease_constraints(c: &LeaseConstraints, now: Timestamp) -> Result<()> {
    match c.expires_at {
        Some(t) if t <= now => Err(Error::invalid(format!(
            "expires_at {t} is not after now ({now})"
        ))
        .with_detail("expires_at", t.to_rfc3339())),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strict_grammar() {
        for ok in [
            "2026-01-01T00:00:00Z",
            "2024-02-29T23:59:59Z",
            "2000-02-29T00:00:00.5Z",
            "9999-12-31T23:59:59.123456789Z",
            "0000-01-01T00:00:00Z",
        ] {
            assert!(parse_expires_at(ok).is_ok(), "{ok}");
        }
        for bad in [
            "2026-01-01T00:00:00+00:00",
            "2026-01-01T00:00:00z",
            "2026-01-01t00:00:00Z",
            "2026-01-01 00:00:00Z",
            "2026-01-01T00:00Z",
            "2026-01-01T24:00:00Z",
            "2026-01-01T23:59:60Z",
            "2023-02-29T00:00:00Z",
            "1900-02-29T00:00:00Z",
            "2026-13-01T00:00:00Z",
            "2026-00-01T00:00:00Z",
            "2026-04-31T00:00:00Z",
            "2026-01-01T00:00:00.Z",
            "2026-01-01T00:00:00.1234567890Z",
            "20260101T000000Z",
            "+2026-01-01T00:00:00Z",
            "2026-01-01T00:00:00ZZ",
            "",
            "2026-01-01T00:00:0١Z",
        ] {
            assert!(parse_expires_at(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn epoch_math_round_trips() {
        assert_eq!(
            parse_expires_at("1970-01-01T00:00:00Z")
                .unwrap()
                .unix_nanos(),
            0
        );
        assert_eq!(
            parse_expires_at("2026-11-22T03:09:38Z")
                .unwrap()
                .unix_millis(),
            1_795_316_978_000
        );
        for s in [
            "2026-11-22T03:09:38.25Z",
            "1969-12-31T23:59:59.999999999Z",
            "2400-02-29T12:00:00Z",
        ] {
            assert_eq!(parse_expires_at(s).unwrap().to_rfc3339(), s);
        }
    }

    #[test]
    fn constraints() {
        let c = LeaseConstraints::from_json(r#"{"expires_at":"2030-01-01T00:00:00Z"}"#).unwrap();
        let now = parse_expires_at("2029-01-01T00:00:00Z").unwrap();
        assert!(validate_lease_constraints(&c, now).is_ok());
        assert!(validate_lease_constraints(&c, c.expires_at.unwrap()).is_err());
        assert!(LeaseConstraints::from_json(r#"{"expires_at":5}"#).is_err());
        assert!(LeaseConstraints::from_json(r#"{"other":1}"#).is_err());
        assert_eq!(
            LeaseConstraints::from_json("{}").unwrap(),
            LeaseConstraints::none()
        );
    }
}
