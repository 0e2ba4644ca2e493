//! `LeaseGuard` handle calls of `dev.leasekit.Native`.
//!
//! A guard lives in a `Box` whose address is the Java handle (`long`). Java's `LeaseGuard`
//! owns the handle: it frees it exactly once (`close()` or its `Cleaner`) and never calls
//! after freeing (a read/write lock orders calls against the free). Each call that consults
//! time passes the Java clock's instant, installed for that call by [`with_now`].

use std::sync::Arc;

use jni::EnvUnowned;
use jni::jni_mangle;
use jni::objects::{JClass, JString};
use leasekit::{GuardOptions, LeaseGuard, parse_amount};

use crate::clock::{CallerClock, with_now};
use crate::convert::{
    amounts_json, constraints, lease, metrics_json, new_string, optional_string_arg, string_arg,
    timestamp, timestamp_text,
};
use crate::error::{BindResult, invalid, run};

/// Moves a guard to the heap and returns its handle.
fn into_handle(guard: LeaseGuard) -> i64 {
    Box::into_raw(Box::new(guard)) as i64
}

/// Borrows the guard behind a handle.
fn guard<'a>(handle: i64) -> BindResult<&'a LeaseGuard> {
    if handle == 0 {
        return Err(invalid("the LeaseGuard is closed"));
    }
    // SAFETY: non-zero handles come from `into_handle` and Java never passes one after
    // `guardFree` (see the module documentation).
    Ok(unsafe { &*(handle as *const LeaseGuard) })
}

/// `Native.guardNew(lease, constraints, graceMillis, allowAnyModel)`: a new guard handle.
#[jni_mangle("dev.leasekit.Native")]
pub fn guard_new<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    lease_json: JString<'local>,
    constraints_json: JString<'local>,
    grace_millis: i64,
    allow_any_model: bool,
) -> i64 {
    run(env, |env| {
        let lease = lease(&string_arg(env, &lease_json, "lease")?)?;
        let constraints = constraints(optional_string_arg(env, &constraints_json)?.as_deref())?;
        let grace_millis =
            u64::try_from(grace_millis).map_err(|_| invalid("grace must not be negative"))?;
        let options = GuardOptions {
            grace_millis,
            allow_any_model,
        };
        let guard = LeaseGuard::with_options(lease, constraints, Arc::new(CallerClock), options);
        Ok(into_handle(guard))
    })
}

/// `Native.guardAuthorize(handle, epochSecond, nano, capability, target)`: the canonical
/// target, or the exception of the first failed check.
#[jni_mangle("dev.leasekit.Native")]
pub fn guard_authorize<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: i64,
    epoch_second: i64,
    nano: i32,
    capability: JString<'local>,
    target: JString<'local>,
) -> JString<'local> {
    run(env, |env| {
        let guard = guard(handle)?;
        let now = timestamp(epoch_second, nano)?;
        let capability = string_arg(env, &capability, "capability")?;
        let target = string_arg(env, &target, "target")?;
        let canonical = with_now(now, || guard.authorize(&capability, &target))?;
        new_string(env, &canonical)
    })
}

/// `Native.guardAuthorizeModel(handle, epochSecond, nano, modelId)`.
#[jni_mangle("dev.leasekit.Native")]
pub fn guard_authorize_model<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: i64,
    epoch_second: i64,
    nano: i32,
    model_id: JString<'local>,
) -> JString<'local> {
    run(env, |env| {
        let guard = guard(handle)?;
        let now = timestamp(epoch_second, nano)?;
        let model_id = string_arg(env, &model_id, "model id")?;
        let canonical = with_now(now, || guard.authorize_model(&model_id))?;
        new_string(env, &canonical)
    })
}

/// `Native.guardRecordMetric(handle, epochSecond, nano, name, value, unit)`: the emitted
/// metrics as a JSON array.
#[jni_mangle("dev.leasekit.Native")]
#[allow(clippy::too_many_arguments)]
pub fn guard_record_metric<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: i64,
    epoch_second: i64,
    nano: i32,
    name: JString<'local>,
    value: JString<'local>,
    unit: JString<'local>,
) -> JString<'local> {
    run(env, |env| {
        let guard = guard(handle)?;
        let now = timestamp(epoch_second, nano)?;
        let name = string_arg(env, &name, "metric name")?;
        let value = string_arg(env, &value, "metric value")?;
        let unit = string_arg(env, &unit, "metric unit")?;
        let emitted = with_now(now, || guard.record_metric(&name, &value, &unit))?;
        new_string(env, &metrics_json(&emitted).to_string())
    })
}

/// `Native.guardReserve(handle, epochSecond, nano, currency, amount)`: the emitted metrics.
#[jni_mangle("dev.leasekit.Native")]
pub fn guard_reserve<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: i64,
    epoch_second: i64,
    nano: i32,
    currency: JString<'local>,
    amount: JString<'local>,
) -> JString<'local> {
    run(env, |env| {
        let guard = guard(handle)?;
        let now = timestamp(epoch_second, nano)?;
        let currency = string_arg(env, &currency, "currency")?;
        let amount = parse_amount(&string_arg(env, &amount, "amount")?)?;
        let emitted = with_now(now, || guard.reserve(&currency, amount))?;
        new_string(env, &metrics_json(&emitted).to_string())
    })
}

/// `Native.guardRemaining(handle)`: the remaining budget, `{cur: "dec"}`.
#[jni_mangle("dev.leasekit.Native")]
pub fn guard_remaining<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: i64,
) -> JString<'local> {
    run(env, |env| {
        let remaining = guard(handle)?.remaining();
        new_string(env, &amounts_json(&remaining).to_string())
    })
}

/// `Native.guardDelegate(handle, epochSecond, nano, childLease, childConstraints)`: the
/// child guard's handle; `LeaseSubsetViolationException` unless the child is a subset.
#[jni_mangle("dev.leasekit.Native")]
pub fn guard_delegate<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: i64,
    epoch_second: i64,
    nano: i32,
    child_json: JString<'local>,
    child_constraints_json: JString<'local>,
) -> i64 {
    run(env, |env| {
        let guard = guard(handle)?;
        let now = timestamp(epoch_second, nano)?;
        let child = lease(&string_arg(env, &child_json, "child lease")?)?;
        let child_constraints =
            constraints(optional_string_arg(env, &child_constraints_json)?.as_deref())?;
        let child_guard = with_now(now, || guard.delegate(child, child_constraints))?;
        Ok(into_handle(child_guard))
    })
}

/// `Native.guardClose(handle)`: closes the guard (a child returns its unspent budget to its
/// parent); the emitted metrics. Idempotent; the handle stays valid until `guardFree`.
#[jni_mangle("dev.leasekit.Native")]
pub fn guard_close<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: i64,
) -> JString<'local> {
    run(env, |env| {
        let emitted = guard(handle)?.close();
        new_string(env, &metrics_json(&emitted).to_string())
    })
}

/// `Native.guardExpiresAt(handle)`: the effective expiry as decimal epoch nanos, or `null`.
#[jni_mangle("dev.leasekit.Native")]
pub fn guard_expires_at<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: i64,
) -> JString<'local> {
    run(env, |env| match guard(handle)?.expires_at() {
        Some(t) => new_string(env, &timestamp_text(t)),
        None => Ok(JString::default()),
    })
}

/// `Native.guardFree(handle)`: releases the native memory of a guard (not its budget: that is
/// `guardClose`). Java calls it exactly once per handle; `0` is ignored.
#[jni_mangle("dev.leasekit.Native")]
pub fn guard_free<'local>(env: EnvUnowned<'local>, _class: JClass<'local>, handle: i64) {
    run(env, |_env| {
        if handle != 0 {
            // SAFETY: the handle came from `into_handle` and Java frees it exactly once.
            drop(unsafe { Box::from_raw(handle as *mut LeaseGuard) });
        }
        Ok(())
    })
}
