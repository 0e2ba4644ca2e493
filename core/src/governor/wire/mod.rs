//! Wire types of the governor protocol (SEMANTICS 13.1): one definition, used by the engine,
//! every binding and the daemon. camelCase names, enums as camelCase strings, nulls omitted,
//! unknown payload fields ignored, absent fields take their 13.2/13.15 defaults.

pub mod acquire;
pub mod admin;
pub mod approval;
pub mod decision;
pub mod enums;
pub mod envelope;
pub mod frame;
pub mod limits;
pub mod num;
pub mod release;
pub mod tool;

pub use acquire::*;
pub use admin::*;
pub use approval::*;
pub use decision::*;
pub use enums::*;
pub use envelope::*;
pub use frame::*;
pub use limits::{MAX_ID_BYTES, MAX_LIST_ITEMS, MAX_TARGET_BYTES, MAX_TEXT_BYTES, WireLimits};
pub use release::*;
pub use tool::*;

/// The `expiresAtUtc` of a denial (LeaseGate's `DateTimeOffset.MinValue`).
pub const NO_EXPIRY: &str = "0001-01-01T00:00:00.000Z";

/// The time fields of responses (LeaseGate's `DateTimeOffset`s). A field left empty inside
/// leasekit means "no time": it is written as [`NO_EXPIRY`], and an absent one reads as that.
pub(crate) mod time {
    use serde::Serializer;

    /// The value of an absent time field.
    pub fn none() -> String {
        super::NO_EXPIRY.to_string()
    }

    /// Writes the time, or [`super::NO_EXPIRY`] for an empty one.
    pub fn write<S: Serializer>(t: &str, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(if t.is_empty() { super::NO_EXPIRY } else { t })
    }
}

/// Formats unix milliseconds as RFC 3339 UTC with milliseconds and `Z`.
pub fn format_time_ms(ms: i64) -> String {
    let secs = ms.div_euclid(1000);
    let milli = ms.rem_euclid(1000);
    let days = secs.div_euclid(86_400);
    let sod = secs.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    if !(0..=9999).contains(&y) {
        return format!(
            "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{milli:03}Z",
            sod / 3600,
            (sod % 3600) / 60,
            sod % 60
        );
    }
    // The common case without the formatting machinery (same text as above).
    let mut b = *b"0000-00-00T00:00:00.000Z";
    let mut put = |at: usize, width: usize, mut v: i64| {
        for i in (at..at + width).rev() {
            b[i] = b'0' + (v % 10) as u8;
            v /= 10;
        }
    };
    put(0, 4, y);
    put(5, 2, i64::from(m));
    put(8, 2, i64::from(d));
    put(11, 2, sod / 3600);
    put(14, 2, (sod % 3600) / 60);
    put(17, 2, sod % 60);
    put(20, 3, milli);
    String::from_utf8(b.to_vec()).expect("ASCII")
}

/// Howard Hinnant's civil-from-days.
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_match_the_formatted_reference() {
        for ms in [
            0i64,
            1,
            999,
            86_399_999,
            951_782_400_000,
            1_772_366_400_123,
            253_402_300_799_999,
            -1,
            -62_135_596_800_001,
        ] {
            let secs = ms.div_euclid(1000);
            let sod = secs.rem_euclid(86_400);
            let (y, m, d) = civil_from_days(secs.div_euclid(86_400));
            let reference = format!(
                "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{:03}Z",
                sod / 3600,
                (sod % 3600) / 60,
                sod % 60,
                ms.rem_euclid(1000)
            );
            assert_eq!(format_time_ms(ms), reference, "{ms}");
        }
    }

    #[test]
    fn times_have_millis() {
        assert_eq!(format_time_ms(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(
            format_time_ms(1_767_225_620_000),
            "2026-01-01T00:00:20.000Z"
        );
    }

    #[test]
    fn requests_take_defaults_and_refuse_bad_cents() {
        let r: AcquireRequest = serde_json::from_str(r#"{"actorId":"a","unknown":1}"#).unwrap();
        assert_eq!(r.estimated_compute_units, 1);
        assert_eq!(r.intent_class, IntentClass::Draft);
        assert!(serde_json::from_str::<AcquireRequest>(r#"{"estimatedCostCents":-1}"#).is_err());
        assert!(serde_json::from_str::<AcquireRequest>(r#"{"estimatedCostCents":1.5}"#).is_err());
        assert!(
            serde_json::from_str::<AcquireRequest>(r#"{"actionType":"ChatCompletion"}"#).is_err()
        );
        assert!(serde_json::from_str::<AcquireRequest>(r#"{"estimatedCostCents":1e30}"#).is_err());
        let json = serde_json::to_string(&AcquireResponse::default()).unwrap();
        assert!(!json.contains("retryAfterMs"));
    }
}
