//! The command line: every command, its options and its `--help` examples.

use clap::{Args, Parser, Subcommand, ValueEnum};

/// Look at an agent's declared authority and test it, from the terminal.
#[derive(Debug, Parser)]
// `term_width = 0`: help keeps its source formatting whatever the terminal (and whatever clap
// features other crates in the build enable), so examples are never wrapped mid-command.
#[command(
    name = "leasekit",
    version,
    term_width = 0,
    about = "Look at an agent's declared authority (ARCP leases, agentrc Agentfiles) and test it.",
    after_help = "Exit status: 0 clean/allowed, 1 a finding (deny, violation, lint errors), 2 usage or input error.\n\
                  Any FILE may be `-` to read stdin. Colour only on a terminal, never when NO_COLOR is set.\n\n\
                  Examples:\n  \
                  leasekit lint examples/agentfiles/*/Agentfile\n  \
                  leasekit inspect examples/agentfiles/vault-backed/Agentfile\n  \
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
    /// Lint Agentfiles (`path:line:col: severity[code]: message`), or with --lease lease
    /// files (patterns that grant more than they seem to or never match); or JSON.
    Lint(LintArgs),
    /// Review an Agentfile before running it: command, tools, paths, hosts, secrets (names
    /// only), policies, pinned digests, placement, and the derived lease.
    Inspect(InspectArgs),
    /// Write the lockfile (agentrc.lock) of an Agentfile.
    Lock(LockArgs),
    /// Allow or deny each TARGET for CAPABILITY under a lease (with the error code and canonical target).
    Check(CheckArgs),
    /// Is CHILD a subset of PARENT (may PARENT delegate CHILD)? Prints a witness when not.
    Subset(SubsetArgs),
    /// Narrow a REQUESTED lease to a CEILING: the effective lease and every reduction.
    Narrow(NarrowArgs),
    /// Evaluate a Cedar request against an Agentfile's POLICY blocks and ALLOW/DENY/RATELIMIT;
    /// or work on governor policies: `policy lint|hash|sign|compile|keygen`.
    Policy(PolicyArgs),
    /// Governor audit chains: `audit verify STATE_DIR|STORE|FILE` recomputes every hash and
    /// link; `audit export` writes a store's chain as JSON Lines.
    Audit(AuditArgs),
    /// Explain in words what a PATTERN matches for a CAPABILITY, with examples.
    Explain(ExplainArgs),
    /// Run the governor as a local daemon on a Unix socket (see docs/daemon.md).
    Serve(crate::cmd::serve::ServeArgs),
    /// Operate a running daemon (status, metrics, approvals, policy, audit); migrate a
    /// fleet's PostgreSQL schema.
    Gov(crate::cmd::gov::GovArgs),
    /// Guard an MCP server: a stdio proxy that enforces an Agentfile or lease on every tool
    /// call (see docs/mcp.md).
    McpGuard(crate::cmd::mcp_guard::McpGuardArgs),
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
    leasekit check --agentfile examples/agentfiles/code-reviewer/Agentfile fs.write /workspace/src/lib.rs\n  \
    echo '{\"tool.call\":[\"web.*\"]}' | leasekit check --lease - tool.call web.search web.search.advanced"
)]
pub struct CheckArgs {
    /// The lease (ARCP lease JSON object), or `-` for stdin.
    #[arg(
        long,
        value_name = "FILE",
        required_unless_present = "agentfile",
        conflicts_with = "agentfile"
    )]
    pub lease: Option<String>,
    /// Use the lease an Agentfile requests (as `leasekit inspect` shows it) instead of --lease.
    #[arg(long, value_name = "FILE")]
    pub agentfile: Option<String>,
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

/// `leasekit lint`.
#[derive(Debug, Args)]
#[command(
    after_help = "Exit status: 0 no errors (warnings allowed), 1 some file has errors, 2 usage or input error.\n\n\
    Examples:\n  \
    leasekit lint examples/agentfiles/code-reviewer/Agentfile\n  \
    leasekit lint --format json examples/agentfiles/mistakes/Agentfile\n  \
    cat Agentfile | leasekit lint --compat -\n  \
    leasekit lint --lease examples/leases/lint-mistakes.json"
)]
pub struct LintArgs {
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
    /// Compat mode: accept older forms (a two-argument BIND) with a warning.
    #[arg(long, conflicts_with = "lease")]
    pub compat: bool,
    /// The FILEs are leases (ARCP lease JSON), not Agentfiles: warn about patterns that grant
    /// more than they seem to (`https://api.example.com**`) or can never match a canonical
    /// target (`/data/*/../secret`). An invalid lease is an input error (exit 2).
    #[arg(long)]
    pub lease: bool,
    /// Agentfiles (or with --lease, lease files) to lint (`-` for stdin).
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<String>,
}

/// `leasekit inspect`.
#[derive(Debug, Args)]
#[command(
    after_help = "Exit status: 0 the Agentfile has no errors, 1 it has errors (no lease is derived), 2 usage or input error.\n\n\
    Examples:\n  \
    leasekit inspect examples/agentfiles/vault-backed/Agentfile\n  \
    leasekit inspect --format json examples/agentfiles/github-triager/Agentfile | jq .lease"
)]
pub struct InspectArgs {
    /// The Agentfile (`-` for stdin).
    pub agentfile: String,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
    /// Compat mode (see `lint --compat`).
    #[arg(long)]
    pub compat: bool,
}

/// `leasekit lock`.
#[derive(Debug, Args)]
#[command(
    after_help = "Exit status: 0 written, 1 the Agentfile has errors (they are printed on stderr), 2 usage or input error.\n\n\
    Examples:\n  \
    leasekit lock examples/agentfiles/code-reviewer/Agentfile\n  \
    leasekit lock examples/agentfiles/vault-backed/Agentfile -o agentrc.lock"
)]
pub struct LockArgs {
    /// The Agentfile (`-` for stdin).
    pub agentfile: String,
    /// Write the lockfile here instead of stdout.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<String>,
    /// Compat mode (see `lint --compat`).
    #[arg(long)]
    pub compat: bool,
}

/// `leasekit policy`.
#[derive(Debug, Args)]
#[command(
    after_help = "Exit status: 0 allow, 1 deny (including any policy parse or evaluation error), 2 usage or input error.\n\n\
    Examples:\n  \
    leasekit policy examples/agentfiles/code-reviewer/Agentfile \\\n      \
    --principal 'AgentRC::Agent::\"code-reviewer\"' --action 'AgentRC::Action::\"tool.invoke\"' \\\n      \
    --resource 'AgentRC::Tool::\"file_read\"' --context '{\"path\": \"/workspace/src/main.rs\"}'\n  \
    leasekit policy compile examples/agentfiles/code-reviewer/Agentfile > policy.json\n  \
    leasekit policy lint policy.json\n  \
    leasekit policy keygen --alg ed25519 > key.json\n  \
    leasekit policy sign --key key.json --version v2 --author ops policy.json > bundle.json",
    subcommand_negates_reqs = true,
    args_conflicts_with_subcommands = true,
    override_usage = "leasekit policy [OPTIONS] --principal <P> --action <A> --resource <R> <AGENTFILE>\n       \
                      leasekit policy <lint|hash|sign|compile|keygen> [ARGS]"
)]
pub struct PolicyArgs {
    /// Governor policy tools (instead of a Cedar evaluation).
    #[command(subcommand)]
    pub tool: Option<PolicyTool>,
    /// The Agentfile (`-` for stdin).
    #[arg(required = true)]
    pub agentfile: Option<String>,
    /// Cedar principal entity, e.g. AgentRC::Agent::"code-reviewer".
    #[arg(long, required = true)]
    pub principal: Option<String>,
    /// Cedar action entity, e.g. AgentRC::Action::"tool.invoke".
    #[arg(long, required = true)]
    pub action: Option<String>,
    /// Cedar resource entity, e.g. AgentRC::Tool::"file_read".
    #[arg(long, required = true)]
    pub resource: Option<String>,
    /// Request context as a JSON object, e.g. {"path": "/workspace/a.rs"}.
    #[arg(long, value_name = "JSON")]
    pub context: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
    /// Compat mode (see `lint --compat`).
    #[arg(long)]
    pub compat: bool,
}

/// `leasekit policy <tool>`: governor policies (SEMANTICS 13.9).
#[derive(Debug, Subcommand)]
pub enum PolicyTool {
    /// Lint a governor policy JSON: refusals are errors (exit 1), LeaseGate's GitOps rules warnings.
    Lint {
        /// The policy JSON (`-` for stdin).
        file: String,
        /// Output format.
        #[arg(long, value_enum, default_value_t)]
        format: Format,
    },
    /// Print the policy hash (SHA-256 of the RFC 8785 form of the policy JSON).
    Hash {
        /// The policy JSON (`-` for stdin).
        file: String,
    },
    /// Sign a policy into a bundle for `StagePolicyBundle` (P-256 or Ed25519, from the key).
    Sign {
        /// The policy JSON (`-` for stdin).
        file: String,
        /// Key file from `policy keygen` (or a bare PKCS#8 DER key in base64).
        #[arg(long, value_name = "FILE")]
        key: String,
        /// Bundle version.
        #[arg(long)]
        version: String,
        /// Bundle author.
        #[arg(long, default_value = "")]
        author: String,
        /// createdAtUtc exactly as signed (default: now, RFC 3339).
        #[arg(long, value_name = "TIME")]
        created_at: Option<String>,
    },
    /// Compile an Agentfile to a governor policy (Policy::from_agentfile).
    Compile {
        /// The Agentfile (`-` for stdin).
        agentfile: String,
        /// Compat mode (see `lint --compat`).
        #[arg(long)]
        compat: bool,
    },
    /// Generate a bundle signing key: {"algorithm", "privateKeyBase64", "publicKeyBase64"}.
    Keygen {
        /// Algorithm.
        #[arg(long, value_enum, default_value_t = KeyAlg::Ed25519)]
        alg: KeyAlg,
    },
}

/// Signing algorithms of `policy keygen`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum KeyAlg {
    /// Ed25519.
    Ed25519,
    /// ECDSA P-256 (LeaseGate's).
    P256,
}

/// `leasekit audit`.
#[derive(Debug, Args)]
#[command(
    after_help = "Exit status: 0 the chain verifies, 1 it does not (the first bad line is printed), 2 usage or input error.\n\n\
    A store is read read-only (never written, no write lock taken): safe while its daemon runs, \
    and the first check after a crash.\n\n\
    Examples:\n  \
    leasekit audit verify ~/.local/state/leasekit        # a daemon's state directory (governor.db)\n  \
    leasekit audit verify sqlite:/var/lib/leasekit/governor.db\n  \
    leasekit audit verify postgres://leasekit@db.internal/leasekit\n  \
    leasekit audit verify audit.jsonl\n  \
    leasekit audit export --store /var/lib/leasekit --from 1 --to 500 audit.jsonl"
)]
pub struct AuditArgs {
    /// What to do.
    #[command(subcommand)]
    pub tool: AuditTool,
}

/// `leasekit audit <tool>`.
#[derive(Debug, Subcommand)]
pub enum AuditTool {
    /// Verify an audit chain: a governor store (a daemon's state directory holding governor.db,
    /// sqlite:PATH or a SQLite store file, a fleet's postgres:// URL; read-only, its last hash
    /// and count compared with the store's recorded head and count), or JSON Lines (a file, or
    /// every *.jsonl of a directory in name order, one chain). Every line must be the RFC 8785
    /// form of its record, and every entryHash and prevHash must recompute and link.
    Verify {
        /// The state directory, store (sqlite:PATH, a .db file, postgres://...), JSONL file or
        /// directory.
        path: String,
        /// Output format.
        #[arg(long, value_enum, default_value_t)]
        format: Format,
    },
    /// Write a store's audit chain (or lines N..M of it) as JSON Lines, each line the RFC 8785
    /// form of its record: `audit verify FILE` and `audit proof` accept the file. Read-only,
    /// in pages (memory does not grow with the chain).
    Export {
        /// The store: a daemon's state directory, sqlite:PATH or a SQLite store file, or a
        /// postgres:// URL.
        #[arg(long, value_name = "STORE")]
        store: String,
        /// First line (1-based; default 1).
        #[arg(long, value_name = "N")]
        from: Option<u64>,
        /// Last line (inclusive; default the last).
        #[arg(long, value_name = "M")]
        to: Option<u64>,
        /// The JSONL file to write (`-`: stdout).
        file: String,
    },
    /// Signed proof bundles over a line range of a JSONL audit chain (LeaseGate's ExportProof;
    /// verification recomputes every entry hash in the range).
    Proof {
        /// What to do.
        #[command(subcommand)]
        tool: ProofTool,
    },
}

/// `leasekit audit proof <tool>`.
#[derive(Debug, Subcommand)]
pub enum ProofTool {
    /// Sign a proof bundle over lines FROM..=TO of a chain (the lines must recompute and link).
    #[command(
        after_help = "Without --key the bundle is signed with a throwaway Ed25519 key \
    (ephemeralKey: true): it proves the range's integrity, not who exported it.\n\n\
    Examples:\n  \
    leasekit policy keygen --alg p256 > key.json\n  \
    leasekit audit proof export audit.jsonl --from 1 --to 40 --key key.json > proof.json"
    )]
    Export {
        /// The JSONL file or directory (every *.jsonl in name order, one chain).
        path: String,
        /// First line (1-based).
        #[arg(long, value_name = "N")]
        from: u64,
        /// Last line (inclusive).
        #[arg(long, value_name = "M")]
        to: u64,
        /// Signing key file from `policy keygen` (or a bare PKCS#8 DER key in base64).
        #[arg(long, value_name = "KEYFILE")]
        key: Option<String>,
        /// Write the bundle to FILE and print a summary instead of the bundle.
        #[arg(short = 'o', long, value_name = "FILE")]
        output: Option<String>,
        /// With -o: print the summary as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Verify a proof bundle against the chain: signature, then every line of its range
    /// recomputed, linked and compared with its anchor.
    #[command(
        after_help = "Exit status: 0 the proof verifies, 1 it does not (the first bad \
    line is printed when a line is at fault), 2 usage or input error.\n\n\
    Examples:\n  \
    leasekit audit proof verify proof.json audit.jsonl --key key.json"
    )]
    Verify {
        /// The bundle from `audit proof export`.
        bundle: String,
        /// The JSONL file or directory the proof covers.
        path: String,
        /// Require this signer: a key file from `policy keygen` (its publicKeyBase64) or a bare
        /// SPKI DER key in base64. Repeatable (any one). Without it any signature that
        /// verifies is accepted (integrity only).
        #[arg(long, value_name = "KEYFILE")]
        key: Vec<String>,
        /// Print the result as JSON.
        #[arg(long)]
        json: bool,
    },
}
