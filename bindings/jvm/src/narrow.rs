//! Narrowing calls of `dev.leasekit.Native`: a requested lease or constraints narrowed to a
//! ceiling.

use jni::EnvUnowned;
use jni::jni_mangle;
use jni::objects::{JClass, JString};
use leasekit::{narrow_constraints, narrow_lease, wire};

use crate::convert::{constraints, lease, new_string, optional_string_arg, string_arg};
use crate::error::run;

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
