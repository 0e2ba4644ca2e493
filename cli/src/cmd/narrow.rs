//! `leasekit narrow`: the effective lease of a request under a ceiling (SEMANTICS 10).

use leasekit::narrow_lease;
use serde_json::json;

use crate::Report;
use crate::args::{Format, NarrowArgs};
use crate::failure::Failure;
use crate::input::{at_most_one_stdin, read_lease};
use crate::style::Style;

/// Runs `narrow`.
pub fn run(args: &NarrowArgs, style: &Style) -> Result<Report, Failure> {
    at_most_one_stdin(&[args.requested.as_str(), args.ceiling.as_str()])?;
    let requested = read_lease(&args.requested)?;
    let ceiling = read_lease(&args.ceiling)?;
    let narrowed = narrow_lease(&requested, &ceiling)?;
    let stdout = match args.format {
        Format::Json => {
            let reductions = serde_json::to_value(&narrowed.reductions)
                .map_err(|e| Failure::usage(format!("cannot serialize reductions: {e}")))?;
            super::pretty(&json!({"lease": narrowed.lease.to_value(), "reductions": reductions}))
        }
        Format::Text => {
            let mut out = String::new();
            if narrowed.reductions.is_empty() {
                out.push_str(&format!(
                    "{}\n",
                    style.good("no reductions: the request fits the ceiling")
                ));
            } else {
                out.push_str(&format!("{}\n", style.bold("reductions:")));
                for r in &narrowed.reductions {
                    let pattern = r
                        .pattern
                        .as_deref()
                        .map(|p| format!(" {p}"))
                        .unwrap_or_default();
                    let replacement = if r.replacement.is_empty() {
                        String::new()
                    } else {
                        format!(" -> {}", r.replacement.join(", "))
                    };
                    out.push_str(&format!(
                        "  {} {}{pattern}{replacement}\n",
                        style.warn(&r.action),
                        r.capability
                    ));
                }
            }
            out.push_str(&format!("{}\n", style.bold("effective lease:")));
            out.push_str(&super::pretty(&narrowed.lease.to_value()));
            out
        }
    };
    Ok(Report::new(stdout, 0))
}
