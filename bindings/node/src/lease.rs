//! Lease values: shape validation, normalization, subset and narrowing.

use leasekit::{Lease, SubsetOptions, wire};
use napi_derive::napi;
use serde_json::{Map, Value};

use crate::boundary::{Result, run};
use crate::compiled::{LeaseArg, lease_arg};
use crate::convert::{JsArg, constraints_from_js};

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
/// `child` is a subset of `parent`.
#[napi(
    ts_args_type = "child: LeaseInput, parent: LeaseInput, options?: SubsetOptions | undefined | null"
)]
pub fn assert_lease_subset(
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

/// The effective lease of `requested` under `ceiling` and the list of reductions
/// (SEMANTICS section 10).
#[napi(
    ts_args_type = "requested: LeaseInput, ceiling: LeaseInput",
    ts_return_type = "Narrowed"
)]
pub fn narrow_lease(requested: LeaseArg<'_>, ceiling: LeaseArg<'_>) -> Result<Value> {
    run(|| {
        let narrowed = leasekit::narrow_lease(&lease_arg(&requested)?, &lease_arg(&ceiling)?)?;
        wire::NarrowedAnswer::from(&narrowed).to_value()
    })
}

/// The effective constraints of `requested` under `ceiling` (the earlier expiry).
#[napi(
    ts_args_type = "requested?: ConstraintsInput | undefined | null, ceiling?: ConstraintsInput | undefined | null",
    ts_return_type = "LeaseConstraints"
)]
pub fn narrow_constraints(requested: Option<JsArg>, ceiling: Option<JsArg>) -> Result<Value> {
    run(|| {
        let r = constraints_from_js(requested.as_ref())?;
        let c = constraints_from_js(ceiling.as_ref())?;
        Ok(wire::constraints_value(&leasekit::narrow_constraints(
            &r, &c,
        )))
    })
}
