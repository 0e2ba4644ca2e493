//! `leasekit`: look at an agent's declared authority and test it from the terminal.
//!
//! Every command is a thin layer over the `leasekit` core: it reads files (or stdin
//! for `-`), calls the core, and prints the result as text or JSON. Exit codes:
//! 0 = clean / allowed / subset, 1 = a finding (deny, violation, lint errors),
//! 2 = usage or input error (the command could not run).

mod args;
mod cmd;
mod failure;
mod input;
mod style;

use clap::Parser;
use std::io::Write;
use std::process::ExitCode;

use args::{Cli, Command};
use failure::Failure;
use style::Style;

/// What a command hands back to `main`: the text for stdout and the exit status.
pub struct Report {
    /// Everything to print on stdout.
    pub stdout: String,
    /// 0 clean, 1 finding.
    pub status: u8,
}

impl Report {
    /// A report with the given text and status.
    pub fn new(stdout: String, status: u8) -> Report {
        Report { stdout, status }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let style = Style::detect();
    // Catch panics so a bug in the core shows up as INTERNAL_ERROR, not a crash dump.
    let outcome = std::panic::catch_unwind(|| run(cli.command, &style)).unwrap_or_else(|payload| {
        Err(Failure::from(leasekit::Error::internal_from_panic(
            &*payload,
        )))
    });
    match outcome {
        Ok(report) => {
            let mut out = std::io::stdout().lock();
            // A closed pipe (`leasekit ... | head`) is not an error worth reporting.
            let _ = out.write_all(report.stdout.as_bytes());
            let _ = out.flush();
            ExitCode::from(report.status)
        }
        Err(failure) => {
            eprintln!("leasekit: {failure}");
            ExitCode::from(2)
        }
    }
}

/// Dispatches one parsed command.
fn run(command: Command, style: &Style) -> Result<Report, Failure> {
    match command {
        Command::Check(a) => cmd::check::run(&a, style),
        Command::Subset(a) => cmd::subset::run(&a, style),
        Command::Narrow(a) => cmd::narrow::run(&a, style),
        Command::Explain(a) => cmd::explain::run(&a, style),
        Command::Lint(a) => cmd::lint::run(&a, style),
        Command::Inspect(a) => cmd::inspect::run(&a, style),
        Command::Lock(a) => cmd::lock::run(&a, style),
        Command::Policy(a) => match &a.tool {
            Some(tool) => cmd::govpolicy::run(tool, style),
            None => cmd::policy::run(&a, style),
        },
        Command::Audit(a) => cmd::audit::run(&a, style),
        Command::Serve(a) => cmd::serve::run(&a),
        Command::Gov(a) => cmd::gov::run(&a, style),
        Command::McpGuard(a) => cmd::mcp_guard::run(&a),
    }
}
