//! Creating the socket: its mode is set by `bind` itself, under a umask that leaves exactly
//! the requested bits (a socket's file gets `0777 & !umask`), so the socket never exists with
//! another mode and is never changed by path afterwards (a `chmod` by path would follow a link
//! swapped in after `bind`). `fchmod` on the socket's descriptor is no alternative on Linux: it
//! changes the socket's own inode, not the file `connect` checks. A stale socket from a dead
//! daemon is replaced (the caller holds the socket's lock, so nobody is serving it); a path that
//! holds anything else, a symbolic link included, is never removed or followed.

use std::fs;
use std::io;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
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
        Ok(meta) if meta.file_type().is_symlink() => {
            return Err(format!(
                "socket path {} is a symbolic link; the daemon never follows one (remove it)",
                path.display()
            ));
        }
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
    // SAFETY: umask only swaps the process's file-creation mask. The daemon binds after its
    // store is open and before any connection or sweep runs, so nothing else creates files
    // while the mask is changed.
    let old = unsafe { libc::umask((!mode & 0o777) as libc::mode_t) };
    let bound = UnixListener::bind(path);
    unsafe { libc::umask(old) };
    let listener = bound.map_err(|e| format!("cannot bind {}: {e}", path.display()))?;
    // A check, not a change: a directory's default ACL overrides the umask, and a socket
    // wider than asked for must not be served.
    let meta = fs::symlink_metadata(path)
        .map_err(|e| format!("cannot inspect the bound socket {}: {e}", path.display()))?;
    let got = meta.mode() & 0o7777;
    if !meta.file_type().is_socket() || got & !mode != 0 {
        remove(path);
        return Err(format!(
            "the socket {} was created with mode {got:o}, wider than --socket-mode {mode:o} \
             (a default ACL on its directory?); refusing to serve it",
            path.display()
        ));
    }
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
