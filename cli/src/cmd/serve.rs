//! `leasekit serve`: run the governor as a local daemon (SEMANTICS 13, 13.14) until SIGTERM or
//! SIGINT. The daemon itself is the `leasekit-serve` crate; this file only turns flags into
//! its settings.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use clap::{Args, ValueEnum};
use leasekit::agentfile::{Diagnostic, lint};
use leasekit::governor::{GovernorOptions, IdSource, Policy, Synchronous};
use leasekit_serve::{FrameService, GovernorService, GovernorSpec, ServeConfig, StoreKind};

use crate::Report;
use crate::failure::Failure;
use crate::input::{display_name, read_agentfile, read_text};

/// `leasekit serve`.
#[derive(Debug, Args)]
#[command(
    after_help = "Runs in the foreground until SIGTERM or SIGINT, then stops accepting, answers every \
    request already read, closes the store and removes the socket.\n\
    Exit status: 0 after a clean shutdown, 2 when the daemon cannot start (e.g. another daemon holds the \
    socket or state directory, or a directory or file of the daemon is unsafe: the state and socket \
    directories must be owned by the daemon's uid or root and not writable by group or others unless \
    sticky, and no lock file, socket or store file may be a symbolic link).\n\n\
    Examples:\n  \
    leasekit serve --policy policy.json\n  \
    leasekit serve --agentfile examples/agentfiles/code-reviewer/Agentfile --state /var/lib/leasekit\n  \
    leasekit serve --socket /run/leasekit.sock --socket-mode 660 --admin-uid 0 --admin-uid 1001\n\
    See docs/daemon.md."
)]
pub struct ServeArgs {
    /// Socket path [default: $LEASEKIT_SOCKET, else $XDG_RUNTIME_DIR/leasekit.sock, else STATE/leasekit.sock].
    #[arg(long, value_name = "PATH")]
    pub socket: Option<PathBuf>,
    /// State directory: the SQLite store (governor.db, audit chain included) and the lock file
    /// [default: $XDG_STATE_HOME/leasekit, else ~/.local/state/leasekit].
    #[arg(long, value_name = "DIR")]
    pub state: Option<PathBuf>,
    /// Policy JSON (SEMANTICS 13.9); used when the store is new (afterwards the store's last
    /// activated policy wins).
    #[arg(long, value_name = "FILE", conflicts_with = "agentfile")]
    pub policy: Option<String>,
    /// Compile this Agentfile to the policy instead of --policy.
    #[arg(long, value_name = "FILE")]
    pub agentfile: Option<String>,
    /// Construction options JSON: limits and the trust settings (allowedPublicKeysBase64,
    /// requireSignedBundles).
    #[arg(long, value_name = "FILE")]
    pub options: Option<String>,
    /// A uid allowed the admin commands (approval decisions, policy, exports); repeatable
    /// [default: the daemon's own uid].
    #[arg(long = "admin-uid", value_name = "UID")]
    pub admin_uids: Vec<u32>,
    /// Socket permission bits in octal (0600: owner only).
    #[arg(long, value_name = "OCTAL", default_value = "600", value_parser = parse_mode)]
    pub socket_mode: u32,
    /// Where state lives: `sqlite` (STATE/governor.db), `memory` (lost at shutdown), a
    /// PostgreSQL URL `postgres://USER@HOST/DB?host=/socket/dir` shared by a fleet of daemons
    /// (SEMANTICS 13.12), or `env:NAME` to read that URL from the environment variable NAME
    /// (keeps a password out of the process list).
    #[arg(long, value_name = "STORE", default_value = "sqlite", value_parser = parse_store)]
    pub store: StoreArg,
    /// SQLite durability: full (fsync per commit; no answered grant lost on power loss) or
    /// normal (survives a crash of the daemon, not of the machine).
    #[arg(long, value_enum, default_value_t = SyncArg::Full)]
    pub sync: SyncArg,
    /// Seconds a connection may sit idle between requests.
    #[arg(long, value_name = "SECS", default_value_t = 120)]
    pub idle_timeout: u64,
    /// Seconds a request frame may take to arrive once started.
    #[arg(long, value_name = "SECS", default_value_t = 10)]
    pub frame_timeout: u64,
    /// Connections served at once.
    #[arg(long, value_name = "N", default_value_t = 4096)]
    pub max_connections: usize,
    /// Connections one uid may hold at once; more from that uid get an error frame and are
    /// closed (other uids are still served).
    #[arg(long, value_name = "N", default_value_t = 64)]
    pub max_connections_per_uid: usize,
    /// Request bytes buffered across all connections, reserved as they arrive (not at a
    /// frame's announced length); a request that finds no room gets an error frame and its
    /// connection is closed. The last eighth is kept for requests of at most 64 KiB. At least
    /// 1048576.
    #[arg(long, value_name = "BYTES", default_value_t = 268_435_456, value_parser = parse_buffered)]
    pub max_buffered_bytes: usize,
    /// Serve Prometheus metrics on http://ADDR/metrics (e.g. 127.0.0.1:9464; port 0 picks a
    /// free port, printed at startup). Without it no TCP port is opened. See
    /// docs/operations.md.
    #[arg(long, value_name = "ADDR:PORT")]
    pub metrics_listen: Option<std::net::SocketAddr>,
    /// Allow --metrics-listen on a non-loopback address (the metrics are then reachable from
    /// other hosts); refused without it.
    #[arg(long, requires = "metrics_listen")]
    pub metrics_allow_remote: bool,
    /// Milliseconds between background sweeps of expired leases.
    #[arg(long, value_name = "MS", default_value_t = 1000)]
    pub sweep_interval_ms: u64,
    /// Log line format on stderr: `text`, or `json` (one object per line: timestamp, level,
    /// target, message and the event's fields).
    #[arg(long, value_enum, default_value_t = LogFormatArg::Text)]
    pub log_format: LogFormatArg,
    /// Log level: error, warn, info (start, stop, denials, refused connections, store errors),
    /// debug (one line per command: name, uid, outcome code), trace; or a RUST_LOG-style filter
    /// such as `info,leasekit_serve=debug`. Never logs payloads, tokens or credentials.
    #[arg(long, value_name = "LEVEL", default_value = "info")]
    pub log_level: String,
    /// TEST ONLY: a manual clock, `manual:<RFC 3339>`, moved by the admin-only command
    /// TestSetClock {"now": ...}.
    #[arg(long, hide = true, value_name = "manual:TIME")]
    pub clock: Option<String>,
    /// TEST ONLY: `deterministic` ids (lease-1, approval-1, appr-1, sub-1).
    #[arg(long, hide = true, value_name = "deterministic")]
    pub ids: Option<String>,
}

/// `--store`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StoreArg {
    /// STATE/governor.db.
    Sqlite,
    /// In memory (lost at shutdown).
    Memory,
    /// A PostgreSQL URL.
    Postgres(String),
}

fn is_postgres_url(s: &str) -> bool {
    let lower = s.to_ascii_lowercase();
    lower.starts_with("postgres://") || lower.starts_with("postgresql://")
}

fn parse_store(s: &str) -> Result<StoreArg, String> {
    match s {
        "sqlite" => Ok(StoreArg::Sqlite),
        "memory" => Ok(StoreArg::Memory),
        _ if is_postgres_url(s) => Ok(StoreArg::Postgres(s.to_string())),
        _ => match s.strip_prefix("env:") {
            Some(name) => match std::env::var(name) {
                Ok(url) if is_postgres_url(&url) => Ok(StoreArg::Postgres(url)),
                Ok(_) => Err(format!("${name} does not hold a postgres:// URL")),
                Err(_) => Err(format!("${name} is not set")),
            },
            None => Err(
                "expected sqlite, memory, a postgres:// URL or env:NAME (the URL in $NAME)".into(),
            ),
        },
    }
}

/// `--log-format`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum LogFormatArg {
    /// Human-readable lines.
    Text,
    /// One JSON object per line.
    Json,
}

/// `--sync`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum SyncArg {
    /// synchronous=FULL.
    Full,
    /// synchronous=NORMAL.
    Normal,
}

fn parse_buffered(s: &str) -> Result<usize, String> {
    let n: usize = s
        .parse()
        .map_err(|_| format!("{s:?} is not a number of bytes"))?;
    let min = leasekit_serve::config::MIN_MAX_BUFFERED_BYTES;
    if n < min {
        return Err(format!("{n} is below the minimum {min} bytes"));
    }
    Ok(n)
}

fn parse_mode(s: &str) -> Result<u32, String> {
    let m = u32::from_str_radix(s.trim_start_matches("0o"), 8)
        .map_err(|_| format!("{s:?} is not an octal mode such as 600"))?;
    if m > 0o777 {
        return Err(format!("{s} is not a permission mode (at most 777)"));
    }
    Ok(m)
}

/// Runs the daemon until a signal stops it.
pub fn run(args: &ServeArgs) -> Result<Report, Failure> {
    let format = match args.log_format {
        LogFormatArg::Text => leasekit_serve::logging::LogFormat::Text,
        LogFormatArg::Json => leasekit_serve::logging::LogFormat::Json,
    };
    leasekit_serve::logging::init(format, &args.log_level).map_err(Failure::usage)?;
    let state = match &args.state {
        Some(s) => s.clone(),
        None => leasekit_serve::config::default_state_dir().map_err(Failure::usage)?,
    };
    let socket = args
        .socket
        .clone()
        .unwrap_or_else(|| leasekit_serve::config::default_socket(&state));
    let spec = spec(args)?;
    let mut config = ServeConfig::new(socket, state.clone());
    config.socket_mode = args.socket_mode;
    config.idle_timeout = Duration::from_secs(args.idle_timeout.max(1));
    config.frame_timeout = Duration::from_secs(args.frame_timeout.max(1));
    config.max_connections = args.max_connections.max(1);
    config.max_connections_per_uid = args.max_connections_per_uid.max(1);
    config.max_buffered_bytes = args.max_buffered_bytes;
    config.sweep_interval = Duration::from_millis(args.sweep_interval_ms.max(10));
    config.metrics = args.metrics_listen.map(|addr| {
        let mut m = leasekit_serve::metrics::MetricsConfig::new(addr);
        m.allow_remote = args.metrics_allow_remote;
        m
    });
    leasekit_serve::run(config, move || {
        GovernorService::open(spec, &state).map(|s| Arc::new(s) as Arc<dyn FrameService>)
    })
    .map_err(Failure::usage)?;
    Ok(Report::new(String::new(), 0))
}

fn spec(args: &ServeArgs) -> Result<GovernorSpec, Failure> {
    let policy = if let Some(path) = &args.policy {
        let text = read_text(path)?;
        Policy::from_json(&text).map_err(|e| Failure::core(display_name(path), &e))?
    } else if let Some(path) = &args.agentfile {
        let af = read_agentfile(path, false)?;
        if let Some(d) = lint(&af).into_iter().find(Diagnostic::is_error) {
            return Err(Failure::usage(format!(
                "{}: the Agentfile has errors (first at line {}: {}); see `leasekit lint`",
                display_name(path),
                d.line,
                d.message
            )));
        }
        Policy::from_agentfile(&af).map_err(|e| Failure::core(display_name(path), &e))?
    } else {
        Policy::default_policy()
    };
    let options = match &args.options {
        Some(path) => GovernorOptions::from_json(&read_text(path)?)
            .map_err(|e| Failure::core(display_name(path), &e))?,
        None => GovernorOptions::default(),
    };
    let manual_clock = match args.clock.as_deref() {
        None => None,
        Some(c) => {
            let t = c.strip_prefix("manual:").ok_or_else(|| {
                Failure::usage("--clock takes manual:<RFC 3339 time> (a test-only setting)")
            })?;
            Some(leasekit::parse_expires_at(t).map_err(|e| Failure::core("--clock", &e))?)
        }
    };
    let ids = match args.ids.as_deref() {
        None => IdSource::Random,
        Some("deterministic") => IdSource::Deterministic,
        Some(other) => {
            return Err(Failure::usage(format!(
                "--ids takes `deterministic` (a test-only setting), not {other:?}"
            )));
        }
    };
    let admin_uids: BTreeSet<u32> = if args.admin_uids.is_empty() {
        [leasekit_serve::listener::current_uid()].into()
    } else {
        args.admin_uids.iter().copied().collect()
    };
    Ok(GovernorSpec {
        policy,
        options,
        store: match (&args.store, args.sync) {
            (StoreArg::Memory, _) => StoreKind::Memory,
            (StoreArg::Postgres(url), _) => StoreKind::Postgres(url.clone()),
            (StoreArg::Sqlite, SyncArg::Full) => StoreKind::Sqlite(Synchronous::Full),
            (StoreArg::Sqlite, SyncArg::Normal) => StoreKind::Sqlite(Synchronous::Normal),
        },
        admin_uids,
        manual_clock,
        ids,
    })
}
