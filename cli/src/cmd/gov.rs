//! `leasekit gov`: operate a running `leasekit serve` daemon over its socket (status, metrics,
//! approvals, policy bundles, audit). Every subcommand is one or two calls of core's
//! `GovernorClient` (fallback off: an operator never wants a local answer), printed as text or
//! JSON.

use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Subcommand};
use leasekit::governor::client::{ClientOptions, FallbackMode, GovernorClient, default_socket};
use leasekit::governor::store::PostgresStore;
use leasekit::governor::wire::{
    ActivatePolicyRequest, ActivatePolicyResponse, ApprovalQueueRequest, ExportAuditRequest,
    PolicyBundle, ReviewApprovalRequest, RollbackPolicyRequest,
};
use serde_json::{Value, json};

use crate::Report;
use crate::args::Format;
use crate::failure::Failure;
use crate::input::{display_name, read_text};
use crate::style::Style;

/// `leasekit gov`.
#[derive(Debug, Args)]
#[command(
    after_help = "Exit status: 0 done, 1 refused (a review, stage, activation or rollback the \
    daemon turned down; an audit chain that does not verify), 2 the daemon could not be asked \
    (unreachable, permission denied, bad input).\n\n\
    Examples:\n  \
    leasekit gov status\n  \
    leasekit gov metrics --format json\n  \
    leasekit gov approvals list\n  \
    leasekit gov approvals review approval-1 --approve --reviewer alice\n  \
    leasekit gov policy stage policy.json --version v2 && leasekit gov policy activate v2\n  \
    leasekit gov policy rollback v1\n  \
    leasekit gov audit export -o audit.jsonl && leasekit audit verify audit.jsonl\n  \
    leasekit gov call Acquire '{\"actorId\": \"a\", \"estimatedCostCents\": 3}'\n  \
    leasekit gov migrate --store 'postgres://leasekit_owner@db.example/leasekit?sslmode=verify-full&sslrootcert=/etc/leasekit/pg-ca.crt'"
)]
pub struct GovArgs {
    /// The daemon's socket [default: $LEASEKIT_SOCKET, else $XDG_RUNTIME_DIR/leasekit.sock, else
    /// ~/.local/state/leasekit/leasekit.sock].
    #[arg(long, global = true, value_name = "PATH")]
    pub socket: Option<PathBuf>,
    /// Output format.
    #[arg(long, global = true, value_enum, default_value_t)]
    pub format: Format,
    /// Seconds to wait for the daemon's answer.
    #[arg(long, global = true, value_name = "SECS", default_value_t = 10)]
    pub timeout: u64,
    /// What to do.
    #[command(subcommand)]
    pub command: GovCommand,
}

/// A `leasekit gov` subcommand.
#[derive(Debug, Subcommand)]
pub enum GovCommand {
    /// Health, policy version, live leases, pending approvals, spend, store, audit size.
    Status,
    /// Pool use, spend, grants and denials by reason.
    Metrics,
    /// The approval queue and reviews (admin uids only).
    Approvals {
        /// `list` (the default) or `review`.
        #[command(subcommand)]
        command: Option<ApprovalsCommand>,
    },
    /// Stage, activate and roll back policies (admin uids only).
    Policy {
        /// `stage`, `activate` or `rollback`.
        #[command(subcommand)]
        command: PolicyCommand,
    },
    /// Export or verify the daemon's audit chain.
    Audit {
        /// `export` or `verify`.
        #[command(subcommand)]
        command: AuditCommand,
    },
    /// Send one raw command (any of the protocol's) and print the response envelope; exit 1
    /// when it answers `success: false`.
    Call {
        /// Command name, e.g. Acquire, Release, GetStatus.
        command: String,
        /// Payload JSON (`-` for stdin).
        #[arg(default_value = "{}")]
        payload: String,
    },
    /// Apply pending PostgreSQL schema migrations (run as the schema owner's role, before
    /// upgrading the fleet); prints the version before and after. Talks to the database, not
    /// to a daemon.
    Migrate {
        /// The fleet's store URL (`postgres://...`, with its `sslmode` and certificates).
        #[arg(long, value_name = "URL")]
        store: String,
        /// Only report the version; exit 1 when migrations are pending.
        #[arg(long)]
        check: bool,
    },
}

/// `leasekit gov approvals ...`.
#[derive(Debug, Subcommand)]
pub enum ApprovalsCommand {
    /// Pending approvals, oldest first, one page at a time.
    List {
        /// Only this workspace.
        #[arg(long)]
        workspace: Option<String>,
        /// Approvals per page (at most 100).
        #[arg(long, default_value_t = 100)]
        limit: u32,
        /// Start after this approval id (the `--after` a previous page printed).
        #[arg(long, value_name = "APPROVAL_ID")]
        after: Option<String>,
    },
    /// Approve or deny one approval (a reviewer equal to its requester is refused).
    Review {
        /// The approval id.
        id: String,
        /// Approve it.
        #[arg(long, conflicts_with = "deny", required_unless_present = "deny")]
        approve: bool,
        /// Deny it (final).
        #[arg(long)]
        deny: bool,
        /// Reviewer id recorded with the review [default: $USER, else uid-N].
        #[arg(long)]
        reviewer: Option<String>,
        /// Comment recorded with the review.
        #[arg(long, default_value = "")]
        comment: String,
    },
}

/// `leasekit gov policy ...`.
#[derive(Debug, Subcommand)]
pub enum PolicyCommand {
    /// Stage a policy (JSON) or a bundle (JSON with policyContentJson and signatureBase64).
    Stage {
        /// Policy or bundle file (`-` for stdin).
        file: String,
        /// Bundle version (required for a plain policy).
        #[arg(long)]
        version: Option<String>,
        /// Author [default: $USER].
        #[arg(long)]
        author: Option<String>,
        /// createdAtUtc exactly as signed [default: now].
        #[arg(long)]
        created_at: Option<String>,
        /// Signature (base64) over version|createdAtUtc|author|policyContentJson.
        #[arg(long)]
        signature: Option<String>,
    },
    /// Activate the staged policy (optionally checking its version).
    Activate {
        /// The version expected in the staging slot.
        version: Option<String>,
    },
    /// Re-activate an earlier activated version.
    Rollback {
        /// The version.
        version: String,
    },
}

/// `leasekit gov audit ...`.
#[derive(Debug, Subcommand)]
pub enum AuditCommand {
    /// Write the chain as JSON Lines (admin uids only; as many calls as it takes, 10 000
    /// records each); `leasekit audit verify` accepts the file.
    Export {
        /// First line (1-based).
        #[arg(long)]
        from: Option<u64>,
        /// Last line (inclusive).
        #[arg(long)]
        to: Option<u64>,
        /// Write here instead of stdout.
        #[arg(short, long, value_name = "FILE")]
        output: Option<PathBuf>,
    },
    /// Recompute every hash and link of the daemon's chain (admin uids only).
    Verify,
}

/// Runs `gov`.
pub fn run(args: &GovArgs, style: &Style) -> Result<Report, Failure> {
    if let GovCommand::Migrate { store, check } = &args.command {
        return migrate(store, *check, args.format == Format::Json);
    }
    let socket = match &args.socket {
        Some(s) => s.clone(),
        None => default_socket().ok_or_else(|| {
            Failure::usage(
                "no socket: pass --socket or set LEASEKIT_SOCKET, XDG_RUNTIME_DIR or HOME",
            )
        })?,
    };
    let client = GovernorClient::with_options(
        &socket,
        ClientOptions {
            timeout: Duration::from_secs(args.timeout.max(1)),
            fallback: FallbackMode::Off,
            ..ClientOptions::default()
        },
    );
    let json = args.format == Format::Json;
    match &args.command {
        // Answered above, before a socket is looked for.
        GovCommand::Migrate { store, check } => migrate(store, *check, json),
        GovCommand::Call { command, payload } => {
            let payload = if payload == "-" {
                read_text("-")?
            } else {
                payload.clone()
            };
            let env = client.handle_envelope(command, &payload);
            let status = if env.success { 0 } else { 1 };
            let payload: Value =
                serde_json::from_str(&env.payload_json).unwrap_or(Value::String(env.payload_json));
            let value = json!({"success": env.success, "payload": payload, "error": env.error});
            Ok(Report::new(super::pretty(&value), status))
        }
        GovCommand::Status => {
            let s = client.status()?;
            if json {
                return ok_json(&s);
            }
            let health = if s.healthy {
                style.good("healthy")
            } else {
                style.bad("unhealthy")
            };
            let store = if !s.durable_state_enabled {
                "memory (not durable)".to_string()
            } else if s.connected_governors.is_some() {
                format!("postgresql {} (durable, shared)", s.state_database_path)
            } else {
                format!("sqlite {} (durable)", s.state_database_path)
            };
            let mut fleet = String::new();
            if let Some(govs) = &s.connected_governors {
                fleet.push_str(&format!(
                    "  connected governors {}
",
                    govs.len()
                ));
                for g in govs {
                    fleet.push_str(&format!(
                        "    {} from {} since {}
",
                        g.application_name, g.client, g.since
                    ));
                }
            }
            Ok(Report::new(
                format!(
                    "governor at {}: {health}\n  policy             {} (hash {})\n  \
                     active leases      {}\n  pending approvals  {}\n  spend today        {} cents\n  \
                     store              {store}\n  audit              {} records (level {})\n  \
                     started            {}\n{fleet}",
                    socket.display(),
                    s.policy_version,
                    short(&s.policy_hash),
                    s.active_leases,
                    s.pending_approvals,
                    s.spend_today_cents,
                    s.audit_records,
                    if s.audit_level.is_empty() {
                        "default"
                    } else {
                        &s.audit_level
                    },
                    s.started_at_utc
                ),
                0,
            ))
        }
        GovCommand::Metrics => {
            let m = client.metrics()?;
            if json {
                return ok_json(&m);
            }
            let mut out = format!(
                "active leases        {}\nspend today          {} cents\nrate pool            {:.1}%\n\
                 context pool         {:.1}%\ncompute pool         {:.1}%\nfailed audit writes  {}\n",
                m.active_leases,
                m.spend_today_cents,
                m.rate_pool_utilization * 100.0,
                m.context_pool_utilization * 100.0,
                m.compute_pool_utilization * 100.0,
                m.failed_audit_writes
            );
            for (title, map) in [
                ("grants", &m.grants_by_reason),
                ("denials", &m.denies_by_reason),
            ] {
                out.push_str(&format!("{}\n", style.bold(&format!("{title} by reason:"))));
                if map.is_empty() {
                    out.push_str("  (none)\n");
                }
                for (reason, n) in map {
                    out.push_str(&format!("  {n:>8}  {reason}\n"));
                }
            }
            Ok(Report::new(out, 0))
        }
        GovCommand::Approvals { command } => {
            match command {
                None | Some(ApprovalsCommand::List { .. }) => {
                    let (workspace, limit, after) = match command {
                        Some(ApprovalsCommand::List {
                            workspace,
                            limit,
                            after,
                        }) => (workspace.clone(), *limit, after.clone()),
                        _ => (None, 100, None),
                    };
                    let q = client.list_pending_approvals(ApprovalQueueRequest {
                        workspace_id: workspace.unwrap_or_default(),
                        limit,
                        after_approval_id: after.unwrap_or_default(),
                        ..ApprovalQueueRequest::default()
                    })?;
                    if json {
                        return ok_json(&q);
                    }
                    if q.items.is_empty() {
                        return Ok(Report::new("no pending approvals\n".into(), 0));
                    }
                    let mut out = String::new();
                    for a in &q.items {
                        let tool = match (&a.tool_id, &a.tool_category) {
                            (t, Some(c)) if !t.is_empty() => format!("{t} ({})", c.as_str()),
                            (t, None) if !t.is_empty() => t.clone(),
                            (_, Some(c)) => c.as_str().to_string(),
                            _ => "-".to_string(),
                        };
                        out.push_str(&format!(
                        "{}  {}  actor {}  workspace {}  requested by {}  tool {}  reviews {}/{}  \
                         {}  expires {}\n",
                        style.bold(&printable(&a.approval_id)),
                        a.status.as_str(),
                        printable(&a.actor_id),
                        printable(&a.workspace_id),
                        printable(&a.requested_by),
                        printable(&tool),
                        a.current_approvals,
                        a.required_reviewers,
                        if a.single_use { "single-use" } else { "reusable" },
                        a.expires_at_utc
                    ));
                        if !a.reason.is_empty() {
                            out.push_str(&format!("    reason: {}\n", printable(&a.reason)));
                        }
                    }
                    if !q.next_after_approval_id.is_empty() {
                        out.push_str(&format!(
                            "more: leasekit gov approvals list --after {}\n",
                            printable(&q.next_after_approval_id)
                        ));
                    }
                    Ok(Report::new(out, 0))
                }
                Some(ApprovalsCommand::Review {
                    id,
                    approve,
                    deny: _,
                    reviewer,
                    comment,
                }) => {
                    let reviewer = reviewer.clone().unwrap_or_else(default_reviewer);
                    let r = client.review_approval(ReviewApprovalRequest {
                        approval_id: id.clone(),
                        reviewer_id: reviewer,
                        approve: *approve,
                        comment: comment.clone(),
                        ..ReviewApprovalRequest::default()
                    })?;
                    // The review stands when the approval ends where the reviewer wanted it (a
                    // self-review, an unknown, expired or decided approval is refused: exit 1).
                    let stands = if *approve {
                        r.message == "approval granted"
                            || r.message == "approval pending additional reviewers"
                    } else {
                        r.message == "approval denied"
                    };
                    let status = if stands { 0 } else { 1 };
                    if json {
                        return Ok(Report::new(pretty(&r), status));
                    }
                    let mut out = match r.status.filter(|_| stands) {
                        Some(s) => format!(
                            "{}: {} ({}/{} reviews): {}\n",
                            id,
                            s.as_str(),
                            r.current_approvals,
                            r.required_reviewers,
                            r.message
                        ),
                        None => format!(
                            "{}: {}\n",
                            id,
                            style.bad(&format!("refused: {}", r.message))
                        ),
                    };
                    if !r.approval_token.is_empty() {
                        // The token is the approval itself: shown once, to the admin who granted it.
                        out.push_str(&format!("approval token: {}\n", r.approval_token));
                    }
                    Ok(Report::new(out, status))
                }
            }
        }
        GovCommand::Policy { command } => match command {
            PolicyCommand::Stage {
                file,
                version,
                author,
                created_at,
                signature,
            } => {
                let bundle = read_bundle(file, version, author, created_at, signature)?;
                let r = client.stage_policy_bundle(bundle)?;
                let status = if r.accepted { 0 } else { 1 };
                if json {
                    return Ok(Report::new(pretty(&r), status));
                }
                let text = if r.accepted {
                    format!(
                        "{}: version {} (hash {}); activate with `leasekit gov policy activate {}`\n",
                        style.good(&r.message),
                        r.staged_policy_version,
                        short(&r.staged_policy_hash),
                        r.staged_policy_version
                    )
                } else {
                    format!("{}\n", style.bad(&format!("not staged: {}", r.message)))
                };
                Ok(Report::new(text, status))
            }
            PolicyCommand::Activate { version } => activation(
                client.activate_policy(ActivatePolicyRequest {
                    version: version.clone().unwrap_or_default(),
                    ..ActivatePolicyRequest::default()
                })?,
                json,
                style,
            ),
            PolicyCommand::Rollback { version } => activation(
                client.rollback_policy(RollbackPolicyRequest {
                    version: version.clone(),
                })?,
                json,
                style,
            ),
        },
        GovCommand::Audit { command } => match command {
            AuditCommand::Export { from, to, output } => {
                // One call answers at most 10 000 records; `nextLine` says where to go on.
                let mut r = client.export_audit(ExportAuditRequest {
                    from_line: *from,
                    to_line: *to,
                })?;
                while let Some(next) = r.next_line.take() {
                    let more = client.export_audit(ExportAuditRequest {
                        from_line: Some(next),
                        to_line: *to,
                    })?;
                    if more.records.is_empty() {
                        break;
                    }
                    r.records.extend(more.records);
                    r.next_line = more.next_line;
                }
                let body = if json {
                    pretty(&r)
                } else {
                    let mut s = String::new();
                    for rec in &r.records {
                        // Each line the RFC 8785 form of its record (what verification wants).
                        let line = leasekit::governor::audit::canonical_text(rec)
                            .map_err(|m| Failure::usage(format!("audit record: {m}")))?;
                        s.push_str(&line);
                        s.push('\n');
                    }
                    s
                };
                match output {
                    None => Ok(Report::new(body, 0)),
                    Some(path) => {
                        let mut f = std::fs::File::create(path)
                            .map_err(|e| Failure::usage(format!("{}: {e}", path.display())))?;
                        f.write_all(body.as_bytes())
                            .and_then(|_| f.sync_all())
                            .map_err(|e| Failure::usage(format!("{}: {e}", path.display())))?;
                        let note = format!(
                            "wrote {} audit records to {}\n",
                            r.records.len(),
                            path.display()
                        );
                        Ok(Report::new(if json { String::new() } else { note }, 0))
                    }
                }
            }
            AuditCommand::Verify => {
                let v = client.verify_audit()?;
                let status = if v.ok { 0 } else { 1 };
                if json {
                    let value = json!({"ok": v.ok, "records": v.records,
                        "firstBadLine": v.first_bad_line, "message": v.message});
                    return Ok(Report::new(super::pretty(&value), status));
                }
                let text = if v.ok {
                    format!(
                        "{}: {} records\n",
                        style.good("audit chain verifies"),
                        v.records
                    )
                } else {
                    format!(
                        "{}: first bad line {}: {}\n",
                        style.bad("audit chain does not verify"),
                        v.first_bad_line
                            .map(|l| l.to_string())
                            .unwrap_or_else(|| "?".into()),
                        v.message
                    )
                };
                Ok(Report::new(text, status))
            }
        },
    }
}

fn activation(r: ActivatePolicyResponse, json: bool, style: &Style) -> Result<Report, Failure> {
    let status = if r.activated { 0 } else { 1 };
    if json {
        return Ok(Report::new(pretty(&r), status));
    }
    let text = if r.activated {
        format!(
            "{}: active version {} (hash {})\n",
            style.good(&r.message),
            r.active_policy_version,
            short(&r.active_policy_hash)
        )
    } else {
        format!(
            "{} (active version stays {})\n",
            style.bad(&format!("refused: {}", r.message)),
            r.active_policy_version
        )
    };
    Ok(Report::new(text, status))
}

/// A bundle from a file: a bundle JSON (has `policyContentJson`) as is, or a policy JSON
/// wrapped with the flags.
fn read_bundle(
    file: &str,
    version: &Option<String>,
    author: &Option<String>,
    created_at: &Option<String>,
    signature: &Option<String>,
) -> Result<PolicyBundle, Failure> {
    let text = read_text(file)?;
    let value: Value = serde_json::from_str(&text)
        .map_err(|e| Failure::usage(format!("{}: not JSON: {e}", display_name(file))))?;
    if value.get("policyContentJson").is_some() {
        let mut b: PolicyBundle = serde_json::from_value(value).map_err(|e| {
            Failure::usage(format!("{}: not a policy bundle: {e}", display_name(file)))
        })?;
        if let Some(v) = version {
            b.version = v.clone();
        }
        return Ok(b);
    }
    let version = version.clone().ok_or_else(|| {
        Failure::usage("--version is required to stage a plain policy (or give a bundle JSON)")
    })?;
    let created = match created_at {
        Some(c) => c.clone(),
        None => leasekit::Clock::now(&leasekit::SystemClock)
            .map(|t| leasekit::governor::wire::format_time_ms(t.unix_millis()))?,
    };
    Ok(PolicyBundle {
        version,
        created_at_utc: created,
        author: author.clone().unwrap_or_else(default_reviewer),
        policy_content_json: text,
        signature_base64: signature.clone().unwrap_or_default(),
    })
}

fn default_reviewer() -> String {
    std::env::var("USER")
        .ok()
        .filter(|u| !u.is_empty())
        .unwrap_or_else(|| format!("uid-{}", leasekit_serve::listener::current_uid()))
}

/// `leasekit gov migrate`.
fn migrate(url: &str, check: bool, json: bool) -> Result<Report, Failure> {
    if !(url.starts_with("postgres://") || url.starts_with("postgresql://")) {
        return Err(Failure::usage(
            "gov migrate takes a PostgreSQL store URL (postgres://...); a SQLite store needs no \
             migration step",
        ));
    }
    let m = PostgresStore::migrate_schema(url, !check)?;
    let pending = m.after < m.latest;
    let status = u8::from(check && pending);
    if json {
        let v = json!({"before": m.before, "after": m.after, "latest": m.latest,
                       "applied": m.after != m.before, "pending": pending});
        return Ok(Report::new(super::pretty(&v), status));
    }
    let text = if check {
        if pending {
            format!(
                "schema version {} of {}: migrations pending (run leasekit gov migrate)\n",
                m.before, m.latest
            )
        } else {
            format!("schema version {}: up to date\n", m.before)
        }
    } else if m.before == m.after {
        format!("schema version {}: up to date, nothing applied\n", m.after)
    } else {
        format!("schema version {} -> {}: migrated\n", m.before, m.after)
    };
    Ok(Report::new(text, status))
}

fn short(hash: &str) -> &str {
    hash.get(..12).unwrap_or(hash)
}

fn pretty<T: serde::Serialize>(v: &T) -> String {
    super::pretty(&serde_json::to_value(v).unwrap_or(Value::Null))
}

fn ok_json<T: serde::Serialize>(v: &T) -> Result<Report, Failure> {
    Ok(Report::new(pretty(v), 0))
}

/// Client text as one terminal-safe line: control characters (escape sequences, new lines)
/// are shown escaped, never sent to the terminal.
fn printable(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_control() {
                c.escape_default().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}
