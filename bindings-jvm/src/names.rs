//! Capability names, canonical targets and patterns: the name calls of `dev.leasekit.Native`.

use jni::jni_mangle;
use jni::objects::JString;

use crate::convert::{new_string, string_arg};
use crate::error::natives;

natives! {
    /// `Native.isValidCapabilityName(String)`.
    #[jni_mangle("dev.leasekit.Native")]
    pub fn is_valid_capability_name(env, name: JString<'local>) -> bool {
        Ok(leasekit::is_valid_capability_name(&string_arg(env, &name, "name")?))
    }

    /// `Native.isReservedCapabilityName(String)`.
    #[jni_mangle("dev.leasekit.Native")]
    pub fn is_reserved_capability_name(env, name: JString<'local>) -> bool {
        Ok(leasekit::is_reserved_capability_name(&string_arg(env, &name, "name")?))
    }

    /// `Native.canonicalizeTarget(capability, target)`: the canonical target.
    #[jni_mangle("dev.leasekit.Native")]
    pub fn canonicalize_target(
        env,
        capability: JString<'local>,
        target: JString<'local>,
    ) -> JString<'local> {
        let capability = string_arg(env, &capability, "capability")?;
        let target = string_arg(env, &target, "target")?;
        new_string(env, &leasekit::canonicalize_target(&capability, &target)?)
    }

    /// `Native.validatePattern(capability, pattern)`: the stored (canonical) pattern.
    #[jni_mangle("dev.leasekit.Native")]
    pub fn validate_pattern(
        env,
        capability: JString<'local>,
        pattern: JString<'local>,
    ) -> JString<'local> {
        let capability = string_arg(env, &capability, "capability")?;
        let pattern = string_arg(env, &pattern, "pattern")?;
        new_string(env, &leasekit::validate_pattern(&capability, &pattern)?)
    }

    /// `Native.matchPattern(capability, pattern, target)`.
    #[jni_mangle("dev.leasekit.Native")]
    pub fn match_pattern(
        env,
        capability: JString<'local>,
        pattern: JString<'local>,
        target: JString<'local>,
    ) -> bool {
        let capability = string_arg(env, &capability, "capability")?;
        let pattern = string_arg(env, &pattern, "pattern")?;
        let target = string_arg(env, &target, "target")?;
        Ok(leasekit::match_pattern(&capability, &pattern, &target)?)
    }
}
