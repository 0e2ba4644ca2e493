//! Agentfile native calls of `dev.leasekit.Native` (parse + lint + derived lease).

use jni::EnvUnowned;
use jni::jni_mangle;
use jni::objects::{JClass, JString};
use leasekit::wire;

use crate::convert::{new_string, string_arg};
use crate::error::run;

/// `Native.agentfileCheck(text, compat)`: parses (strict unless `compat`), lints and derives
/// the lease; the core's report as JSON `{"ok", "diagnostics": [..], "lease": {..}|null}`.
#[jni_mangle("dev.leasekit.Native")]
pub fn agentfile_check<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    text: JString<'local>,
    compat: bool,
) -> JString<'local> {
    run(env, |env| {
        let text = string_arg(env, &text, "Agentfile text")?;
        let report = leasekit::agentfile::check_agentfile(&text, compat);
        new_string(env, &wire::agentfile_report_value(&report)?.to_string())
    })
}
