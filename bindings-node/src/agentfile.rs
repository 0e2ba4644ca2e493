//! The agentrc Agentfile: parse, lint and derive the requested lease.

use leasekit::agentfile as af;
use leasekit::wire;
use napi_derive::napi;
use serde_json::Value;

use crate::convert::JsArg;
use crate::error::{Result, internal, run};
use crate::text::Text;

/// Parses (strict unless `compat`) and lints an Agentfile and derives its lease. Never
/// throws for a bad Agentfile: `{ok, diagnostics, lease}` where `ok` means no
/// error-severity diagnostic and `lease` is present exactly when `ok`. Secret values never
/// appear in the result.
#[napi(
    ts_args_type = "text: string, options?: AgentfileOptions | undefined | null",
    ts_return_type = "AgentfileReport"
)]
pub fn check_agentfile(text: Text, options: Option<JsArg>) -> Result<Value> {
    run(|| wire::agentfile_report_value(&af::check_agentfile(&text, compat(options.as_ref())?)))
}

/// The `compat` flag of `{compat?}` (core's wire shape).
fn compat(options: Option<&JsArg>) -> leasekit::Result<bool> {
    let options = options.map(JsArg::json).transpose()?.unwrap_or_default();
    Ok(wire::AgentfileOptions::from_value(options, wire::KeyStyle::Camel)?.compat())
}

/// A parsed Agentfile (`Agentfile.parse`): core's Agentfile functions one to one. Parsing
/// never throws for bad content (problems are diagnostics); secret values never appear in
/// anything it answers.
#[napi]
pub struct Agentfile {
    inner: af::Agentfile,
}

#[napi]
impl Agentfile {
    /// Parses `text` (strict unless `options.compat`).
    #[napi(
        factory,
        ts_args_type = "text: string, options?: AgentfileOptions | undefined | null"
    )]
    pub fn parse(text: Text, options: Option<JsArg>) -> Result<Self> {
        run(|| {
            let compat = compat(options.as_ref())?;
            let inner = af::parse_agentfile(&text, &af::ParseOptions { compat });
            Ok(Agentfile { inner })
        })
    }

    /// Whether a parse diagnostic is an error.
    #[napi]
    pub fn has_errors(&self) -> bool {
        self.inner.has_errors()
    }

    /// Parse diagnostics plus every lint rule, sorted by position.
    #[napi(ts_return_type = "AgentfileDiagnostic[]")]
    pub fn lint(&self) -> Result<Value> {
        run(|| serde_json::to_value(af::lint(&self.inner)).map_err(internal))
    }

    /// The lease the Agentfile requests (`InvalidRequestError` when it cannot be derived).
    #[napi(ts_return_type = "Lease")]
    pub fn lease(&self) -> Result<Value> {
        run(|| Ok(af::agentfile_lease(&self.inner)?.to_value()))
    }

    /// The lockfile as an object (`InvalidRequestError` when lint reports an error).
    #[napi(ts_return_type = "Record<string, unknown>")]
    pub fn lock(&self) -> Result<Value> {
        run(|| serde_json::to_value(af::lock(&self.inner)?).map_err(internal))
    }

    /// The lockfile's text (`agentrc.lock`: deterministic JSON with a trailing newline).
    #[napi]
    pub fn lockfile_json(&self) -> Result<String> {
        run(|| Ok(af::lockfile_json(&af::lock(&self.inner)?)))
    }

    /// `sha256:<hex>` of the package.
    #[napi]
    pub fn package_digest(&self) -> String {
        af::package_digest(&self.inner)
    }

    /// Throws `LeaseSubsetViolationError` or `InvalidRequestError` unless this Agentfile only
    /// narrows `parent`.
    #[napi]
    pub fn check_inheritance(&self, parent: &Agentfile) -> Result<()> {
        run(|| af::check_inheritance(&parent.inner, &self.inner))
    }

    /// The Cedar decision `{allowed, determining, errors}` for a request (entity uids such as
    /// `AgentRC::Tool::"file_read"`); fails closed: any error denies.
    #[napi(
        ts_args_type = "principal: string, action: string, resource: string, context?: Record<string, unknown> | null",
        ts_return_type = "{ allowed: boolean, determining: string[], errors: string[] }"
    )]
    pub fn evaluate_policy(
        &self,
        principal: Text,
        action: Text,
        resource: Text,
        context: Option<JsArg>,
    ) -> Result<Value> {
        run(|| {
            let context = match context.as_ref().filter(|c| !c.is_nullish()) {
                Some(c) => c.json()?,
                None => Value::Null,
            };
            let decision =
                af::evaluate_policy(&self.inner, &principal, &action, &resource, &context);
            serde_json::to_value(decision).map_err(internal)
        })
    }

    /// The parsed file (syntax marker, directives, credentials by reference only,
    /// diagnostics, source digest) as a plain object.
    #[napi(js_name = "toJSON", ts_return_type = "Record<string, unknown>")]
    pub fn to_json(&self) -> Result<Value> {
        run(|| serde_json::to_value(&self.inner).map_err(internal))
    }
}
