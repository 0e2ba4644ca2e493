//! Conversions between Java values and core values. Nothing here decides anything about
//! leases; malformed input becomes `INVALID_REQUEST`.

use jni::Env;
use jni::objects::JString;
use leasekit::{Lease, LeaseConstraints, Timestamp};
use serde_json::Value;

use crate::error::{BindResult, invalid};
use crate::text::{self, TextBuf};

/// Reads a Java string argument; `null` is `INVALID_REQUEST` naming the argument. Every string
/// argument is read this way, through [`text::read`] (the one text conversion, shared with the
/// authorize hot path): a lone surrogate is `INVALID_REQUEST`, never replaced.
pub fn string_arg(env: &Env<'_>, value: &JString<'_>, what: &str) -> BindResult<String> {
    if value.is_null() {
        return Err(invalid(format!("{what} must not be null")));
    }
    let raw = env.get_raw();
    // SAFETY: `raw` is this call's JNIEnv and `value` a live, non-null string argument of it.
    let len = unsafe { text::string_length(raw, value) };
    let mut buf = TextBuf::default();
    // SAFETY: as above; `len` is the string's own length.
    let text = unsafe { text::read(raw, value, len, what, &mut buf)? };
    Ok(text.to_owned())
}

/// Reads an optional Java string argument (`null` -> `None`), as [`string_arg`].
pub fn optional_string_arg(
    env: &Env<'_>,
    value: &JString<'_>,
    what: &str,
) -> BindResult<Option<String>> {
    if value.is_null() {
        return Ok(None);
    }
    string_arg(env, value, what).map(Some)
}

/// Makes a Java string.
pub fn new_string<'local>(env: &mut Env<'local>, text: &str) -> BindResult<JString<'local>> {
    Ok(JString::from_str(env, text)?)
}

/// The instant `epoch_second` + `nano` (as from `java.time.Instant`) as a core timestamp.
pub fn timestamp(epoch_second: i64, nano: i32) -> BindResult<Timestamp> {
    if !(0..1_000_000_000).contains(&nano) {
        return Err(invalid(format!("nano-of-second {nano} is out of range")));
    }
    Ok(Timestamp::from_unix_nanos(
        i128::from(epoch_second) * 1_000_000_000 + i128::from(nano),
    ))
}

/// The `nano` Java passes instead of a nano-of-second when the guard is on the system clock
/// and no instant is supplied (`LeaseGuard.NO_TIME`).
pub const NO_TIME: i32 = -1;

/// As [`timestamp`], except that `nano == NO_TIME` means "no instant supplied" (`None`).
pub fn optional_timestamp(epoch_second: i64, nano: i32) -> BindResult<Option<Timestamp>> {
    if nano == NO_TIME {
        return Ok(None);
    }
    timestamp(epoch_second, nano).map(Some)
}

/// A timestamp as decimal nanoseconds since the epoch (Java turns it into an `Instant`).
pub fn timestamp_text(t: Timestamp) -> String {
    t.unix_nanos().to_string()
}

/// Parses JSON text handed in by Java.
pub fn parse_json(text: &str, what: &str) -> BindResult<Value> {
    serde_json::from_str(text).map_err(|e| invalid(format!("{what} is not valid JSON: {e}")))
}

/// Reads a lease argument: JSON text, validated by the core.
pub fn lease_arg(env: &Env<'_>, value: &JString<'_>, what: &str) -> BindResult<Lease> {
    Ok(Lease::from_json(&string_arg(env, value, what)?)?)
}

/// Reads an optional constraints argument (JSON text); `null`, `"null"` and `{}` mean none.
pub fn constraints_arg(
    env: &Env<'_>,
    value: &JString<'_>,
    what: &str,
) -> BindResult<LeaseConstraints> {
    Ok(match optional_string_arg(env, value, what)? {
        None => LeaseConstraints::from_value(&Value::Null)?,
        Some(text) => LeaseConstraints::from_json(&text)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_keep_nanoseconds_and_reject_bad_nanos() {
        let t = timestamp(-1, 999_999_999).ok().map(Timestamp::unix_nanos);
        assert_eq!(t, Some(-1));
        assert!(timestamp(0, 1_000_000_000).is_err());
        assert!(timestamp(0, -1).is_err());
        assert!(matches!(optional_timestamp(0, NO_TIME), Ok(None)));
        let t = optional_timestamp(1, 2)
            .ok()
            .flatten()
            .map(Timestamp::unix_nanos);
        assert_eq!(t, Some(1_000_000_002));
        assert!(optional_timestamp(0, -2).is_err());
        let far = timestamp(253_402_300_799, 0).ok().map(timestamp_text);
        assert_eq!(far.as_deref(), Some("253402300799000000000"));
    }
}
