//! Where a daemon lives by default; `leasekit serve` and every client agree on it.

use std::path::{Path, PathBuf};

/// The default state directory: `$XDG_STATE_HOME/leasekit`, else `~/.local/state/leasekit`;
/// `None` when neither variable is set.
pub fn default_state_dir() -> Option<PathBuf> {
    if let Some(d) = non_empty_env("XDG_STATE_HOME") {
        return Some(Path::new(&d).join("leasekit"));
    }
    non_empty_env("HOME").map(|h| Path::new(&h).join(".local/state/leasekit"))
}

/// The default socket of a daemon with state directory `state_dir`: `$LEASEKIT_SOCKET`, else
/// `$XDG_RUNTIME_DIR/leasekit.sock`, else `<state_dir>/leasekit.sock`.
pub fn default_socket_in(state_dir: &Path) -> PathBuf {
    if let Some(s) = non_empty_env("LEASEKIT_SOCKET") {
        return PathBuf::from(s);
    }
    match non_empty_env("XDG_RUNTIME_DIR") {
        Some(d) => Path::new(&d).join("leasekit.sock"),
        None => state_dir.join("leasekit.sock"),
    }
}

/// The socket a client uses when none is given: `$LEASEKIT_SOCKET`, else the default socket
/// of the default state directory. `None` when no location can be derived.
pub fn default_socket() -> Option<PathBuf> {
    if let Some(s) = non_empty_env("LEASEKIT_SOCKET") {
        return Some(PathBuf::from(s));
    }
    match non_empty_env("XDG_RUNTIME_DIR") {
        Some(d) => Some(Path::new(&d).join("leasekit.sock")),
        None => default_state_dir().map(|s| s.join("leasekit.sock")),
    }
}

fn non_empty_env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}
