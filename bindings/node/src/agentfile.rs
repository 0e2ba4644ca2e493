//! The agentrc Agentfile: parse, lint and derive the requested lease.

use leasekit::wire;
use napi_derive::napi;
use serde_json::Value;

use crate::boundary::{Result, run};

/// Options of `checkAgentfile`.
#[napi(object)]
pub struct AgentfileOptions {
    /// Compat mode: a two-argument `BIND` is a warning instead of an error (default false).
    pub compat: Option<bool>,
}

/// Parses (strict unless `compat`) and lints an Agentfile and derives its lease. Never
/// throws for a bad Agentfile: `{ok, diagnostics, lease}` where `ok` means no
/// error-severity diagnostic and `lease` is present exactly when `ok`. Secret values never
/// appear in the result.
#[napi(ts_return_type = "AgentfileReport")]
pub fn check_agentfile(text: String, options: Option<AgentfileOptions>) -> Result<Value> {
    run(|| {
        let compat = options.and_then(|o| o.compat).unwrap_or(false);
        wire::agentfile_report_value(&leasekit::agentfile::check_agentfile(&text, compat))
    })
}
