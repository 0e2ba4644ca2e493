//! Creating the socket: owner-only from the first instant (the umask is tightened around
//! `bind`, so no other uid can connect before the mode is set), a stale socket from a dead
//! daemon is replaced (the caller holds the socket's lock, so nobody is serving it), and a
//! path that holds something other than a socket is never removed.

use std::fs;
use std::io;
use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::path::Path;

use tokio::net::UnixListener;

/// Binds the socket at `path` with permission bits `mode`. Call with the socket lock held
/// and inside a tokio runtime.
pub fn bind(path: &Path, mode: u32) -> Result<UnixListener, String> {
    if mode & !0o777 != 0 {
        return Err(format!(
            "--socket-mode {mode:o} is not a permission mode (0..=777)"
        ));
    }
    match fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_socket() => fs::remove_file(path)
            .map_err(|e| format!("cannot remove stale socket {}: {e}", path.display()))?,
        Ok(_) => {
            return Err(format!(
                "{} exists and is not a socket; refusing to replace it",
                path.display()
            ));
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(format!("cannot inspect {}: {e}", path.display())),
    }
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty())
        && !parent.is_dir()
    {
        return Err(format!(
            "socket directory {} does not exist",
            parent.display()
        ));
    }
    // SAFETY: umask only swaps the process's file-creation mask; nothing else creates files
    // while the daemon starts.
    let old = unsafe { libc::umask(0o177) };
    let bound = UnixListener::bind(path);
    unsafe { libc::umask(old) };
    let listener = bound.map_err(|e| format!("cannot bind {}: {e}", path.display()))?;
    fs::set_permissions(path, fs::Permissions::from_mode(mode))
        .map_err(|e| format!("cannot set the mode of {}: {e}", path.display()))?;
    Ok(listener)
}

/// Removes the socket file if it is still a socket (shutdown).
pub fn remove(path: &Path) {
    if let Ok(meta) = fs::symlink_metadata(path)
        && meta.file_type().is_socket()
    {
        let _ = fs::remove_file(path);
    }
}

/// Raises the soft open-file limit to the hard limit, so a thousand idle connections do not
/// starve the daemon of descriptors. Returns the limit in force.
pub fn raise_fd_limit() -> u64 {
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: plain getrlimit/setrlimit on a local struct.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) != 0 {
            return 0;
        }
        if lim.rlim_cur < lim.rlim_max {
            let want = libc::rlimit {
                rlim_cur: lim.rlim_max,
                rlim_max: lim.rlim_max,
            };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &want) == 0 {
                return want.rlim_cur;
            }
        }
    }
    lim.rlim_cur
}

/// The effective uid of this process (the default admin uid).
pub fn current_uid() -> u32 {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() }
}
