//! `LeaseGuard` handle calls of `dev.leasekit.Native`.
//!
//! A guard lives in a `Box` whose address is the Java handle (`long`). Java's `LeaseGuard`
//! owns the handle: `close()` only closes the core guard (`guardClose`); the memory is freed
//! exactly once, by its `Cleaner` when the Java object is unreachable, so no call can follow
//! or overlap the free (see `NativeHandle.java`). Each call that consults time passes the Java
//! clock's instant, installed for that call by [`with_optional_now`], or, for a guard built on
//! the system clock, no instant (`nano == NO_TIME`): the core then reads the clock itself.

use std::borrow::Cow;
use std::sync::Arc;

use jni::EnvUnowned;
use jni::jni_mangle;
use jni::objects::{JClass, JString};
use jni::sys::jstring;
use leasekit::{
    CapabilityKind, Clock, LeaseGuard, RESERVED_CAPABILITIES, SystemClock, parse_amount, wire,
};

use crate::clock::{CallerClock, with_optional_now};
use crate::convert::{
    constraints_arg, lease_arg, new_string, optional_timestamp, string_arg, timestamp_text,
};
use crate::error::{BindResult, invalid, natives, run_raw};
use crate::text::{self, RawEnv, TextBuf};

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

natives! {
    /// `Native.guardNew(lease, constraints, graceMillis, allowAnyModel, systemClock)`: a new
    /// guard handle. With `systemClock` the guard reads the system clock itself (Java's clock is
    /// `Clock.systemUTC()` and its calls pass no instant); otherwise each call supplies the
    /// instant.
    #[jni_mangle("dev.leasekit.Native")]
    pub fn guard_new(
        env,
        lease_json: JString<'local>,
        constraints_json: JString<'local>,
        grace_millis: i64,
        allow_any_model: bool,
        system_clock: bool,
    ) -> i64 {
        let lease = lease_arg(env, &lease_json, "lease")?;
        let constraints = constraints_arg(env, &constraints_json, "constraints_json")?;
        let options = wire::GuardOptions::from_value(
            serde_json::json!({"grace_millis": grace_millis, "allow_any_model": allow_any_model}),
            wire::KeyStyle::Snake,
        )?
        .to_core();
        let clock: Arc<dyn Clock> = if system_clock {
            Arc::new(SystemClock)
        } else {
            Arc::new(CallerClock)
        };
        Ok(into_handle(LeaseGuard::with_options(lease, constraints, clock, options)))
    }

    /// `Native.reservedCapabilities()`: the reserved capability names, one per line, in the
    /// order of [`RESERVED_CAPABILITIES`]: a name's index is its `capabilityCode` in
    /// `guardAuthorize`.
    #[jni_mangle("dev.leasekit.Native")]
    pub fn reserved_capabilities(env) -> JString<'local> {
        new_string(env, &RESERVED_CAPABILITIES.join("\n"))
    }

    /// `Native.guardRecordMetric(handle, epochSecond, nano, name, value, unit)`: the emitted
    /// metrics as a JSON array.
    #[jni_mangle("dev.leasekit.Native")]
    #[allow(clippy::too_many_arguments)]
    pub fn guard_record_metric(
        env,
        handle: i64,
        epoch_second: i64,
        nano: i32,
        name: JString<'local>,
        value: JString<'local>,
        unit: JString<'local>,
    ) -> JString<'local> {
        let guard = guard(handle)?;
        let now = optional_timestamp(epoch_second, nano)?;
        let name = string_arg(env, &name, "metric name")?;
        let value = string_arg(env, &value, "metric value")?;
        let unit = string_arg(env, &unit, "metric unit")?;
        let emitted = with_optional_now(now, || guard.record_metric(&name, &value, &unit))?;
        new_string(env, &wire::metrics_json(&emitted)?)
    }

    /// `Native.guardReserve(handle, epochSecond, nano, currency, amount)`: the emitted metrics.
    #[jni_mangle("dev.leasekit.Native")]
    pub fn guard_reserve(
        env,
        handle: i64,
        epoch_second: i64,
        nano: i32,
        currency: JString<'local>,
        amount: JString<'local>,
    ) -> JString<'local> {
        let guard = guard(handle)?;
        let now = optional_timestamp(epoch_second, nano)?;
        let currency = string_arg(env, &currency, "currency")?;
        let amount = parse_amount(&string_arg(env, &amount, "amount")?)?;
        let emitted = with_optional_now(now, || guard.reserve(&currency, amount))?;
        new_string(env, &wire::metrics_json(&emitted)?)
    }

    /// `Native.guardRemaining(handle)`: the remaining budget, `{cur: "dec"}`.
    #[jni_mangle("dev.leasekit.Native")]
    pub fn guard_remaining(env, handle: i64) -> JString<'local> {
        new_string(env, &wire::amounts_json(&guard(handle)?.remaining()))
    }

    /// `Native.guardDelegate(handle, epochSecond, nano, childLease, childConstraints)`: the
    /// child guard's handle; `LeaseSubsetViolationException` unless the child is a subset.
    #[jni_mangle("dev.leasekit.Native")]
    pub fn guard_delegate(
        env,
        handle: i64,
        epoch_second: i64,
        nano: i32,
        child_json: JString<'local>,
        child_constraints_json: JString<'local>,
    ) -> i64 {
        let guard = guard(handle)?;
        let now = optional_timestamp(epoch_second, nano)?;
        let child = lease_arg(env, &child_json, "child lease")?;
        let child_constraints =
            constraints_arg(env, &child_constraints_json, "child_constraints_json")?;
        let child_guard = with_optional_now(now, || guard.delegate(child, child_constraints))?;
        Ok(into_handle(child_guard))
    }

    /// `Native.guardClose(handle)`: closes the guard (a child returns its unspent budget to its
    /// parent); the emitted metrics. Idempotent; the handle stays valid until `guardFree`.
    #[jni_mangle("dev.leasekit.Native")]
    pub fn guard_close(env, handle: i64) -> JString<'local> {
        new_string(env, &wire::metrics_json(&guard(handle)?.close())?)
    }

    /// `Native.guardIsExhausted(handle)`: whether some budget counter is at or below zero
    /// (core's [`LeaseGuard::is_exhausted`]).
    #[jni_mangle("dev.leasekit.Native")]
    pub fn guard_is_exhausted(_, handle: i64) -> bool {
        Ok(guard(handle)?.is_exhausted())
    }

    /// `Native.guardExpiresAt(handle)`: the effective expiry as decimal epoch nanos, or `null`.
    #[jni_mangle("dev.leasekit.Native")]
    pub fn guard_expires_at(env, handle: i64) -> JString<'local> {
        match guard(handle)?.expires_at() {
            Some(t) => new_string(env, &timestamp_text(t)),
            None => Ok(JString::default()),
        }
    }

    /// `Native.guardFree(handle)`: releases the native memory of a guard (not its budget: that
    /// is `guardClose`). Java calls it exactly once per handle; `0` is ignored.
    #[jni_mangle("dev.leasekit.Native")]
    pub fn guard_free(_, handle: i64) {
        if handle != 0 {
            // SAFETY: the handle came from `into_handle` and Java frees it exactly once.
            drop(unsafe { Box::from_raw(handle as *mut LeaseGuard) });
        }
        Ok(())
    }
}

/// The capability of an authorize call: reserved (passed as its code) or read by name.
enum Capability<'a> {
    Reserved(CapabilityKind),
    Named(&'a str),
}

/// `Native.guardAuthorize(handle, epochSecond, nano, capability, capabilityCode,
/// capabilityLength, target, targetLength)`: `null` when `target` is already canonical (Java
/// then returns the caller's own string), else the canonical target; or the exception of the
/// first failed check. The lengths are the strings' `length()`. A `capabilityCode` `>= 0` says
/// that `capability` equals `RESERVED_CAPABILITIES[capabilityCode]`, which is then used
/// without reading the Java string (one JNI call less); `-1` means "read `capability`".
#[jni_mangle("dev.leasekit.Native")]
#[allow(clippy::too_many_arguments)]
pub fn guard_authorize<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: i64,
    epoch_second: i64,
    nano: i32,
    capability: JString<'local>,
    capability_code: i32,
    capability_length: i32,
    target: JString<'local>,
    target_length: i32,
) -> jstring {
    run_raw(env, |env| {
        let guard = guard(handle)?;
        let now = optional_timestamp(epoch_second, nano)?;
        let (mut cap_buf, mut target_buf) = (TextBuf::default(), TextBuf::default());
        let capability = if capability_code == -1 {
            // SAFETY: `env` is this call's JNIEnv, `capability` its argument of this length.
            let name = unsafe {
                text::read(
                    env,
                    &capability,
                    capability_length,
                    "capability",
                    &mut cap_buf,
                )?
            };
            Capability::Named(name)
        } else {
            usize::try_from(capability_code)
                .ok()
                .and_then(CapabilityKind::reserved)
                .map(Capability::Reserved)
                .ok_or_else(|| invalid(format!("unknown capability code {capability_code}")))?
        };
        // SAFETY: as above, for `target`.
        let target = unsafe { text::read(env, &target, target_length, "target", &mut target_buf)? };
        // A reserved capability by kind (no name lookup), any other by name.
        let canonical = with_optional_now(now, || match capability {
            Capability::Reserved(kind) => guard.authorize_kind_cow(kind, target),
            Capability::Named(name) => guard.authorize_cow(name, target),
        })?;
        // SAFETY: as above; no exception is pending after the reads.
        unsafe { canonical_result(env, target, canonical) }
    })
    .0
}

/// `Native.guardAuthorizeModel(handle, epochSecond, nano, modelId, modelIdLength)`: as
/// `guardAuthorize` with `model.use` (`null` when the id is returned as given).
#[jni_mangle("dev.leasekit.Native")]
pub fn guard_authorize_model<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: i64,
    epoch_second: i64,
    nano: i32,
    model_id: JString<'local>,
    model_id_length: i32,
) -> jstring {
    run_raw(env, |env| {
        let guard = guard(handle)?;
        let now = optional_timestamp(epoch_second, nano)?;
        let mut buf = TextBuf::default();
        // SAFETY: `env` is this call's JNIEnv, `model_id` its argument of this length.
        let model_id =
            unsafe { text::read(env, &model_id, model_id_length, "model id", &mut buf)? };
        let canonical = with_optional_now(now, || guard.authorize_model_cow(model_id))?;
        // SAFETY: as above.
        unsafe { canonical_result(env, model_id, canonical) }
    })
    .0
}

/// A `jstring` result of the hot natives (`null` by default: what an error returns).
struct RawString(jstring);

impl Default for RawString {
    fn default() -> Self {
        RawString(std::ptr::null_mut())
    }
}

/// The Java result of an authorization: `null` ("the argument as given") only when the core
/// borrowed the whole argument and the argument's text is exactly the Java string; otherwise a
/// new string holding the canonical target.
///
/// # Safety
///
/// `env` is the JNIEnv of the current native call, with no exception pending.
unsafe fn canonical_result(
    env: RawEnv,
    given: &str,
    canonical: Cow<'_, str>,
) -> BindResult<RawString> {
    match canonical {
        Cow::Borrowed(c) if c.len() == given.len() && std::ptr::eq(c.as_ptr(), given.as_ptr()) => {
            Ok(RawString::default())
        }
        c => Ok(RawString(unsafe { text::new_string(env, &c)? })),
    }
}
