//! Reading the command's inputs: files, or stdin when the path is `-`.

use crate::failure::Failure;
use leasekit::agentfile::{Agentfile, ParseOptions, parse_agentfile};
use leasekit::{Lease, LeaseConstraints};
use std::io::Read;

/// Reads a whole file as UTF-8 text; `-` reads stdin.
pub fn read_text(path: &str) -> Result<String, Failure> {
    if path == "-" {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .map_err(|e| Failure::usage(format!("<stdin>: {e}")))?;
        Ok(text)
    } else {
        std::fs::read_to_string(path).map_err(|e| Failure::usage(format!("{path}: {e}")))
    }
}

/// The name to show for an input path.
pub fn display_name(path: &str) -> &str {
    if path == "-" { "<stdin>" } else { path }
}

/// Reads and validates a lease (an ARCP lease JSON object).
pub fn read_lease(path: &str) -> Result<Lease, Failure> {
    let text = read_text(path)?;
    Lease::from_json(&text).map_err(|e| Failure::core(display_name(path), &e))
}

/// Reads lease constraints (`{"expires_at": "..."}`); `None` path means no constraints.
pub fn read_constraints(path: Option<&str>) -> Result<LeaseConstraints, Failure> {
    match path {
        None => Ok(LeaseConstraints { expires_at: None }),
        Some(p) => {
            let text = read_text(p)?;
            LeaseConstraints::from_json(&text).map_err(|e| Failure::core(display_name(p), &e))
        }
    }
}

/// Rejects more than one `-` among the given paths (stdin can be read only once).
pub fn at_most_one_stdin(paths: &[&str]) -> Result<(), Failure> {
    if paths.iter().filter(|p| **p == "-").count() > 1 {
        return Err(Failure::usage("only one input may be `-` (stdin)"));
    }
    Ok(())
}

/// Reads and parses an Agentfile (strict unless `compat`). Parsing never fails: problems
/// are in the diagnostics.
pub fn read_agentfile(path: &str, compat: bool) -> Result<Agentfile, Failure> {
    let text = read_text(path)?;
    Ok(parse_agentfile(&text, &ParseOptions { compat }))
}
