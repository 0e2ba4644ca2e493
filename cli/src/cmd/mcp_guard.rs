//! `leasekit mcp-guard`: a stdio proxy in front of an MCP server. It starts the server as its
//! child, forwards its stderr, decides every client message with the core's MCP guard
//! ([`leasekit::mcp::Session`]) and exits with the server's status. This file only does I/O.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};

use clap::Args;
use leasekit::agentfile::agentfile_lease;
use leasekit::governor::client::{ClientOptions, FallbackMode, GovernorClient};
use leasekit::mcp::{
    AuditLog, CallGovernor, CallIdentity, DEFAULT_MAX_LINE, McpGuard, McpOptions, Output, Session,
    agentfile_server,
};
use leasekit::{LeaseConstraints, LeaseGuard, SystemClock};

use crate::Report;
use crate::failure::Failure;
use crate::input::{display_name, read_agentfile, read_lease, read_text};

/// `leasekit mcp-guard`.
#[derive(Debug, Args)]
#[command(
    after_help = "Exit status: the server's (128+N when a signal N ended it); 2 when the \
    guard could not start.\n\nExample (Claude Desktop / Cursor style):\n  \
    leasekit mcp-guard --agentfile Agentfile -- npx -y @modelcontextprotocol/server-filesystem /srv/data"
)]
pub struct McpGuardArgs {
    /// The Agentfile whose derived lease the calls must fit.
    #[arg(
        long,
        value_name = "FILE",
        required_unless_present = "lease",
        conflicts_with = "lease"
    )]
    pub agentfile: Option<String>,
    /// An ARCP lease JSON file instead of an Agentfile.
    #[arg(long, value_name = "FILE")]
    pub lease: Option<String>,
    /// The NAME in `TOOL mcp:NAME.<tool>` (default: the Agentfile's one `MCP` line).
    #[arg(long, value_name = "NAME")]
    pub server: Option<String>,
    /// A JSON argument map for tools the built-in maps do not cover (see docs/mcp.md).
    #[arg(long = "args-map", value_name = "FILE")]
    pub args_map: Option<String>,
    /// A `leasekit serve` socket: every allowed call is an Acquire, and a Release after; every
    /// decision is a record of the governor's audit chain.
    #[arg(long, value_name = "SOCKET")]
    pub governor: Option<String>,
    /// The actor the governor charges.
    #[arg(long, value_name = "ID", default_value = "mcp-guard")]
    pub actor: String,
    /// The workspace the governor charges.
    #[arg(long, value_name = "ID", default_value = "")]
    pub workspace: String,
    /// The org the governor charges (blank: the governor's default).
    #[arg(long, value_name = "ID", default_value = "")]
    pub org: String,
    /// Append every decision to this JSONL audit chain (`leasekit audit verify FILE`), also
    /// with --governor.
    #[arg(long, value_name = "FILE")]
    pub audit: Option<String>,
    /// Refuse tools that have no argument map.
    #[arg(long)]
    pub strict: bool,
    /// Log what would be denied, and allow it.
    #[arg(long)]
    pub monitor: bool,
    /// Longest message line, in bytes, either way.
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_LINE)]
    pub max_line: usize,
    /// The server command and its arguments.
    #[arg(last = true, required = true, value_name = "SERVER_COMMAND")]
    pub command: Vec<String>,
}

/// One line read with a bound.
enum Line {
    Text(Vec<u8>),
    TooLong(usize),
    Eof,
}

/// Reads up to the next `\n`, keeping at most `max` bytes; a longer line is read to its end
/// and dropped. A last line without `\n` counts as a line.
fn read_line(r: &mut impl BufRead, max: usize) -> std::io::Result<Line> {
    let mut buf = Vec::new();
    let mut total = 0usize;
    loop {
        let chunk = r.fill_buf()?;
        if chunk.is_empty() {
            return Ok(match (total, total > max) {
                (0, _) => Line::Eof,
                (n, true) => Line::TooLong(n),
                _ => Line::Text(buf),
            });
        }
        let (take, done) = match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => (i + 1, true),
            None => (chunk.len(), false),
        };
        let part = &chunk[..take];
        let body = if done { &part[..part.len() - 1] } else { part };
        total += body.len();
        if total <= max {
            buf.extend_from_slice(body);
        } else {
            buf = Vec::new();
        }
        r.consume(take);
        if done {
            if buf.last() == Some(&b'\r') {
                buf.pop();
            }
            return Ok(if total > max {
                Line::TooLong(total)
            } else {
                Line::Text(buf)
            });
        }
    }
}

type Shared<T> = Arc<Mutex<T>>;

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Writes one output: lines to the server, to the client, and the log to stderr.
fn emit(
    out: Output,
    server: Option<&Shared<Option<std::process::ChildStdin>>>,
    client: &Shared<std::io::Stdout>,
) {
    for l in out.log {
        eprintln!("leasekit mcp-guard: {l}");
    }
    if !out.to_client.is_empty() {
        let mut c = lock(client);
        for l in out.to_client {
            let _ = c.write_all(l.as_bytes()).and_then(|_| c.write_all(b"\n"));
        }
        let _ = c.flush();
    }
    if let Some(s) = server
        && !out.to_server.is_empty()
    {
        let mut s = lock(s);
        if let Some(w) = s.as_mut() {
            for l in out.to_server {
                let _ = w.write_all(l.as_bytes()).and_then(|_| w.write_all(b"\n"));
            }
            let _ = w.flush();
        }
    }
}

fn build_session(args: &McpGuardArgs) -> Result<Session, Failure> {
    let (lease, declared) = match (&args.lease, &args.agentfile) {
        (Some(p), _) => (read_lease(p)?, None),
        (None, Some(p)) => {
            let af = read_agentfile(p, false)?;
            let lease = agentfile_lease(&af).map_err(|e| Failure::core(display_name(p), &e))?;
            (
                lease,
                Some(agentfile_server(&af).map_err(|e| Failure::core(display_name(p), &e))),
            )
        }
        (None, None) => return Err(Failure::usage("give --agentfile or --lease")),
    };
    let server = match (&args.server, declared) {
        (Some(s), _) => s.clone(),
        (None, Some(r)) => r?,
        (None, None) => return Err(Failure::usage("with --lease, give --server NAME")),
    };
    if !leasekit::mcp::valid_tool_name(&server) || server.contains(['.', '/']) {
        return Err(Failure::usage(format!(
            "--server {server:?}: not a plain server name"
        )));
    }
    let mut map = leasekit::mcp::ArgMap::builtin();
    if let Some(p) = &args.args_map {
        let m = leasekit::mcp::ArgMap::from_json(&read_text(p)?)
            .map_err(|e| Failure::core(display_name(p), &e))?;
        map.extend(m);
    }
    let mut opts = McpOptions::new(&server);
    opts.strict = args.strict;
    opts.monitor = args.monitor;
    let clock = Arc::new(SystemClock);
    let guard = LeaseGuard::new(lease, LeaseConstraints::none(), clock.clone());
    let governor = args.governor.as_ref().map(|socket| {
        // Fail closed: an unreachable governor denies, it never falls back to local grants.
        let copts = ClientOptions {
            fallback: FallbackMode::Off,
            ..ClientOptions::default()
        };
        CallGovernor::new(
            Box::new(GovernorClient::with_options(socket, copts)),
            CallIdentity {
                org_id: args.org.clone(),
                actor_id: args.actor.clone(),
                workspace_id: args.workspace.clone(),
            },
        )
    });
    let audit = match &args.audit {
        Some(p) => Some(AuditLog::open(std::path::Path::new(p)).map_err(|e| Failure::core(p, &e))?),
        None => None,
    };
    Ok(Session::new(
        McpGuard::new(guard, map, opts),
        governor,
        audit,
        clock,
    ))
}

/// Runs `mcp-guard`.
pub fn run(args: &McpGuardArgs) -> Result<Report, Failure> {
    let session = Arc::new(Mutex::new(build_session(args)?));
    let mut child = Command::new(&args.command[0])
        .args(&args.command[1..])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| Failure::usage(format!("cannot start {:?}: {e}", args.command[0])))?;
    let server_in: Shared<Option<std::process::ChildStdin>> =
        Arc::new(Mutex::new(child.stdin.take()));
    let server_out = child.stdout.take().expect("piped stdout");
    let client: Shared<std::io::Stdout> = Arc::new(Mutex::new(std::io::stdout()));
    let max = args.max_line;

    // Client -> server.
    {
        let (session, server_in, client) = (session.clone(), server_in.clone(), client.clone());
        std::thread::spawn(move || {
            let mut r = BufReader::with_capacity(64 * 1024, std::io::stdin().lock());
            loop {
                let out = match read_line(&mut r, max) {
                    Ok(Line::Eof) | Err(_) => break,
                    Ok(Line::TooLong(n)) => lock(&session)
                        .refuse(&format!("message of {n} bytes exceeds --max-line {max}")),
                    Ok(Line::Text(b)) => match std::str::from_utf8(&b) {
                        Ok(t) if t.trim().is_empty() => continue,
                        Ok(t) => lock(&session).from_client(t),
                        Err(_) => lock(&session).refuse("the message is not UTF-8"),
                    },
                };
                emit(out, Some(&server_in), &client);
            }
            // The client is gone: closing the server's stdin asks it to exit.
            lock(&server_in).take();
        });
    }

    // Server -> client, on this thread, until the server closes its stdout.
    let mut r = BufReader::with_capacity(64 * 1024, server_out);
    loop {
        let out = match read_line(&mut r, max) {
            Ok(Line::Eof) | Err(_) => break,
            Ok(Line::TooLong(n)) => {
                eprintln!(
                    "leasekit mcp-guard: dropped a server message of {n} bytes (--max-line {max})"
                );
                continue;
            }
            Ok(Line::Text(b)) => match std::str::from_utf8(&b) {
                Ok(t) if t.trim().is_empty() => continue,
                Ok(t) => lock(&session).from_server(t),
                Err(_) => {
                    eprintln!("leasekit mcp-guard: dropped a server message that is not UTF-8");
                    continue;
                }
            },
        };
        emit(out, None, &client);
    }
    let out = lock(&session).server_exited();
    emit(out, None, &client);
    lock(&server_in).take();
    let status = child
        .wait()
        .map_err(|e| Failure::usage(format!("waiting for the server: {e}")))?;
    use std::os::unix::process::ExitStatusExt;
    let code = match (status.code(), status.signal()) {
        (Some(c), _) => c,
        (None, Some(s)) => 128 + s,
        _ => 1,
    };
    Ok(Report::new(String::new(), code.clamp(0, 255) as u8))
}
