//! Expiry and constraints calls of `dev.leasekit.Native`: `expires_at` parsing (instants as
//! `(epochSecond, nano)` or decimal nanoseconds) and constraints validation.

use jni::jni_mangle;
use jni::objects::JString;
use leasekit::{parse_expires_at, validate_lease_constraints};

use crate::convert::{constraints_arg, new_string, string_arg, timestamp, timestamp_text};
use crate::error::natives;

natives! {
    /// `Native.parseExpiresAt(text)`: strict `YYYY-MM-DDTHH:MM:SS[.f]Z`, as decimal epoch nanos.
    #[jni_mangle("dev.leasekit.Native")]
    pub fn parse_expires_at_nanos(env, text: JString<'local>) -> JString<'local> {
        let t = parse_expires_at(&string_arg(env, &text, "expires_at")?)?;
        new_string(env, &timestamp_text(t))
    }

    /// `Native.validateConstraints(json, epochSecond, nano)`: `expires_at` must be after now.
    #[jni_mangle("dev.leasekit.Native")]
    pub fn validate_constraints(
        env,
        constraints_json: JString<'local>,
        epoch_second: i64,
        nano: i32,
    ) {
        let c = constraints_arg(env, &constraints_json, "constraints_json")?;
        Ok(validate_lease_constraints(&c, timestamp(epoch_second, nano)?)?)
    }

    /// `Native.constraintsCanonical(json)`: parses constraints (the core decides what is valid)
    /// and returns them as canonical JSON.
    #[jni_mangle("dev.leasekit.Native")]
    pub fn constraints_canonical(env, constraints_json: JString<'local>) -> JString<'local> {
        let c = constraints_arg(env, &constraints_json, "constraints_json")?;
        new_string(env, &c.to_value().to_string())
    }
}
