//! The command line: every command, its options and its `--help` examples.

use clap::{Args, Parser, Subcommand, ValueEnum};

/// Look at an agent's declared authority and test it, from the terminal.
#[derive(Debug, Parser)]
#[command(
    name = "leasekit",
    version,
    about = "Look at an agent's declared authority (ARCP leases, agentrc Agentfiles) and test it.",
    after_help = "Exit status: 0 clean/allowed, 1 a finding (deny, violation, lint errors), 2 usage or input error.\n\
                  Any FILE may be `-` to read stdin. Colour only on a terminal, never when NO_COLOR is set.\n\n\
                  Examples:\n  \
                  leasekit check --lease examples/leases/code-reviewer.json fs.read /workspace/src/main.rs\n  \
                  leasekit subset examples/leases/reviewer-child.json examples/leases/code-reviewer.json\n  \
                  leasekit explain net.fetch 'https://*.example.com/**'"
)]
pub struct Cli {
    /// The command to run.
    #[command(subcommand)]
    pub command: Command,
}

/// One `leasekit` command.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Allow or deny each TARGET for CAPABILITY under a lease (with the error code and canonical target).
    Check(CheckArgs),
    /// Is CHILD a subset of PARENT (may PARENT delegate CHILD)? Prints a witness when not.
    Subset(SubsetArgs),
    /// Narrow a REQUESTED lease to a CEILING: the effective lease and every reduction.
    Narrow(NarrowArgs),
    /// Explain in words what a PATTERN matches for a CAPABILITY, with examples.
    Explain(ExplainArgs),
}

/// Output format.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Human-readable text.
    #[default]
    Text,
    /// One JSON document on stdout.
    Json,
}

/// `leasekit check`.
#[derive(Debug, Args)]
#[command(
    after_help = "Exit status: 0 every target allowed, 1 some target denied, 2 usage or input error.\n\n\
    Examples:\n  \
    leasekit check --lease examples/leases/code-reviewer.json fs.read /workspace/src/lib.rs /etc/passwd\n  \
    leasekit check --lease lease.json --constraints c.json --now 2026-01-01T00:00:00Z net.fetch https://api.github.com/repos\n  \
    echo '{\"tool.call\":[\"web.*\"]}' | leasekit check --lease - tool.call web.search web.search.advanced"
)]
pub struct CheckArgs {
    /// The lease (ARCP lease JSON object), or `-` for stdin.
    #[arg(long, value_name = "FILE")]
    pub lease: String,
    /// Lease constraints JSON, e.g. {"expires_at": "2026-12-31T00:00:00Z"}.
    #[arg(long, value_name = "FILE")]
    pub constraints: Option<String>,
    /// Evaluate at this instant (RFC 3339, e.g. 2026-01-01T00:00:00Z) instead of now.
    #[arg(long, value_name = "TIME")]
    pub now: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
    /// Capability, e.g. fs.read, net.fetch, tool.call, model.use.
    pub capability: String,
    /// One or more targets to authorize.
    #[arg(required = true)]
    pub targets: Vec<String>,
}

/// `leasekit subset`.
#[derive(Debug, Args)]
#[command(
    after_help = "Exit status: 0 CHILD is a subset, 1 it is not (the witness is printed), 2 usage or input error.\n\n\
    Examples:\n  \
    leasekit subset examples/leases/reviewer-child.json examples/leases/code-reviewer.json\n  \
    leasekit subset child.json parent.json --remaining USD=1.00\n  \
    leasekit subset --format json examples/leases/too-wide-child.json examples/leases/code-reviewer.json"
)]
pub struct SubsetArgs {
    /// The child (delegated) lease, or `-` for stdin.
    pub child: String,
    /// The parent lease, or `-` for stdin.
    pub parent: String,
    /// The parent's remaining budget for a currency, CUR=AMOUNT (repeatable).
    #[arg(long, value_name = "CUR=AMOUNT")]
    pub remaining: Vec<String>,
    /// The child's constraints JSON ({"expires_at": ...}).
    #[arg(long, value_name = "FILE")]
    pub child_constraints: Option<String>,
    /// The parent's constraints JSON ({"expires_at": ...}).
    #[arg(long, value_name = "FILE")]
    pub parent_constraints: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

/// `leasekit narrow`.
#[derive(Debug, Args)]
#[command(
    after_help = "Exit status: 0 (the effective lease is printed), 2 usage or input error.\n\n\
    Examples:\n  \
    leasekit narrow examples/leases/triager-request.json examples/leases/org-ceiling.json\n  \
    leasekit narrow --format json requested.json ceiling.json"
)]
pub struct NarrowArgs {
    /// The requested lease, or `-` for stdin.
    pub requested: String,
    /// The ceiling lease (what the operator allows), or `-` for stdin.
    pub ceiling: String,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

/// `leasekit explain`.
#[derive(Debug, Args)]
#[command(
    after_help = "Exit status: 0 (the explanation is printed), 2 the pattern is invalid.\n\n\
    Examples:\n  \
    leasekit explain fs.read '/workspace/**'\n  \
    leasekit explain tool.call 'web.*'\n  \
    leasekit explain net.fetch 'HTTPS://API.example.com:443'"
)]
pub struct ExplainArgs {
    /// Capability whose matching rules apply, e.g. fs.read, net.fetch, tool.call.
    pub capability: String,
    /// The pattern as written in a lease.
    pub pattern: String,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}
