//! `leasekit lock`: write the `agentrc.lock` of an Agentfile (stdout or `-o FILE`).

use leasekit::agentfile::{lint, lock, lockfile_json};

use crate::Report;
use crate::args::LockArgs;
use crate::failure::Failure;
use crate::input::{display_name, read_agentfile};
use crate::style::Style;

/// Runs `lock`. An Agentfile with errors is not locked: its errors go to stderr, exit 1.
pub fn run(args: &LockArgs, style: &Style) -> Result<Report, Failure> {
    let af = read_agentfile(&args.agentfile, args.compat)?;
    let name = display_name(&args.agentfile);
    let lockfile = match lock(&af) {
        Ok(l) => l,
        Err(e) => {
            for d in lint(&af).iter().filter(|d| d.is_error()) {
                eprint!("{}", super::lint::diagnostic_line(name, d, &Style::plain()));
            }
            eprintln!("leasekit: error[{}]: {name}: {}", e.code(), e.message());
            return Ok(Report::new(String::new(), 1));
        }
    };
    let text = lockfile_json(&lockfile);
    match &args.output {
        None => Ok(Report::new(text, 0)),
        Some(path) => {
            std::fs::write(path, &text).map_err(|e| Failure::usage(format!("{path}: {e}")))?;
            Ok(Report::new(
                format!("{} {path} ({} bytes)\n", style.good("wrote"), text.len()),
                0,
            ))
        }
    }
}
