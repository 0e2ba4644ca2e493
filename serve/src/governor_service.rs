//! The governor behind the socket: [`GovernorService`] answers each frame with
//! [`Governor::handle_as`] for the peer's uid (SEMANTICS 13.14), and [`GovernorSpec`] says how
//! to build that governor (policy, options, store, admin uids, and the test-only clock and id
//! source).

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Arc;

use leasekit::governor::wire::{RequestEnvelope, ResponseEnvelope};
use leasekit::governor::{
    CommitWait, Governor, GovernorOptions, IdSource, MemoryStore, Peer as AccessPeer, Policy,
    SqliteStore, Store, Synchronous,
};
use leasekit::{Clock, ManualClock, SystemClock, Timestamp};

use crate::logging;
use crate::metrics::stats::{CommandStats, StoreStats};
use crate::service::{Answer, FrameService, Peer};

/// One debug line per command (name, uid, outcome code), an info line per denial (reason
/// code), a warning per store error. Codes only: never a payload or an error's text.
fn log_answer(command: &str, uid: u32, answer: &ResponseEnvelope) {
    let outcome = if answer.success {
        "ok"
    } else {
        logging::error_code(&answer.error)
    };
    tracing::debug!(command, uid, outcome, "command");
    let reason = if answer.success {
        logging::denied_reason(&answer.payload_json)
    } else {
        None
    };
    if let Some(reason) = reason {
        tracing::info!(command, uid, reason, "denied");
    }
    let code = reason.unwrap_or(outcome);
    if code.starts_with("store_") || code.starts_with("internal") {
        tracing::warn!(command, uid, code, "store error");
    }
}

/// The largest request decided on the connection's own (async runtime) thread: a larger one
/// is parsed and decided on a blocking thread, so no request's size holds up the others'
/// reads and writes.
const NONBLOCKING_MAX_BYTES: usize = 16 * 1024;

/// The file of the SQLite store inside the state directory.
pub const STORE_FILE: &str = "governor.db";

/// The test-only command that sets a manual clock (`{"now": RFC 3339}`); it exists only when
/// the daemon runs with `--clock manual:...`, and only admins may send it.
pub const TEST_SET_CLOCK: &str = "TestSetClock";

/// Where the governor keeps its state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StoreKind {
    /// `governor.db` in the state directory, with this durability.
    Sqlite(Synchronous),
    /// In memory: lost when the daemon stops (tests, throwaway).
    Memory,
    /// A PostgreSQL database shared with other governors (SEMANTICS 13.12): the URL
    /// (`postgres://...`). Needs a leasekit built with its `postgres` feature.
    Postgres(String),
}

/// How to build the daemon's governor.
#[derive(Debug, Clone)]
pub struct GovernorSpec {
    /// The policy (recorded only the first time a store is opened; afterwards the store's last
    /// activated policy wins, SEMANTICS 13.15).
    pub policy: Policy,
    /// Construction options (limits and the trust settings).
    pub options: GovernorOptions,
    /// The store.
    pub store: StoreKind,
    /// Uids allowed the admin commands (approval decisions, policy, exports).
    pub admin_uids: BTreeSet<u32>,
    /// `Some(t)`: a manual clock starting at `t`, moved by [`TEST_SET_CLOCK`] (tests only).
    pub manual_clock: Option<Timestamp>,
    /// Id source (deterministic only for tests and conformance).
    pub ids: IdSource,
}

/// The governor a daemon serves.
pub struct GovernorService {
    gov: Governor,
    admins: BTreeSet<u32>,
    manual_clock: Option<Arc<ManualClock>>,
    commands: Arc<CommandStats>,
    store_stats: Arc<StoreStats>,
}

impl std::fmt::Debug for GovernorService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GovernorService")
            .field("gov", &self.gov)
            .field("admins", &self.admins)
            .finish()
    }
}

impl GovernorService {
    /// Opens the governor of `spec` with its state in `state_dir`.
    pub fn open(spec: GovernorSpec, state_dir: &Path) -> Result<GovernorService, String> {
        let store: Arc<dyn Store> = match spec.store {
            StoreKind::Sqlite(sync) => {
                let path = state_dir.join(STORE_FILE);
                check_store_files(&path)?;
                Arc::new(SqliteStore::open_with(&path, sync).map_err(|e| {
                    format!("cannot open the store {}: {}", path.display(), e.message())
                })?)
            }
            StoreKind::Memory => Arc::new(MemoryStore::new()),
            StoreKind::Postgres(url) => leasekit::governor::store::open_location(&url)
                .map_err(|e| format!("cannot open the PostgreSQL store: {}", e.message()))?,
        };
        let manual_clock = spec.manual_clock.map(|t| Arc::new(ManualClock::new(t)));
        let clock: Arc<dyn Clock> = match &manual_clock {
            Some(c) => c.clone(),
            None => Arc::new(SystemClock),
        };
        let gov = Governor::new(spec.policy, spec.options, store, clock, spec.ids)
            .map_err(|e| format!("cannot open the governor: {}", e.message()))?;
        let store_stats = Arc::new(StoreStats::default());
        gov.set_observer(store_stats.clone());
        Ok(GovernorService {
            gov,
            admins: spec.admin_uids,
            manual_clock,
            commands: Arc::new(CommandStats::default()),
            store_stats,
        })
    }

    /// The governor (for in-process checks).
    pub fn governor(&self) -> &Governor {
        &self.gov
    }

    /// Commands answered, by command and result.
    pub fn command_stats(&self) -> &Arc<CommandStats> {
        &self.commands
    }

    /// Store commit times, store errors and release outcomes.
    pub fn store_stats(&self) -> &Arc<StoreStats> {
        &self.store_stats
    }

    /// The answer (with the commit to await before it is sent, if any), the command's name
    /// as fit for a log line, and the command as sent when it is counted. `nonblocking`: the
    /// caller must not block ([`Governor::handle_as_nonblocking`]), and `None` answers that
    /// the command could block it.
    fn decide(&self, request: &[u8], peer: &Peer, nonblocking: bool) -> Option<Decided> {
        let refused = |env: ResponseEnvelope| {
            Some(Decided {
                command: "invalid".into(),
                counted: None,
                answer: env,
                commit: None,
            })
        };
        let Ok(text) = std::str::from_utf8(request) else {
            return refused(ResponseEnvelope::fail("frame payload is not UTF-8"));
        };
        let req: RequestEnvelope = match serde_json::from_str(text) {
            Ok(r) => r,
            Err(e) => {
                return refused(ResponseEnvelope::fail(format!(
                    "frame payload is not a request envelope: {e}"
                )));
            }
        };
        let command = logging::command_name(&req.command).to_string();
        let access = AccessPeer {
            uid: peer.uid,
            admin: self.admins.contains(&peer.uid),
        };
        if req.command == TEST_SET_CLOCK
            && let Some(clock) = &self.manual_clock
        {
            return Some(Decided {
                command,
                counted: None,
                answer: set_clock(clock, access, &req.payload_json),
                commit: None,
            });
        }
        let (answer, commit) = if nonblocking {
            self.gov
                .handle_as_nonblocking(access, &req.command, &req.payload_json)?
        } else {
            self.gov
                .handle_as_deferred(access, &req.command, &req.payload_json)
        };
        Some(Decided {
            command,
            counted: Some(req.command),
            answer,
            commit,
        })
    }
}

/// A decided request.
struct Decided {
    /// The command's name as fit for a log line.
    command: String,
    /// The command as sent, counted in the command statistics (`None`: not counted).
    counted: Option<String>,
    answer: ResponseEnvelope,
    /// The commit to await before the answer is sent.
    commit: Option<CommitWait>,
}

impl Decided {
    /// Counts and logs the final answer and encodes it.
    fn send(self, commands: &CommandStats, uid: u32) -> Vec<u8> {
        if let Some(c) = &self.counted {
            commands.record(c, self.answer.success);
        }
        log_answer(&self.command, uid, &self.answer);
        serde_json::to_vec(&self.answer).expect("envelope serializes")
    }
}

/// Refuses a store whose file or journal files are symbolic links or not the daemon's own
/// (SEMANTICS 13.16 "Files"), before SQLite opens (or creates) them by path.
fn check_store_files(db: &Path) -> Result<(), String> {
    for suffix in ["", "-wal", "-shm", "-journal"] {
        let mut p = db.as_os_str().to_owned();
        p.push(suffix);
        crate::files::check_existing_file(Path::new(&p), "store file")?;
    }
    Ok(())
}

fn set_clock(clock: &ManualClock, peer: AccessPeer, payload: &str) -> ResponseEnvelope {
    if !peer.admin {
        return ResponseEnvelope::fail(format!(
            "permission_denied: {TEST_SET_CLOCK} needs an admin uid (uid {} is not one)",
            peer.uid
        ));
    }
    let now = serde_json::from_str::<serde_json::Value>(payload)
        .ok()
        .and_then(|v| v.get("now").and_then(|n| n.as_str()).map(str::to_string));
    let Some(now) = now else {
        return ResponseEnvelope::fail("invalid payload: TestSetClock needs {\"now\": RFC 3339}");
    };
    match leasekit::parse_expires_at(&now) {
        Ok(t) => {
            clock.set(t);
            ResponseEnvelope::ok(serde_json::json!({"now": now}).to_string())
        }
        Err(e) => ResponseEnvelope::fail(format!("invalid payload: {}", e.message())),
    }
}

impl GovernorService {
    /// The answer to send: now, or once its commit completes (its error instead when the
    /// commit fails).
    fn finish(&self, mut decided: Decided, uid: u32) -> Answer {
        let Some(commit) = decided.commit.take() else {
            return Answer::Ready(decided.send(&self.commands, uid));
        };
        // Sent only once committed; a failed commit answers its `store_unavailable` error.
        let commands = self.commands.clone();
        Answer::AfterCommit(Box::pin(async move {
            if let Err(e) = commit.await {
                decided.answer = ResponseEnvelope::fail(e.message());
            }
            decided.send(&commands, uid)
        }))
    }
}

impl FrameService for GovernorService {
    fn handle(&self, request: &[u8], peer: &Peer) -> Answer {
        let decided = self
            .decide(request, peer, false)
            .expect("a caller that may block always gets an answer");
        self.finish(decided, peer.uid)
    }

    fn handle_nonblocking(&self, request: &[u8], peer: &Peer) -> Option<Answer> {
        if request.len() > NONBLOCKING_MAX_BYTES {
            return None;
        }
        let decided = self.decide(request, peer, true)?;
        Some(self.finish(decided, peer.uid))
    }

    fn frame_error(&self, message: &str) -> Vec<u8> {
        serde_json::to_vec(&ResponseEnvelope::fail(message)).expect("envelope serializes")
    }

    fn sweep(&self) -> Result<(), String> {
        // The caller logs a failure (once per run of failures).
        self.gov.sweep().map_err(|e| e.message().to_string())
    }

    fn governor_service(&self) -> Option<&GovernorService> {
        Some(self)
    }

    fn close(&self) -> Result<(), String> {
        // Nothing to flush: a command is answered only after its changes are committed (group
        // commit included), and shutdown waits for every command in flight. No sweep either:
        // leases that expire while the daemon is down are settled by the next start
        // (`lease_expired_by_restart`, SEMANTICS 13.11).
        Ok(())
    }
}
