//! Capability names, canonical targets and patterns: the name calls of `dev.leasekit.Native`.

use jni::EnvUnowned;
use jni::jni_mangle;
use jni::objects::{JClass, JString};

use crate::convert::{new_string, string_arg};
use crate::error::run;

/// `Native.isValidCapabilityName(String)`.
#[jni_mangle("dev.leasekit.Native")]
pub fn is_valid_capability_name<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    name: JString<'local>,
) -> bool {
    run(env, |env| {
        Ok(leasekit::is_valid_capability_name(&string_arg(
            env, &name, "name",
        )?))
    })
}

/// `Native.isReservedCapabilityName(String)`.
#[jni_mangle("dev.leasekit.Native")]
pub fn is_reserved_capability_name<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    name: JString<'local>,
) -> bool {
    run(env, |env| {
        Ok(leasekit::is_reserved_capability_name(&string_arg(
            env, &name, "name",
        )?))
    })
}

/// `Native.canonicalizeTarget(capability, target)`: the canonical target.
#[jni_mangle("dev.leasekit.Native")]
pub fn canonicalize_target<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    capability: JString<'local>,
    target: JString<'local>,
) -> JString<'local> {
    run(env, |env| {
        let capability = string_arg(env, &capability, "capability")?;
        let target = string_arg(env, &target, "target")?;
        let canonical = leasekit::canonicalize_target(&capability, &target)?;
        new_string(env, &canonical)
    })
}

/// `Native.validatePattern(capability, pattern)`: the stored (canonical) pattern.
#[jni_mangle("dev.leasekit.Native")]
pub fn validate_pattern<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    capability: JString<'local>,
    pattern: JString<'local>,
) -> JString<'local> {
    run(env, |env| {
        let capability = string_arg(env, &capability, "capability")?;
        let pattern = string_arg(env, &pattern, "pattern")?;
        let stored = leasekit::validate_pattern(&capability, &pattern)?;
        new_string(env, &stored)
    })
}

/// `Native.matchPattern(capability, pattern, target)`.
#[jni_mangle("dev.leasekit.Native")]
pub fn match_pattern<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    capability: JString<'local>,
    pattern: JString<'local>,
    target: JString<'local>,
) -> bool {
    run(env, |env| {
        let capability = string_arg(env, &capability, "capability")?;
        let pattern = string_arg(env, &pattern, "pattern")?;
        let target = string_arg(env, &target, "target")?;
        Ok(leasekit::match_pattern(&capability, &pattern, &target)?)
    })
}
