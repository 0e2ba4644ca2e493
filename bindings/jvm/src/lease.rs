//! Lease calls of `dev.leasekit.Native`: validation (canonical JSON), summed budget, subset
//! and lint. Leases and options cross as JSON text.

use jni::EnvUnowned;
use jni::jni_mangle;
use jni::objects::{JClass, JString};
use leasekit::{check_lease_subset, is_lease_subset, wire};

use crate::convert::{lease, new_string, optional_string_arg, string_arg};
use crate::error::{BindResult, run};

/// `Native.leaseCanonical(json)`: validates a lease and returns its canonical JSON.
#[jni_mangle("dev.leasekit.Native")]
pub fn lease_canonical<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    lease_json: JString<'local>,
) -> JString<'local> {
    run(env, |env| {
        let lease = lease(&string_arg(env, &lease_json, "lease")?)?;
        new_string(env, &lease.to_json())
    })
}

/// `Native.leaseBudget(json)`: the summed `cost.budget` of a lease, `{cur: "dec"}`.
#[jni_mangle("dev.leasekit.Native")]
pub fn lease_budget<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    lease_json: JString<'local>,
) -> JString<'local> {
    run(env, |env| {
        let lease = lease(&string_arg(env, &lease_json, "lease")?)?;
        new_string(env, &wire::amounts_json(lease.budget()))
    })
}

/// Subset options from optional JSON text: core's wire shape (`null`/absent: none).
fn subset_options(text: Option<&str>) -> BindResult<wire::SubsetOptions> {
    Ok(match text {
        Some(text) => wire::SubsetOptions::from_json(text)?,
        None => wire::SubsetOptions::default(),
    })
}

/// `Native.checkSubset(child, parent, options)`: throws `LeaseSubsetViolationException` (with
/// the witness in its details) unless `child <= parent`.
#[jni_mangle("dev.leasekit.Native")]
pub fn check_subset<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    child_json: JString<'local>,
    parent_json: JString<'local>,
    options_json: JString<'local>,
) {
    run(env, |env| {
        let child = lease(&string_arg(env, &child_json, "child")?)?;
        let parent = lease(&string_arg(env, &parent_json, "parent")?)?;
        let options =
            subset_options(optional_string_arg(env, &options_json, "options_json")?.as_deref())?;
        Ok(check_lease_subset(&child, &parent, &options.as_core())?)
    })
}

/// `Native.isSubset(child, parent, options)`: `child <= parent`.
#[jni_mangle("dev.leasekit.Native")]
pub fn is_subset<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    child_json: JString<'local>,
    parent_json: JString<'local>,
    options_json: JString<'local>,
) -> bool {
    run(env, |env| {
        let child = lease(&string_arg(env, &child_json, "child")?)?;
        let parent = lease(&string_arg(env, &parent_json, "parent")?)?;
        let options =
            subset_options(optional_string_arg(env, &options_json, "options_json")?.as_deref())?;
        Ok(is_lease_subset(&child, &parent, &options.as_core()))
    })
}

/// `Native.leaseLint(leaseJson)`: core's lease lint, `{"warnings": [{code, capability,
/// pattern, message, hint}, ...]}`; an invalid lease is `INVALID_REQUEST`.
#[jni_mangle("dev.leasekit.Native")]
pub fn lease_lint<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    lease_json: JString<'local>,
) -> JString<'local> {
    run(env, |env| {
        let json = string_arg(env, &lease_json, "lease")?;
        new_string(env, &leasekit::lint_lease_json(&json)?)
    })
}
