//! The agentrc Agentfile: parse, lint and derive the requested lease.

use leasekit::wire;
use napi_derive::napi;
use serde_json::Value;

use crate::boundary::{Result, run};
use crate::convert::{JsArg, Text};

/// Parses (strict unless `compat`) and lints an Agentfile and derives its lease. Never
/// throws for a bad Agentfile: `{ok, diagnostics, lease}` where `ok` means no
/// error-severity diagnostic and `lease` is present exactly when `ok`. Secret values never
/// appear in the result.
#[napi(
    ts_args_type = "text: string, options?: AgentfileOptions | undefined | null",
    ts_return_type = "AgentfileReport"
)]
pub fn check_agentfile(text: Text, options: Option<JsArg>) -> Result<Value> {
    run(|| {
        let options = match &options {
            Some(o) => wire::AgentfileOptions::from_value(o.json()?, wire::KeyStyle::Camel)?,
            None => wire::AgentfileOptions::default(),
        };
        let report = leasekit::agentfile::check_agentfile(&text, options.compat());
        wire::agentfile_report_value(&report)
    })
}
