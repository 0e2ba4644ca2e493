//! Running under a service manager: socket activation (a listening socket handed over through
//! `LISTEN_PID`/`LISTEN_FDS`, sd_listen_fds(3)) and readiness notification (`READY=1` sent to
//! `NOTIFY_SOCKET`, sd_notify(3)).
//!
//! An inherited socket is taken only when `LISTEN_PID` is this process, and only when it is
//! exactly one listening `AF_UNIX` stream socket; anything else stops the daemon with a clear
//! error instead of serving a socket it does not understand. The `LISTEN_*` variables are
//! removed from the environment either way, so no child inherits them. The daemon never
//! unlinks or changes the mode of a socket it did not create.

use std::ffi::OsStr;
use std::io;
use std::mem;
use std::os::fd::{FromRawFd, RawFd};
use std::os::linux::net::SocketAddrExt;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::net::{SocketAddr, UnixDatagram, UnixListener};
use std::path::PathBuf;

/// A listening socket handed over by the service manager.
#[derive(Debug)]
pub struct Inherited {
    /// The socket, close-on-exec and nonblocking.
    pub listener: UnixListener,
    /// The path it is bound to (None for an abstract or unnamed socket).
    pub path: Option<PathBuf>,
}

/// Takes the socket passed by a service manager, if any: `Ok(None)` when `LISTEN_PID` is
/// absent or names another process (the daemon then binds its own socket), an error when the
/// variables are malformed, name more than one descriptor, or the descriptor is not a
/// listening Unix stream socket. Removes `LISTEN_PID`, `LISTEN_FDS` and `LISTEN_FDNAMES` from
/// the environment.
///
/// Call it before the process starts a second thread (it changes the environment); the
/// daemon calls it first thing in [`crate::run`].
pub fn take_inherited() -> Result<Option<Inherited>, String> {
    // SAFETY: changing the environment is sound while no other thread reads it; `run` calls
    // this before it opens the store or starts the runtime, from the command's main thread.
    let fds = unsafe { sd_notify::listen_fds_and_unset_env() };
    unsafe { std::env::remove_var("LISTEN_FDNAMES") };
    let fds: Vec<RawFd> = fds
        .map_err(|e| format!("socket activation: {e} (LISTEN_PID and LISTEN_FDS must be numbers)"))?
        .collect();
    match fds.as_slice() {
        [] => Ok(None),
        [fd] => check_listening_unix(*fd).map(Some),
        many => Err(format!(
            "socket activation passed {} descriptors (LISTEN_FDS={}); leasekit serve takes \
             exactly one listening Unix stream socket (one ListenStream= in the socket unit)",
            many.len(),
            many.len()
        )),
    }
}

/// Wraps `fd` once it is known to be a listening `AF_UNIX` stream socket.
fn check_listening_unix(fd: RawFd) -> Result<Inherited, String> {
    let what = describe(fd);
    if what != "a listening Unix stream socket" {
        return Err(format!(
            "socket activation: descriptor {fd} is {what}, not a listening Unix stream socket; \
             leasekit serve refuses to serve it (use ListenStream=/path in the socket unit)"
        ));
    }
    // SAFETY: the descriptor was handed to this process by LISTEN_FDS, is open (fstat
    // succeeded in `describe`) and nothing else in the process owns it.
    let listener = unsafe { UnixListener::from_raw_fd(fd) };
    set_cloexec(fd).map_err(|e| format!("socket activation: cannot set close-on-exec: {e}"))?;
    listener
        .set_nonblocking(true)
        .map_err(|e| format!("socket activation: cannot make the socket nonblocking: {e}"))?;
    let path = listener
        .local_addr()
        .ok()
        .and_then(|a| a.as_pathname().map(|p| p.to_path_buf()));
    Ok(Inherited { listener, path })
}

/// What `fd` is, in words ("a listening Unix stream socket" when it is one).
fn describe(fd: RawFd) -> &'static str {
    // SAFETY: fstat, getsockname and getsockopt on a descriptor number with buffers of the
    // sizes passed; a closed or foreign descriptor makes them fail, which is reported.
    unsafe {
        let mut st: libc::stat = mem::zeroed();
        if libc::fstat(fd, &mut st) != 0 {
            return "not an open descriptor";
        }
        if st.st_mode & libc::S_IFMT != libc::S_IFSOCK {
            return if st.st_mode & libc::S_IFMT == libc::S_IFREG {
                "a regular file"
            } else {
                "not a socket"
            };
        }
        let mut addr: libc::sockaddr_storage = mem::zeroed();
        let mut len = mem::size_of::<libc::sockaddr_storage>() as libc::socklen_t;
        if libc::getsockname(fd, &mut addr as *mut _ as *mut libc::sockaddr, &mut len) != 0 {
            return "a socket whose address cannot be read";
        }
        if i32::from(addr.ss_family) != libc::AF_UNIX {
            return match i32::from(addr.ss_family) {
                libc::AF_INET | libc::AF_INET6 => "an IP socket",
                _ => "a socket of another family",
            };
        }
        match sockopt(fd, libc::SO_TYPE) {
            Some(t) if t == libc::SOCK_STREAM => {}
            Some(t) if t == libc::SOCK_DGRAM => return "a Unix datagram socket",
            _ => return "a Unix socket that is not a stream socket",
        }
        if sockopt(fd, libc::SO_ACCEPTCONN) != Some(1) {
            return "a Unix stream socket that is not listening";
        }
        "a listening Unix stream socket"
    }
}

/// An integer `SOL_SOCKET` option of `fd`.
fn sockopt(fd: RawFd, opt: libc::c_int) -> Option<libc::c_int> {
    let mut v: libc::c_int = 0;
    let mut len = mem::size_of::<libc::c_int>() as libc::socklen_t;
    // SAFETY: getsockopt into a local c_int of the size passed.
    let r = unsafe {
        libc::getsockopt(
            fd,
            libc::SOL_SOCKET,
            opt,
            &mut v as *mut libc::c_int as *mut libc::c_void,
            &mut len,
        )
    };
    (r == 0).then_some(v)
}

fn set_cloexec(fd: RawFd) -> io::Result<()> {
    // SAFETY: fcntl on an open descriptor.
    let r = unsafe { libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC) };
    if r < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Sends `state` (e.g. `READY=1`) to the service manager when `NOTIFY_SOCKET` is set (a
/// socket path, or `@name` for the abstract namespace); does nothing otherwise. Returns
/// whether a message was sent.
pub fn notify(state: &str) -> io::Result<bool> {
    let Some(target) = std::env::var_os("NOTIFY_SOCKET") else {
        return Ok(false);
    };
    let addr = notify_addr(&target)?;
    let sock = UnixDatagram::unbound()?;
    let sent = sock.send_to_addr(state.as_bytes(), &addr)?;
    if sent != state.len() {
        return Err(io::Error::new(
            io::ErrorKind::WriteZero,
            "the notification was cut short",
        ));
    }
    Ok(true)
}

fn notify_addr(target: &OsStr) -> io::Result<SocketAddr> {
    let bytes = target.as_bytes();
    match bytes.first() {
        Some(b'@') => SocketAddr::from_abstract_name(&bytes[1..]),
        Some(b'/') => SocketAddr::from_pathname(target),
        _ => Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "NOTIFY_SOCKET is neither an absolute path nor @abstract-name",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::fd::AsRawFd;

    #[test]
    fn notify_targets_are_paths_or_abstract_names() {
        let a = notify_addr(OsStr::new("@lk/notify")).unwrap();
        assert_eq!(a.as_abstract_name(), Some(&b"lk/notify"[..]));
        let p = notify_addr(OsStr::new("/run/x")).unwrap();
        assert_eq!(p.as_pathname(), Some(std::path::Path::new("/run/x")));
        assert!(notify_addr(OsStr::new("vsock:2:1")).is_err());
        assert!(notify_addr(OsStr::new("")).is_err());
    }

    #[test]
    fn only_a_listening_unix_stream_socket_passes() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let l = UnixListener::bind(dir.join("l.sock")).unwrap();
        assert_eq!(describe(l.as_raw_fd()), "a listening Unix stream socket");
        let d = UnixDatagram::bind(dir.join("d.sock")).unwrap();
        assert_eq!(describe(d.as_raw_fd()), "a Unix datagram socket");
        let t = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        assert_eq!(describe(t.as_raw_fd()), "an IP socket");
        let f = std::fs::File::create(dir.join("f")).unwrap();
        assert_eq!(describe(f.as_raw_fd()), "a regular file");
        let (s, _) = std::os::unix::net::UnixStream::pair().unwrap();
        assert_eq!(
            describe(s.as_raw_fd()),
            "a Unix stream socket that is not listening"
        );
    }
}
