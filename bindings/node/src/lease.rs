//! Lease values: `CompiledLease`, the lease argument every function takes, shape validation,
//! normalization, the subset check and `lintLease`.
//!
//! A plain object or JSON text is converted (walked, validated, every pattern compiled) on
//! each call that takes it; a `CompiledLease` is converted once, so code that checks the same
//! leases repeatedly (subset checks on every delegation, guards built per job) skips that.

use leasekit::{Error, ErrorCode, Lease, SubsetOptions, wire};
use napi::Env;
use napi::bindgen_prelude::{FromNapiValue, JavaScriptClassExt, TypeName, Unknown, ValueType, sys};
use napi_derive::napi;
use serde_json::{Map, Value};

use crate::convert::{JsArg, constraints_from_js, lease_from_js};
use crate::error::{Result, run};

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

impl TypeName for LeaseArg<'_> {
    fn type_name() -> &'static str {
        "Lease | string | CompiledLease"
    }

    fn value_type() -> ValueType {
        ValueType::Unknown
    }
}

impl FromNapiValue for LeaseArg<'_> {
    unsafe fn from_napi_value(env: sys::napi_env, value: sys::napi_value) -> napi::Result<Self> {
        // SAFETY: `value` is a live value of the current call on `env`.
        let unknown = unsafe { Unknown::from_raw_unchecked(env, value) };
        if CompiledLease::instance_of(&Env::from_raw(env), &unknown)? {
            // SAFETY: checked to be a CompiledLease instance just above.
            let compiled = unsafe { <&CompiledLease>::from_napi_value(env, value) }?;
            Ok(LeaseArg::Compiled(compiled))
        } else {
            // SAFETY: as above.
            let plain = unsafe { JsArg::from_raw(env, value) }
                .json()
                .map_err(|e| napi::Error::new(napi::Status::InvalidArg, e.message().to_owned()))?;
            Ok(LeaseArg::Plain(plain))
        }
    }
}

/// The core lease of a lease argument.
pub fn lease_arg(arg: &LeaseArg<'_>) -> leasekit::Result<Lease> {
    match arg {
        LeaseArg::Compiled(compiled) => Ok(compiled.inner.clone()),
        LeaseArg::Plain(value) => lease_from_js(value),
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
        with_subset_inputs(&child, &parent, options.as_ref(), |c, p, o| {
            Ok(leasekit::is_lease_subset(c, p, o))
        })
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
        with_subset_inputs(
            &child,
            &parent,
            options.as_ref(),
            leasekit::check_lease_subset,
        )
    })
}

/// Converts the subset inputs and hands them to `f`. The options go to core's wire shape
/// (`leasekit::wire::SubsetOptions`) as plain JSON data, every key included: core refuses an
/// unknown key and reads `parentRemaining` with its one amount-map rule (decimal strings only,
/// so a JavaScript number is refused). Only a constraints object is converted first, because
/// its `expires_at` may be a `Date` or epoch milliseconds.
fn with_subset_inputs<T>(
    child: &LeaseArg<'_>,
    parent: &LeaseArg<'_>,
    options: Option<&JsArg>,
    f: impl FnOnce(&Lease, &Lease, &SubsetOptions) -> leasekit::Result<T>,
) -> leasekit::Result<T> {
    let child = lease_arg(child)?;
    let parent = lease_arg(parent)?;
    let options = match options {
        None => wire::SubsetOptions::default(),
        Some(options) => {
            let mut fields = Map::new();
            for (key, field) in options.entries("subset options")? {
                let value = if field.is_nullish() {
                    Value::Null
                } else {
                    match key.as_str() {
                        "childConstraints" | "parentConstraints" => {
                            constraints_from_js(Some(&field))?.to_value()
                        }
                        _ => field.json()?,
                    }
                };
                fields.insert(key, value);
            }
            wire::SubsetOptions::from_value(Value::Object(fields), wire::KeyStyle::Camel)?
        }
    };
    f(&child, &parent, &options.as_core())
}

/// The lint warnings of `lease` (SEMANTICS-valid patterns that are almost never meant, such
/// as `https://api.example.com**`), in capability and pattern order: `{code, capability,
/// pattern, message, hint}` with stable kebab-case codes. An invalid lease throws
/// `InvalidRequestError`.
#[napi(ts_args_type = "lease: LeaseInput", ts_return_type = "LeaseWarning[]")]
pub fn lint_lease(lease: LeaseArg<'_>) -> Result<Value> {
    run(|| {
        let warnings = leasekit::lint_lease(&lease_arg(&lease)?);
        serde_json::to_value(warnings)
            .map_err(|e| Error::new(ErrorCode::InternalError, e.to_string()))
    })
}
