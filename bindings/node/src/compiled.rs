//! `CompiledLease`: a lease validated and compiled once, accepted wherever a lease is.
//!
//! A plain object or JSON text is converted (walked, validated, every pattern compiled) on
//! each call that takes it; a `CompiledLease` is converted once, so code that checks the same
//! leases repeatedly (subset checks on every delegation, guards built per job) skips that.

use leasekit::Lease;
use napi::Env;
use napi::bindgen_prelude::{FromNapiValue, JavaScriptClassExt, TypeName, Unknown, ValueType, sys};
use napi_derive::napi;
use serde_json::Value;

use crate::boundary::{Result, run};
use crate::convert::{JsArg, lease_from_js};

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
