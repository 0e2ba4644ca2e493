//! Narrowing (SEMANTICS section 10): the effective lease and constraints of a request under
//! a ceiling.

use leasekit::wire;
use napi_derive::napi;
use serde_json::Value;

use crate::convert::{JsArg, constraints_from_js};
use crate::error::{Result, run};
use crate::lease::{LeaseArg, lease_arg};

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
