//! The daemon's transport settings and the default socket and state locations.

use std::path::PathBuf;
use std::time::Duration;

/// The default cap on request bytes buffered across all connections (256 MiB).
pub const DEFAULT_MAX_BUFFERED_BYTES: usize = 256 * 1024 * 1024;

/// The smallest `max_buffered_bytes` a daemon accepts (one read chunk of every kind of
/// request must fit).
pub const MIN_MAX_BUFFERED_BYTES: usize = 1024 * 1024;

/// Transport settings of one daemon.
#[derive(Debug, Clone)]
pub struct ServeConfig {
    /// The Unix socket path.
    pub socket: PathBuf,
    /// The state directory (store, lock file); created 0700 when absent, and refused when it
    /// is not owned by the daemon's uid or root or is writable by others (SEMANTICS 13.16).
    pub state_dir: PathBuf,
    /// Permission bits of the socket file (default 0600: owner only, SEMANTICS 13.14).
    pub socket_mode: u32,
    /// How long a connection may sit between requests before it is closed.
    pub idle_timeout: Duration,
    /// How long a request frame may take to arrive once it has started (slow clients).
    pub frame_timeout: Duration,
    /// How long writing one response may take (clients that do not read).
    pub write_timeout: Duration,
    /// Connections served at once; more are refused with an error frame.
    pub max_connections: usize,
    /// Connections one uid may hold at once; more of that uid are refused with an error frame.
    pub max_connections_per_uid: usize,
    /// Request bytes buffered across all connections (reserved as they arrive); a request
    /// that finds no room is refused with an error frame.
    pub max_buffered_bytes: usize,
    /// Period of the background sweep of expired leases.
    pub sweep_interval: Duration,
    /// How long shutdown waits for in-flight commands before giving up on them.
    pub shutdown_grace: Duration,
    /// The socket was handed over by a service manager (socket activation): the daemon did
    /// not create it and never removes it.
    pub inherited_socket: bool,

    /// The Prometheus endpoint (`--metrics-listen`); `None`: no TCP port at all.
    pub metrics: Option<crate::metrics::MetricsConfig>,
}

impl ServeConfig {
    /// Settings with the defaults for everything but the two paths.
    pub fn new(socket: PathBuf, state_dir: PathBuf) -> ServeConfig {
        ServeConfig {
            socket,
            state_dir,
            socket_mode: 0o600,
            idle_timeout: Duration::from_secs(120),
            frame_timeout: Duration::from_secs(10),
            write_timeout: Duration::from_secs(10),
            max_connections: 4096,
            max_connections_per_uid: 64,
            max_buffered_bytes: DEFAULT_MAX_BUFFERED_BYTES,
            sweep_interval: Duration::from_secs(1),
            shutdown_grace: Duration::from_secs(30),
            inherited_socket: false,

            metrics: None,
        }
    }

    /// Refuses settings a daemon cannot run with.
    pub fn check(&self) -> Result<(), String> {
        if self.max_buffered_bytes < MIN_MAX_BUFFERED_BYTES {
            return Err(format!(
                "--max-buffered-bytes {} is below the minimum {MIN_MAX_BUFFERED_BYTES}",
                self.max_buffered_bytes
            ));
        }
        if self.max_connections == 0 || self.max_connections_per_uid == 0 {
            return Err(
                "--max-connections and --max-connections-per-uid must be at least 1".into(),
            );
        }
        if let Some(m) = &self.metrics {
            m.check()?;
        }
        Ok(())
    }

    /// The state directory's lock file.
    pub fn state_lock_path(&self) -> PathBuf {
        self.state_dir.join("leasekit.lock")
    }

    /// The socket's lock file (`<socket>.lock`).
    pub fn socket_lock_path(&self) -> PathBuf {
        let mut s = self.socket.clone().into_os_string();
        s.push(".lock");
        PathBuf::from(s)
    }
}

/// The default state directory (`$XDG_STATE_HOME/leasekit`, else `~/.local/state/leasekit`).
pub fn default_state_dir() -> Result<PathBuf, String> {
    leasekit::governor::client::default_state_dir()
        .ok_or_else(|| "no state directory: set --state, XDG_STATE_HOME or HOME".to_string())
}

/// The default socket of a daemon with this state directory (`$LEASEKIT_SOCKET`, else
/// `$XDG_RUNTIME_DIR/leasekit.sock`, else `<state dir>/leasekit.sock`); the clients look in the
/// same places.
pub fn default_socket(state_dir: &std::path::Path) -> PathBuf {
    leasekit::governor::client::default_socket_in(state_dir)
}
