//! Bounded numbers on the wire: cents and counts are non-negative integers; a negative,
//! fractional or huge value makes the payload invalid (`success: false`).

use serde::{Deserialize, Deserializer};

/// The largest cents value accepted (10^15 cents, ten trillion currency units): far above
/// any real budget, far below where sums could overflow.
pub const MAX_CENTS: u64 = 1_000_000_000_000_000;

/// Deserializes integer cents in `0..=MAX_CENTS`.
pub fn cents<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
    let v = u64::deserialize(d)?;
    if v > MAX_CENTS {
        return Err(serde::de::Error::custom(format!(
            "cents value {v} exceeds the maximum {MAX_CENTS}"
        )));
    }
    Ok(v)
}

/// Deserializes optional integer cents in `0..=MAX_CENTS`.
pub fn opt_cents<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    cents(d).map(Some)
}
