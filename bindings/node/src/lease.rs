//! Lease values: shape validation, normalization, subset and narrowing.

use leasekit::{Error, Lease, SubsetOptions};
use napi::bindgen_prelude::{Object, Unknown};
use napi_derive::napi;
use serde_json::Value;

use crate::boundary::{Result, run};
use crate::compiled::{LeaseArg, lease_arg};
use crate::convert::{bad_input, constraints_from_js, constraints_to_js, decimal_map_from_js};

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
    options: Option<Object>,
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
    options: Option<Object>,
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

/// Converts the subset inputs and hands them to `f`.
fn with_subset_inputs<T>(
    child: &LeaseArg<'_>,
    parent: &LeaseArg<'_>,
    options: Option<&Object>,
    f: impl FnOnce(&Lease, &Lease, &SubsetOptions) -> leasekit::Result<T>,
) -> leasekit::Result<T> {
    let child = lease_arg(child)?;
    let parent = lease_arg(parent)?;
    let mut remaining = None;
    let mut child_constraints = None;
    let mut parent_constraints = None;
    if let Some(options) = options {
        for key in Object::keys(options).map_err(bad_input)? {
            let field: Option<Unknown> = options.get(&key).map_err(bad_input)?;
            match key.as_str() {
                "parentRemaining" => {
                    let value: Option<Value> = match field {
                        Some(v) => unsafe { v.cast() }.map_err(bad_input)?,
                        None => None,
                    };
                    remaining = match value {
                        None | Some(Value::Null) => None,
                        Some(v) => Some(decimal_map_from_js(&v)?),
                    };
                }
                "childConstraints" => {
                    child_constraints = Some(constraints_from_js(field.as_ref())?)
                }
                "parentConstraints" => {
                    parent_constraints = Some(constraints_from_js(field.as_ref())?)
                }
                other => {
                    return Err(Error::invalid(format!(
                        "unknown subset option {other:?} (expected parentRemaining, \
                         childConstraints, parentConstraints)"
                    )));
                }
            }
        }
    }
    let opts = SubsetOptions {
        parent_remaining: remaining.as_ref(),
        child_constraints: child_constraints.as_ref(),
        parent_constraints: parent_constraints.as_ref(),
    };
    f(&child, &parent, &opts)
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
        let reductions = serde_json::to_value(&narrowed.reductions)
            .map_err(|e| Error::new(leasekit::ErrorCode::InternalError, e.to_string()))?;
        Ok(serde_json::json!({ "lease": narrowed.lease.to_value(), "reductions": reductions }))
    })
}

/// The effective constraints of `requested` under `ceiling` (the earlier expiry).
#[napi(
    ts_args_type = "requested?: ConstraintsInput | undefined | null, ceiling?: ConstraintsInput | undefined | null",
    ts_return_type = "LeaseConstraints"
)]
pub fn narrow_constraints(requested: Option<Unknown>, ceiling: Option<Unknown>) -> Result<Value> {
    run(|| {
        let r = constraints_from_js(requested.as_ref())?;
        let c = constraints_from_js(ceiling.as_ref())?;
        Ok(constraints_to_js(&leasekit::narrow_constraints(&r, &c)))
    })
}
