//! Lease values: `CompiledLease`, the lease argument every function takes, shape validation,
//! normalization, the subset check and `lintLease`.
//!
//! A plain object or JSON text is converted (walked, validated, every pattern compiled) on
//! each call that takes it; a `CompiledLease` is converted once, so code that checks the same
//! leases repeatedly (subset checks on every delegation, guards built per job) skips that.

use leasekit::{Lease, wire};
use napi::Env;
use napi::bindgen_prelude::{FromNapiValue, JavaScriptClassExt, Unknown, sys};
use napi_derive::napi;
use serde_json::Value;

use crate::convert::{JsArg, constraints_from_js, options_json};
use crate::error::{Result, internal, invalid_arg, run};

/// A lease validated and compiled once (from a plain object or JSON text). Pass it anywhere
/// a lease is accepted; `toJSON()` gives the stored (canonical) plain object.
#[napi]
pub struct CompiledLease {
    inner: Lease,
}

#[napi]
impl CompiledLease {
    /// Validates and compiles `lease` (a plain object, or JSON text whose duplicate keys are
    /// rejected). Throws `InvalidRequestError` for an invalid lease.
    #[napi(constructor, ts_args_type = "lease: LeaseInput")]
    pub fn new(lease: LeaseArg<'_>) -> Result<Self> {
        run(|| lease_arg(&lease).map(|inner| CompiledLease { inner }))
    }

    /// The lease in stored (canonical) form, as a plain object (`JSON.stringify` uses it).
    #[napi(js_name = "toJSON", ts_return_type = "Lease")]
    pub fn to_json(&self) -> Result<Value> {
        run(|| Ok(self.inner.to_value()))
    }

    /// The canonical JSON text.
    #[napi(js_name = "toString")]
    pub fn to_text(&self) -> Result<String> {
        run(|| Ok(self.inner.to_json()))
    }
}

/// A lease argument: a `CompiledLease`, or a plain object / JSON text converted now.
pub enum LeaseArg<'a> {
    /// Compiled already.
    Compiled(&'a CompiledLease),
    /// A plain object or JSON text.
    Plain(Value),
}

impl FromNapiValue for LeaseArg<'_> {
    unsafe fn from_napi_value(env: sys::napi_env, value: sys::napi_value) -> napi::Result<Self> {
        // SAFETY: `value` is a live value of the current call on `env`.
        let unknown = unsafe { Unknown::from_raw_unchecked(env, value) };
        if CompiledLease::instance_of(&Env::from_raw(env), &unknown)? {
            // SAFETY: checked to be a CompiledLease instance just above.
            Ok(LeaseArg::Compiled(unsafe {
                <&CompiledLease>::from_napi_value(env, value)
            }?))
        } else {
            // SAFETY: as above.
            let plain = unsafe { JsArg::from_raw(env, value) }.json();
            Ok(LeaseArg::Plain(plain.map_err(invalid_arg)?))
        }
    }
}

/// The core lease of a lease argument.
pub fn lease_arg(arg: &LeaseArg<'_>) -> leasekit::Result<Lease> {
    match arg {
        LeaseArg::Compiled(compiled) => Ok(compiled.inner.clone()),
        // JSON text lets the core reject duplicate keys.
        LeaseArg::Plain(Value::String(text)) => Lease::from_json(text),
        LeaseArg::Plain(value) => Lease::from_value(value),
    }
}

/// Checks that `lease` has the ARCP lease shape (SEMANTICS section 2).
/// Throws `InvalidRequestError` otherwise.
#[napi(ts_args_type = "lease: LeaseInput")]
pub fn validate_lease_shape(lease: LeaseArg<'_>) -> Result<()> {
    run(|| match &lease {
        LeaseArg::Compiled(_) => Ok(()), // validated when compiled
        LeaseArg::Plain(Value::String(text)) => Lease::from_json(text).map(|_| ()),
        LeaseArg::Plain(other) => leasekit::validate_lease_shape(other),
    })
}

/// Validates `lease` and returns it in stored (canonical) form as a plain object.
/// A string argument is parsed as JSON text (duplicate keys are rejected).
#[napi(ts_args_type = "lease: LeaseInput", ts_return_type = "Lease")]
pub fn normalize_lease(lease: LeaseArg<'_>) -> Result<Value> {
    run(|| lease_arg(&lease).map(|l| l.to_value()))
}

/// Validates `lease` and returns its canonical JSON text.
#[napi(ts_args_type = "lease: LeaseInput")]
pub fn lease_to_json(lease: LeaseArg<'_>) -> Result<String> {
    run(|| lease_arg(&lease).map(|l| l.to_json()))
}

/// Whether `child` is a subset of `parent` (SEMANTICS section 9). Invalid input throws.
#[napi(
    ts_args_type = "child: LeaseInput, parent: LeaseInput, options?: SubsetOptions | undefined | null"
)]
pub fn is_lease_subset(
    child: LeaseArg<'_>,
    parent: LeaseArg<'_>,
    options: Option<JsArg>,
) -> Result<bool> {
    run(|| {
        let (child, parent) = (lease_arg(&child)?, lease_arg(&parent)?);
        let options = subset_options(options.as_ref())?;
        Ok(leasekit::is_lease_subset(
            &child,
            &parent,
            &options.as_core(),
        ))
    })
}

/// Throws `LeaseSubsetViolationError` (details: capability, pattern, witness) unless
/// `child` is a subset of `parent`. `assertLeaseSubset` is the same function under its former
/// name.
#[napi(
    ts_args_type = "child: LeaseInput, parent: LeaseInput, options?: SubsetOptions | undefined | null"
)]
pub fn check_lease_subset(
    child: LeaseArg<'_>,
    parent: LeaseArg<'_>,
    options: Option<JsArg>,
) -> Result<()> {
    run(|| {
        let (child, parent) = (lease_arg(&child)?, lease_arg(&parent)?);
        let options = subset_options(options.as_ref())?;
        leasekit::check_lease_subset(&child, &parent, &options.as_core())
    })
}

/// The subset options as core's wire shape (`leasekit::wire::SubsetOptions`), read as plain
/// JSON data, every key included: core refuses an unknown key and reads `parentRemaining` with
/// its one amount-map rule (decimal strings only, so a JavaScript number is refused). Only a
/// constraints object is converted first, because its `expires_at` may be a `Date` or epoch
/// milliseconds.
fn subset_options(options: Option<&JsArg>) -> leasekit::Result<wire::SubsetOptions> {
    let fields = options_json(options, "subset options", |key, field| {
        Ok(Some(match key {
            "childConstraints" | "parentConstraints" if !field.is_nullish() => {
                constraints_from_js(Some(&field))?.to_value()
            }
            _ => field.json()?,
        }))
    })?;
    wire::SubsetOptions::from_value(fields, wire::KeyStyle::Camel)
}

/// The lint warnings of `lease` (SEMANTICS-valid patterns that are almost never meant, such
/// as `https://api.example.com**`), in capability and pattern order: `{code, capability,
/// pattern, message, hint}` with stable kebab-case codes. An invalid lease throws
/// `InvalidRequestError`.
#[napi(ts_args_type = "lease: LeaseInput", ts_return_type = "LeaseWarning[]")]
pub fn lint_lease(lease: LeaseArg<'_>) -> Result<Value> {
    run(|| serde_json::to_value(leasekit::lint_lease(&lease_arg(&lease)?)).map_err(internal))
}
