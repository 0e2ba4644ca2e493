//! `leasekit check`: authorize targets against a lease with a real `LeaseGuard`.

use std::sync::Arc;

use leasekit::agentfile::agentfile_lease;
use leasekit::{
    Clock, Error, LeaseGuard, ManualClock, SystemClock, canonicalize_target, parse_expires_at,
};
use serde_json::{Value, json};

use crate::Report;
use crate::args::{CheckArgs, Format};
use crate::failure::Failure;
use crate::input::{at_most_one_stdin, display_name, read_agentfile, read_constraints, read_lease};
use crate::style::Style;

/// The answer for one target.
struct Verdict {
    target: String,
    /// `Ok(canonical target)` or the error.
    result: Result<String, Error>,
}

impl Verdict {
    /// The canonical target: granted one on allow, else what canonicalization gives (if anything).
    fn canonical(&self, capability: &str) -> Option<String> {
        match &self.result {
            Ok(c) => Some(c.clone()),
            Err(_) => canonicalize_target(capability, &self.target).ok(),
        }
    }
}

/// Runs `check`.
pub fn run(args: &CheckArgs, style: &Style) -> Result<Report, Failure> {
    let mut stdin_paths: Vec<&str> = args
        .lease
        .iter()
        .chain(&args.agentfile)
        .map(String::as_str)
        .collect();
    stdin_paths.extend(args.constraints.as_deref());
    at_most_one_stdin(&stdin_paths)?;
    let lease = match (&args.lease, &args.agentfile) {
        (Some(path), _) => read_lease(path)?,
        (None, Some(path)) => {
            let af = read_agentfile(path, false)?;
            agentfile_lease(&af).map_err(|e| Failure::core(display_name(path), &e))?
        }
        (None, None) => return Err(Failure::usage("give --lease or --agentfile")),
    };
    let constraints = read_constraints(args.constraints.as_deref())?;
    let clock: Arc<dyn Clock> = match &args.now {
        Some(text) => Arc::new(ManualClock::new(
            parse_expires_at(text).map_err(|e| Failure::core("--now", &e))?,
        )),
        None => Arc::new(SystemClock),
    };
    let guard = LeaseGuard::new(lease, constraints, clock);
    let verdicts: Vec<Verdict> = args
        .targets
        .iter()
        .map(|target| Verdict {
            target: target.clone(),
            // `authorize("model.use", id)` is `authorize_model(id)` in the core.
            result: guard.authorize(&args.capability, target),
        })
        .collect();
    let denied = verdicts.iter().any(|v| v.result.is_err());
    let stdout = match args.format {
        Format::Json => super::pretty(&to_json(&args.capability, &verdicts)),
        Format::Text => to_text(&args.capability, &verdicts, style),
    };
    Ok(Report::new(stdout, u8::from(denied)))
}

fn to_json(capability: &str, verdicts: &[Verdict]) -> Value {
    let results: Vec<Value> = verdicts
        .iter()
        .map(|v| {
            let mut entry = json!({
                "target": v.target,
                "allowed": v.result.is_ok(),
                "canonical": v.canonical(capability),
            });
            if let Err(e) = &v.result {
                entry["error"] = e.to_json();
            }
            entry
        })
        .collect();
    json!({
        "capability": capability,
        "allowed": verdicts.iter().all(|v| v.result.is_ok()),
        "results": results,
    })
}

fn to_text(capability: &str, verdicts: &[Verdict], style: &Style) -> String {
    let mut out = String::new();
    for v in verdicts {
        let canonical = v.canonical(capability);
        let shown_canonical = match &canonical {
            Some(c) if *c != v.target => format!("  {}", style.dim(&format!("(canonical: {c})"))),
            _ => String::new(),
        };
        match &v.result {
            Ok(_) => out.push_str(&format!(
                "{}  {capability} {}{shown_canonical}\n",
                style.good("allow"),
                v.target
            )),
            Err(e) => out.push_str(&format!(
                "{}   {capability} {}{shown_canonical}\n       {}: {}\n",
                style.bad("deny"),
                v.target,
                style.bad(e.code().as_str()),
                e.message()
            )),
        }
    }
    out
}
