//! Lease calls of `dev.leasekit.Native`: validation (canonical JSON), summed budget, subset
//! and lint. Leases and options cross as JSON text.

use jni::Env;
use jni::jni_mangle;
use jni::objects::JString;
use leasekit::{Lease, check_lease_subset, is_lease_subset, wire};

use crate::convert::{lease_arg, new_string, optional_string_arg, string_arg};
use crate::error::{BindResult, natives};

/// The arguments of a subset call: child, parent and the subset options (core's wire shape;
/// `null`: none).
fn subset_args(
    env: &Env<'_>,
    child: &JString<'_>,
    parent: &JString<'_>,
    options: &JString<'_>,
) -> BindResult<(Lease, Lease, wire::SubsetOptions)> {
    let (child, parent) = (
        lease_arg(env, child, "child")?,
        lease_arg(env, parent, "parent")?,
    );
    let options = match optional_string_arg(env, options, "options_json")? {
        Some(text) => wire::SubsetOptions::from_json(&text)?,
        None => wire::SubsetOptions::default(),
    };
    Ok((child, parent, options))
}

natives! {
    /// `Native.leaseCanonical(json)`: validates a lease and returns its canonical JSON.
    #[jni_mangle("dev.leasekit.Native")]
    pub fn lease_canonical(env, lease_json: JString<'local>) -> JString<'local> {
        new_string(env, &lease_arg(env, &lease_json, "lease")?.to_json())
    }

    /// `Native.leaseBudget(json)`: the summed `cost.budget` of a lease, `{cur: "dec"}`.
    #[jni_mangle("dev.leasekit.Native")]
    pub fn lease_budget(env, lease_json: JString<'local>) -> JString<'local> {
        new_string(env, &wire::amounts_json(lease_arg(env, &lease_json, "lease")?.budget()))
    }

    /// `Native.checkSubset(child, parent, options)`: throws `LeaseSubsetViolationException` (with
    /// the witness in its details) unless `child <= parent`.
    #[jni_mangle("dev.leasekit.Native")]
    pub fn check_subset(
        env,
        child_json: JString<'local>,
        parent_json: JString<'local>,
        options_json: JString<'local>,
    ) {
        let (child, parent, options) = subset_args(env, &child_json, &parent_json, &options_json)?;
        Ok(check_lease_subset(&child, &parent, &options.as_core())?)
    }

    /// `Native.isSubset(child, parent, options)`: `child <= parent`.
    #[jni_mangle("dev.leasekit.Native")]
    pub fn is_subset(
        env,
        child_json: JString<'local>,
        parent_json: JString<'local>,
        options_json: JString<'local>,
    ) -> bool {
        let (child, parent, options) = subset_args(env, &child_json, &parent_json, &options_json)?;
        Ok(is_lease_subset(&child, &parent, &options.as_core()))
    }

    /// `Native.leaseLint(leaseJson)`: core's lease lint, `{"warnings": [{code, capability,
    /// pattern, message, hint}, ...]}`; an invalid lease is `INVALID_REQUEST`.
    #[jni_mangle("dev.leasekit.Native")]
    pub fn lease_lint(env, lease_json: JString<'local>) -> JString<'local> {
        let json = string_arg(env, &lease_json, "lease")?;
        new_string(env, &leasekit::lint_lease_json(&json)?)
    }
}
