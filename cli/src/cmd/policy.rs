//! `leasekit policy`: evaluate a Cedar request against an Agentfile's policy set.

use leasekit::agentfile::evaluate_policy;
use serde_json::{Value, json};

use crate::Report;
use crate::args::{Format, PolicyArgs};
use crate::failure::Failure;
use crate::input::{display_name, read_agentfile};
use crate::style::Style;

/// Runs `policy`: exit 0 on allow, 1 on deny (including any parse or evaluation error).
pub fn run(args: &PolicyArgs, style: &Style) -> Result<Report, Failure> {
    let missing = |what: &str| Failure::usage(format!("policy: {what} is required"));
    let agentfile = args
        .agentfile
        .as_deref()
        .ok_or_else(|| missing("AGENTFILE"))?;
    let principal = args
        .principal
        .as_deref()
        .ok_or_else(|| missing("--principal"))?;
    let action = args.action.as_deref().ok_or_else(|| missing("--action"))?;
    let resource = args
        .resource
        .as_deref()
        .ok_or_else(|| missing("--resource"))?;
    let af = read_agentfile(agentfile, args.compat)?;
    let context: Value = match &args.context {
        None => Value::Null,
        Some(text) => serde_json::from_str(text)
            .map_err(|e| Failure::usage(format!("--context is not JSON: {e}")))?,
    };
    let decision = evaluate_policy(&af, principal, action, resource, &context);
    let stdout = match args.format {
        Format::Json => super::pretty(&json!({
            "agentfile": display_name(agentfile),
            "principal": principal,
            "action": action,
            "resource": resource,
            "context": context,
            "allowed": decision.allowed,
            "determining": decision.determining,
            "errors": decision.errors,
        })),
        Format::Text => {
            let mut out = if decision.allowed {
                format!("{}\n", style.good("allow"))
            } else {
                format!("{}\n", style.bad("deny"))
            };
            if !decision.determining.is_empty() {
                out.push_str(&format!(
                    "  determined by: {}\n",
                    decision.determining.join(", ")
                ));
            } else if decision.errors.is_empty() && !decision.allowed {
                out.push_str("  no policy permits this request (deny by default)\n");
            }
            for error in &decision.errors {
                out.push_str(&format!("  {}: {error}\n", style.bad("error")));
            }
            out
        }
    };
    Ok(Report::new(stdout, u8::from(!decision.allowed)))
}
