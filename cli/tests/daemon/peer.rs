//! Connections opened by another uid: a forked child drops to that uid, connects, and hands
//! each connected socket back over a socketpair (`SCM_RIGHTS`). The daemon's `SO_PEERCRED`
//! names the uid that connected, whoever holds the socket afterwards, so the test drives the
//! connections itself. The child makes only raw system calls (no allocation) between `fork`
//! and `_exit`. Needs root.

use std::os::fd::{FromRawFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::net::UnixStream;
use std::path::Path;

/// Connects `n` times to `socket` as `uid` (gid `uid`, no supplementary groups). Each entry is
/// the connected stream or the errno of a failed `connect`.
pub fn connect_as(uid: u32, socket: &Path, n: usize) -> Vec<Result<UnixStream, i32>> {
    // SAFETY: plain libc calls on local, initialized structures; the child only makes system
    // calls on memory prepared before the fork, then `_exit`s.
    unsafe {
        let mut addr: libc::sockaddr_un = std::mem::zeroed();
        addr.sun_family = libc::AF_UNIX as libc::sa_family_t;
        let bytes = socket.as_os_str().as_bytes();
        assert!(bytes.len() < addr.sun_path.len(), "socket path too long");
        for (i, b) in bytes.iter().enumerate() {
            addr.sun_path[i] = *b as libc::c_char;
        }
        let addr_len = std::mem::size_of::<libc::sockaddr_un>() as libc::socklen_t;
        let mut pair = [0 as RawFd; 2];
        assert_eq!(
            libc::socketpair(
                libc::AF_UNIX,
                libc::SOCK_STREAM | libc::SOCK_CLOEXEC,
                0,
                pair.as_mut_ptr()
            ),
            0
        );
        let pid = libc::fork();
        assert!(pid >= 0, "fork failed");
        if pid == 0 {
            libc::close(pair[0]);
            let gid = uid as libc::gid_t;
            if libc::setgroups(0, std::ptr::null()) != 0
                || libc::setgid(gid) != 0
                || libc::setuid(uid) != 0
            {
                libc::_exit(101);
            }
            for _ in 0..n {
                let fd = libc::socket(libc::AF_UNIX, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0);
                let status: u8 = if fd < 0 {
                    255
                } else if libc::connect(fd, &addr as *const _ as *const libc::sockaddr, addr_len)
                    == 0
                {
                    0
                } else {
                    (*libc::__errno_location()).clamp(1, 254) as u8
                };
                send(pair[1], status, if status == 0 { fd } else { -1 });
                if fd >= 0 {
                    libc::close(fd);
                }
            }
            libc::_exit(0);
        }
        libc::close(pair[1]);
        let mut out = Vec::with_capacity(n);
        for _ in 0..n {
            match recv(pair[0]) {
                Some((0, fd)) if fd >= 0 => out.push(Ok(UnixStream::from_raw_fd(fd))),
                Some((status, _)) => out.push(Err(status as i32)),
                None => panic!("the peer process as uid {uid} failed (could it drop to it?)"),
            }
        }
        libc::close(pair[0]);
        let mut st = 0;
        libc::waitpid(pid, &mut st, 0);
        out
    }
}

/// A control buffer aligned for `cmsghdr`, with room for one descriptor.
#[repr(C, align(8))]
struct Cmsg([u8; 64]);

/// Sends one status byte and, when `fd >= 0`, the descriptor.
unsafe fn send(sock: RawFd, status: u8, fd: RawFd) {
    unsafe {
        let mut byte = status;
        let mut iov = libc::iovec {
            iov_base: &mut byte as *mut u8 as *mut libc::c_void,
            iov_len: 1,
        };
        let mut ctl = Cmsg([0; 64]);
        let mut msg: libc::msghdr = std::mem::zeroed();
        msg.msg_iov = &mut iov;
        msg.msg_iovlen = 1;
        if fd >= 0 {
            let space = libc::CMSG_SPACE(std::mem::size_of::<RawFd>() as u32) as usize;
            msg.msg_control = ctl.0.as_mut_ptr() as *mut libc::c_void;
            msg.msg_controllen = space as _;
            let c = libc::CMSG_FIRSTHDR(&msg);
            (*c).cmsg_level = libc::SOL_SOCKET;
            (*c).cmsg_type = libc::SCM_RIGHTS;
            (*c).cmsg_len = libc::CMSG_LEN(std::mem::size_of::<RawFd>() as u32) as _;
            std::ptr::write_unaligned(libc::CMSG_DATA(c) as *mut RawFd, fd);
        }
        libc::sendmsg(sock, &msg, 0);
    }
}

/// Receives one status byte and the descriptor sent with it (-1 if none); None at EOF.
unsafe fn recv(sock: RawFd) -> Option<(u8, RawFd)> {
    unsafe {
        let mut byte = 0u8;
        let mut iov = libc::iovec {
            iov_base: &mut byte as *mut u8 as *mut libc::c_void,
            iov_len: 1,
        };
        let mut ctl = Cmsg([0; 64]);
        let mut msg: libc::msghdr = std::mem::zeroed();
        msg.msg_iov = &mut iov;
        msg.msg_iovlen = 1;
        msg.msg_control = ctl.0.as_mut_ptr() as *mut libc::c_void;
        msg.msg_controllen = ctl.0.len() as _;
        if libc::recvmsg(sock, &mut msg, libc::MSG_CMSG_CLOEXEC) != 1 {
            return None;
        }
        let c = libc::CMSG_FIRSTHDR(&msg);
        let fd = if c.is_null() || (*c).cmsg_type != libc::SCM_RIGHTS {
            -1
        } else {
            std::ptr::read_unaligned(libc::CMSG_DATA(c) as *const RawFd)
        };
        Some((byte, fd))
    }
}
