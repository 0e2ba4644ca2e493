//! Narrowing calls of `dev.leasekit.Native`: a requested lease or constraints narrowed to a
//! ceiling.

use jni::jni_mangle;
use jni::objects::JString;
use leasekit::{narrow_constraints, narrow_lease, wire};

use crate::convert::{constraints_arg, lease_arg, new_string};
use crate::error::natives;

natives! {
    /// `Native.narrow(requested, ceiling)`: `{"lease": {..}, "reductions": [..]}`.
    #[jni_mangle("dev.leasekit.Native")]
    pub fn narrow(
        env,
        requested_json: JString<'local>,
        ceiling_json: JString<'local>,
    ) -> JString<'local> {
        let requested = lease_arg(env, &requested_json, "requested")?;
        let ceiling = lease_arg(env, &ceiling_json, "ceiling")?;
        let narrowed = narrow_lease(&requested, &ceiling)?;
        new_string(env, &wire::NarrowedAnswer::from(&narrowed).to_json()?)
    }

    /// `Native.narrowConstraints(requested, ceiling)`: the effective constraints as JSON.
    #[jni_mangle("dev.leasekit.Native")]
    pub fn narrow_constraints_json(
        env,
        requested_json: JString<'local>,
        ceiling_json: JString<'local>,
    ) -> JString<'local> {
        let requested = constraints_arg(env, &requested_json, "requested_json")?;
        let ceiling = constraints_arg(env, &ceiling_json, "ceiling_json")?;
        let out = wire::constraints_value(&narrow_constraints(&requested, &ceiling));
        new_string(env, &out.to_string())
    }
}
