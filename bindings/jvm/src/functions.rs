//! Stateless native calls of `dev.leasekit.Native`: capability names, canonical targets,
//! patterns, leases, subset, budgets, expiry and narrowing. Leases, constraints and results
//! cross as JSON text; decimals as strings; instants as `(epochSecond, nano)` or decimal
//! nanoseconds.

use jni::EnvUnowned;
use jni::jni_mangle;
use jni::objects::{JClass, JString};
use leasekit::{
    check_lease_subset, is_lease_subset, narrow_constraints, narrow_lease, parse_budget_amount,
    parse_expires_at, sum_budget_entries, validate_lease_constraints, wire,
};

use crate::convert::{
    constraints, lease, new_string, optional_string_arg, parse_json, string_arg, timestamp,
    timestamp_text,
};
use crate::error::{BindResult, invalid, run, run_raw};

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

/// `Native.parseBudgetAmount("USD:2.50")`: `{"currency": "USD", "amount": "2.5"}`.
#[jni_mangle("dev.leasekit.Native")]
pub fn parse_budget_amount_json<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    entry: JString<'local>,
) -> JString<'local> {
    run(env, |env| {
        let entry = parse_budget_amount(&string_arg(env, &entry, "entry")?)?;
        new_string(
            env,
            &wire::BudgetEntryAnswer::from(&entry).to_value().to_string(),
        )
    })
}

/// `Native.sumBudgetEntries(["USD:1", ...])` (a JSON array): `{cur: "dec"}`.
#[jni_mangle("dev.leasekit.Native")]
pub fn sum_budget_entries_json<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    entries_json: JString<'local>,
) -> JString<'local> {
    run(env, |env| {
        let entries: Vec<String> = serde_json::from_value(parse_json(
            &string_arg(env, &entries_json, "entries")?,
            "entries",
        )?)
        .map_err(|_| invalid("entries must be an array of strings"))?;
        let sums = sum_budget_entries(&entries)?;
        new_string(env, &wire::amounts_json(&sums))
    })
}

/// `Native.parseExpiresAt(text)`: strict `YYYY-MM-DDTHH:MM:SS[.f]Z`, as decimal epoch nanos.
#[jni_mangle("dev.leasekit.Native")]
pub fn parse_expires_at_nanos<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    text: JString<'local>,
) -> JString<'local> {
    run(env, |env| {
        let t = parse_expires_at(&string_arg(env, &text, "expires_at")?)?;
        new_string(env, &timestamp_text(t))
    })
}

/// `Native.validateConstraints(json, epochSecond, nano)`: `expires_at` must be after now.
#[jni_mangle("dev.leasekit.Native")]
pub fn validate_constraints<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    constraints_json: JString<'local>,
    epoch_second: i64,
    nano: i32,
) {
    run(env, |env| {
        let c = constraints(
            optional_string_arg(env, &constraints_json, "constraints_json")?.as_deref(),
        )?;
        Ok(validate_lease_constraints(
            &c,
            timestamp(epoch_second, nano)?,
        )?)
    })
}

/// `Native.narrow(requested, ceiling)`: `{"lease": {..}, "reductions": [..]}`.
#[jni_mangle("dev.leasekit.Native")]
pub fn narrow<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    requested_json: JString<'local>,
    ceiling_json: JString<'local>,
) -> JString<'local> {
    run(env, |env| {
        let requested = lease(&string_arg(env, &requested_json, "requested")?)?;
        let ceiling = lease(&string_arg(env, &ceiling_json, "ceiling")?)?;
        let narrowed = narrow_lease(&requested, &ceiling)?;
        new_string(env, &wire::NarrowedAnswer::from(&narrowed).to_json()?)
    })
}

/// `Native.narrowConstraints(requested, ceiling)`: the effective constraints as JSON.
#[jni_mangle("dev.leasekit.Native")]
pub fn narrow_constraints_json<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    requested_json: JString<'local>,
    ceiling_json: JString<'local>,
) -> JString<'local> {
    run(env, |env| {
        let requested =
            constraints(optional_string_arg(env, &requested_json, "requested_json")?.as_deref())?;
        let ceiling =
            constraints(optional_string_arg(env, &ceiling_json, "ceiling_json")?.as_deref())?;
        let out = wire::constraints_value(&narrow_constraints(&requested, &ceiling));
        new_string(env, &out.to_string())
    })
}

/// `Native.panicForTest()`: panics inside the native code on purpose, so the binding's own
/// tests can prove that a Rust panic reaches Java as an `InternalErrorException` (never a JVM
/// crash). It touches no state.
#[jni_mangle("dev.leasekit.Native")]
pub fn panic_for_test<'local>(env: EnvUnowned<'local>, _class: JClass<'local>) {
    run(env, |_env| -> BindResult<()> {
        panic!("deliberate panic from Native.panicForTest");
    })
}

/// `Native.panicForTestRaw()`: as `panicForTest`, through [`run_raw`], the wrapper of the hot
/// natives (`guardAuthorize`, `guardAuthorizeModel`).
#[jni_mangle("dev.leasekit.Native")]
pub fn panic_for_test_raw<'local>(env: EnvUnowned<'local>, _class: JClass<'local>) {
    run_raw(env, |_env| -> BindResult<()> {
        panic!("deliberate panic from Native.panicForTestRaw");
    })
}

/// `Native.constraintsCanonical(json)`: parses constraints (the core decides what is valid) and
/// returns them as canonical JSON.
#[jni_mangle("dev.leasekit.Native")]
pub fn constraints_canonical<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    constraints_json: JString<'local>,
) -> JString<'local> {
    run(env, |env| {
        let c = constraints(
            optional_string_arg(env, &constraints_json, "constraints_json")?.as_deref(),
        )?;
        new_string(env, &c.to_value().to_string())
    })
}

/// `Native.parseAmountText("2.50")`: an AMOUNT (no sign, exponent, NaN; at most 15 integer and
/// 9 fraction digits), normalized.
#[jni_mangle("dev.leasekit.Native")]
pub fn parse_amount_text<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    text: JString<'local>,
) -> JString<'local> {
    run(env, |env| {
        let amount = leasekit::parse_amount(&string_arg(env, &text, "amount")?)?;
        new_string(env, &leasekit::format_amount(&amount))
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
