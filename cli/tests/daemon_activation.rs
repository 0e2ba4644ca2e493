//! `leasekit serve` under a service manager: a listening socket inherited through
//! `LISTEN_PID`/`LISTEN_FDS` (run under the real `systemd-socket-activate`, or with a
//! descriptor put in place by the test for the hostile cases), and `READY=1` sent to
//! `NOTIFY_SOCKET` once the daemon accepts. The per-connection checks (peer uid, admin uids)
//! hold unchanged on an inherited socket; a socket the daemon did not create is never
//! unlinked or chmod-ed; anything but exactly one listening Unix stream socket is refused with
//! exit status 2 and a message, never served and never a panic.

mod daemon;

use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::os::unix::net::{UnixDatagram, UnixListener};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use leasekit::governor::client::{ClientOptions, FallbackMode, GovernorClient};
use leasekit::governor::wire::{AcquireRequest, ReleaseRequest, ToolIntent};
use serde_json::{Value, json};

const SOCKET_ACTIVATE: &str = "/usr/bin/systemd-socket-activate";
const OTHER: u32 = 65534;

fn is_root() -> bool {
    leasekit_serve::listener::current_uid() == 0
}

fn have_socket_activate() -> bool {
    if Path::new(SOCKET_ACTIVATE).exists() {
        return true;
    }
    eprintln!("SKIP: {SOCKET_ACTIVATE} is not installed (Debian's systemd package)");
    false
}

fn client(socket: &Path) -> GovernorClient {
    GovernorClient::with_options(
        socket,
        ClientOptions {
            fallback: FallbackMode::Off,
            ..ClientOptions::default()
        },
    )
}

fn write_policy(dir: &Path) -> PathBuf {
    let p = dir.join("policy.json");
    std::fs::write(
        &p,
        json!({"policyVersion": "v1", "toolRegistry": [{"toolId": "t", "category": "other"}]})
            .to_string(),
    )
    .unwrap();
    p
}

/// A daemon process (started one way or another) with its log file.
struct Proc {
    child: Option<Child>,
    dir: PathBuf,
}

impl Proc {
    fn spawn(dir: &Path, mut cmd: Command) -> Proc {
        let log = std::fs::File::create(dir.join("daemon.log")).unwrap();
        let child = cmd
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::from(log))
            .spawn()
            .expect("spawn");
        Proc {
            child: Some(child),
            dir: dir.to_path_buf(),
        }
    }

    fn log(&self) -> String {
        std::fs::read_to_string(self.dir.join("daemon.log")).unwrap_or_default()
    }

    /// Waits until `socket` answers a status call (at most 20 s).
    fn wait_ready(&mut self, socket: &Path) {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if let Some(s) = self.child.as_mut().unwrap().try_wait().unwrap() {
                panic!("daemon exited early ({s}):\n{}", self.log());
            }
            if socket.exists() && client(socket).status().is_ok() {
                return;
            }
            assert!(Instant::now() < deadline, "not ready:\n{}", self.log());
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Waits for the exit (at most 20 s) and returns its code.
    fn wait_exit(&mut self) -> Option<i32> {
        let deadline = Instant::now() + Duration::from_secs(20);
        let child = self.child.as_mut().expect("running");
        loop {
            if let Some(s) = child.try_wait().unwrap() {
                self.child = None;
                return s.code();
            }
            assert!(Instant::now() < deadline, "did not exit:\n{}", self.log());
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    fn stop(&mut self) -> Option<i32> {
        let pid = self.child.as_ref().expect("running").id() as i32;
        // SAFETY: kill on our own child's pid.
        unsafe { libc::kill(pid, libc::SIGTERM) };
        self.wait_exit()
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

/// `systemd-socket-activate -l SOCKET... leasekit serve --state DIR/state ARGS`. It execs the
/// daemon on the first connection.
fn socket_activate(dir: &Path, sockets: &[&Path], args: &[&str]) -> Command {
    let mut cmd = Command::new(SOCKET_ACTIVATE);
    for s in sockets {
        cmd.arg("-l").arg(s);
    }
    cmd.arg(daemon::leasekit_bin())
        .arg("serve")
        .arg("--state")
        .arg(dir.join("state"))
        .args(args);
    cmd
}

/// Connects once to `socket` (which makes `systemd-socket-activate` exec the daemon), waiting
/// for the socket to appear and to listen: the file exists from its `bind`, and a connect
/// before the `listen` that follows is refused and would start nothing (at most 20 s).
fn poke(socket: &Path) {
    wait_for(socket);
    let deadline = Instant::now() + Duration::from_secs(20);
    while let Err(e) = std::os::unix::net::UnixStream::connect(socket) {
        assert!(
            Instant::now() < deadline,
            "{} never accepted a connection: {e}",
            socket.display()
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn wait_for(socket: &Path) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while !socket.exists() {
        assert!(
            Instant::now() < deadline,
            "{} never appeared",
            socket.display()
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// `leasekit serve ARGS` with `fd` as descriptor 3 and `LISTEN_PID` set to the daemon's own
/// pid (by a shell that execs it) and `LISTEN_FDS=listen_fds`.
fn with_fd3(dir: &Path, fd: RawFd, listen_fds: &str, args: &[&str]) -> Command {
    let mut cmd = Command::new("/bin/sh");
    cmd.arg("-c")
        .arg(format!(
            "LISTEN_PID=$$; LISTEN_FDS={listen_fds}; export LISTEN_PID LISTEN_FDS; exec \"$0\" \"$@\""
        ))
        .arg(daemon::leasekit_bin())
        .arg("serve")
        .arg("--state")
        .arg(dir.join("state"))
        .args(args);
    // SAFETY: dup2 and fcntl are async-signal-safe; `fd` stays open in the parent until the
    // child has exec-ed.
    unsafe {
        cmd.pre_exec(move || {
            if fd == 3 {
                libc::fcntl(3, libc::F_SETFD, 0);
            } else if libc::dup2(fd, 3) < 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    cmd
}

fn gov_as(uid: u32, socket: &Path, args: &[&str]) -> Output {
    Command::new(daemon::leasekit_bin_for_any_uid())
        .arg("gov")
        .arg("--socket")
        .arg(socket)
        .args(args)
        .env("NO_COLOR", "1")
        .uid(uid)
        .gid(uid)
        .output()
        .expect("run leasekit gov")
}

fn call_as(uid: u32, socket: &Path, command: &str, payload: Value) -> Value {
    let out = gov_as(uid, socket, &["call", command, &payload.to_string()]);
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

fn mode(path: &Path) -> u32 {
    std::fs::symlink_metadata(path)
        .unwrap()
        .permissions()
        .mode()
        & 0o7777
}

#[test]
fn an_inherited_socket_is_served_with_every_peer_check_unchanged() {
    if !have_socket_activate() {
        return;
    }
    let dir = daemon::temp_dir("act");
    let sock = dir.join("a.sock");
    let policy = write_policy(&dir);
    let cmd = socket_activate(
        &dir,
        &[&sock],
        &["--policy", policy.to_str().unwrap(), "--store", "sqlite"],
    );
    let mut d = Proc::spawn(&dir, cmd);
    // As a socket unit's SocketMode=0666 would: everyone may connect.
    wait_for(&sock);
    std::fs::set_permissions(&sock, std::fs::Permissions::from_mode(0o666)).unwrap();
    poke(&sock);
    d.wait_ready(&sock);
    assert!(
        d.log()
            .contains("serving the socket passed by the service manager"),
        "{}",
        d.log()
    );
    // The socket is systemd-socket-activate's; the daemon's default --socket-mode 600 is not
    // applied to it, and no lock file is put beside it.
    assert_eq!(mode(&sock), 0o666);
    assert!(!dir.join("a.sock.lock").exists());

    let root = client(&sock);
    let grant = root
        .acquire(AcquireRequest {
            actor_id: "alice".into(),
            workspace_id: "w".into(),
            estimated_cost_cents: 7,
            requested_tools: vec![ToolIntent {
                tool_id: "t".into(),
                ..ToolIntent::default()
            }],
            ..AcquireRequest::default()
        })
        .unwrap();
    assert!(grant.granted, "{grant:?}");

    if is_root() {
        // Another uid reaches the socket (mode 0666) and is still told apart by SO_PEERCRED:
        // root's lease looks unknown to it and admin commands are refused.
        let p = call_as(
            OTHER,
            &sock,
            "Release",
            json!({"leaseId": grant.lease_id, "actualCostCents": 0}),
        );
        assert_eq!(p["success"], true, "{p}");
        assert_eq!(p["payload"]["classification"], "leaseNotFound", "{p}");
        let p = call_as(OTHER, &sock, "ExportAudit", json!({}));
        assert_eq!(p["success"], false, "{p}");
        assert!(
            p["error"]
                .as_str()
                .unwrap()
                .starts_with("permission_denied"),
            "{p}"
        );
    } else {
        eprintln!("SKIP (part): needs root to act as a second uid");
    }

    let rel = root
        .release(ReleaseRequest {
            lease_id: grant.lease_id.clone(),
            actual_cost_cents: 5,
            ..ReleaseRequest::default()
        })
        .unwrap();
    assert_eq!(rel.classification.as_str(), "recorded", "{rel:?}");
    assert_eq!(root.metrics().unwrap().active_leases, 0);

    // Graceful stop: the socket it did not create stays, mode unchanged.
    assert_eq!(d.stop(), Some(0), "{}", d.log());
    let meta = std::fs::symlink_metadata(&sock).expect("the inherited socket is not removed");
    assert!(meta.file_type().is_socket());
    assert_eq!(mode(&sock), 0o666);
}

#[test]
fn listen_pid_of_another_process_is_ignored() {
    let dir = daemon::temp_dir("actpid");
    let decoy = UnixListener::bind(dir.join("decoy.sock")).unwrap();
    let sock = dir.join("own.sock");
    let mut cmd = Command::new(daemon::leasekit_bin());
    cmd.arg("serve")
        .arg("--socket")
        .arg(&sock)
        .arg("--state")
        .arg(dir.join("state"))
        .args(["--store", "memory"])
        .env("LISTEN_PID", "1")
        .env("LISTEN_FDS", "1");
    let fd = decoy.as_raw_fd();
    // SAFETY: dup2 is async-signal-safe.
    unsafe {
        cmd.pre_exec(move || {
            libc::dup2(fd, 3);
            Ok(())
        });
    }
    let mut d = Proc::spawn(&dir, cmd);
    d.wait_ready(&sock);
    // Its own socket, made as usual (mode 600), not the decoy.
    assert_eq!(mode(&sock), 0o600);
    assert!(d.log().contains("listening on"), "{}", d.log());
    assert_eq!(d.stop(), Some(0), "{}", d.log());
    assert!(!sock.exists(), "its own socket is removed at shutdown");
}

#[test]
fn two_inherited_sockets_are_refused() {
    if !have_socket_activate() {
        return;
    }
    let dir = daemon::temp_dir("act2");
    let (a, b) = (dir.join("a.sock"), dir.join("b.sock"));
    let cmd = socket_activate(&dir, &[&a, &b], &["--store", "memory"]);
    let mut d = Proc::spawn(&dir, cmd);
    poke(&a);
    assert_eq!(d.wait_exit(), Some(2), "{}", d.log());
    let log = d.log();
    assert!(
        log.contains("passed 2 descriptors (LISTEN_FDS=2)") && log.contains("exactly one"),
        "{log}"
    );
    assert!(!log.contains("panicked"), "{log}");
    // Neither socket was touched.
    assert!(a.exists() && b.exists());
}

#[test]
fn an_inherited_descriptor_that_is_not_a_listening_unix_socket_is_refused() {
    let dir = daemon::temp_dir("actbad");
    let file = std::fs::File::create(dir.join("plain")).unwrap();
    let tcp = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let dgram = UnixDatagram::bind(dir.join("d.sock")).unwrap();
    // A bound Unix stream socket that never listened.
    let unlistened = {
        // SAFETY: plain socket/bind on local structures.
        unsafe {
            let fd = libc::socket(libc::AF_UNIX, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0);
            assert!(fd >= 0);
            let mut addr: libc::sockaddr_un = std::mem::zeroed();
            addr.sun_family = libc::AF_UNIX as libc::sa_family_t;
            let p = dir.join("n.sock");
            for (i, b) in p.as_os_str().as_encoded_bytes().iter().enumerate() {
                addr.sun_path[i] = *b as libc::c_char;
            }
            let len = std::mem::size_of::<libc::sockaddr_un>() as libc::socklen_t;
            assert_eq!(
                libc::bind(fd, &addr as *const _ as *const libc::sockaddr, len),
                0
            );
            <std::os::fd::OwnedFd as std::os::fd::FromRawFd>::from_raw_fd(fd)
        }
    };
    for (fd, expect) in [
        (file.as_raw_fd(), "is a regular file"),
        (tcp.as_raw_fd(), "is an IP socket"),
        (dgram.as_raw_fd(), "is a Unix datagram socket"),
        (
            unlistened.as_raw_fd(),
            "is a Unix stream socket that is not listening",
        ),
    ] {
        let sub = daemon::temp_dir("actbad1");
        let cmd = with_fd3(&sub, fd, "1", &["--store", "memory"]);
        let mut d = Proc::spawn(&sub, cmd);
        assert_eq!(d.wait_exit(), Some(2), "{expect}: {}", d.log());
        let log = d.log();
        assert!(
            log.contains(expect) && log.contains("refuses to serve it"),
            "{expect}: {log}"
        );
        assert!(!log.contains("panicked"), "{log}");
    }
    // LISTEN_FDS that is not a number: a clear refusal too.
    let sub = daemon::temp_dir("actbad2");
    let mut d = Proc::spawn(
        &sub,
        with_fd3(&sub, file.as_raw_fd(), "x", &["--store", "memory"]),
    );
    assert_eq!(d.wait_exit(), Some(2), "{}", d.log());
    assert!(d.log().contains("LISTEN_FDS"), "{}", d.log());
    drop(d);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Waits for one notification datagram (at most 20 s).
fn recv_notification(sock: &UnixDatagram) -> String {
    sock.set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let mut buf = [0u8; 4096];
    let n = sock.recv(&mut buf).expect("a notification within 20 s");
    String::from_utf8_lossy(&buf[..n]).into_owned()
}

#[test]
fn ready_is_sent_once_the_daemon_accepts_at_a_path_notify_socket() {
    let dir = daemon::temp_dir("ready");
    let notify = UnixDatagram::bind(dir.join("notify")).unwrap();
    let sock = dir.join("s.sock");
    let mut cmd = Command::new(daemon::leasekit_bin());
    cmd.arg("serve")
        .arg("--socket")
        .arg(&sock)
        .arg("--state")
        .arg(dir.join("state"))
        .args(["--store", "sqlite"])
        .env("NOTIFY_SOCKET", dir.join("notify"));
    let mut d = Proc::spawn(&dir, cmd);
    let msg = recv_notification(&notify);
    assert!(msg.lines().any(|l| l == "READY=1"), "{msg:?}");
    // Ready means ready: the socket answers at once, no retry.
    client(&sock)
        .status()
        .expect("the daemon answers when it says it is ready");
    assert_eq!(d.stop(), Some(0), "{}", d.log());
    let msg = recv_notification(&notify);
    assert!(msg.lines().any(|l| l == "STOPPING=1"), "{msg:?}");
}

#[test]
fn ready_is_sent_to_an_abstract_notify_socket_under_socket_activation() {
    if !have_socket_activate() {
        return;
    }
    use std::os::linux::net::SocketAddrExt;
    let dir = daemon::temp_dir("readya");
    let name = format!("leasekit-test-notify-{}", std::process::id());
    let addr = std::os::unix::net::SocketAddr::from_abstract_name(name.as_bytes()).unwrap();
    let notify = UnixDatagram::bind_addr(&addr).unwrap();
    let sock = dir.join("a.sock");
    let cmd = socket_activate(&dir, &[&sock], &["--store", "memory"]);
    // systemd-socket-activate passes on only the variables named with -E.
    let cmd = {
        let mut c = Command::new(SOCKET_ACTIVATE);
        c.arg("-E").arg(format!("NOTIFY_SOCKET=@{name}"));
        c.args(cmd.get_args());
        c
    };
    let mut d = Proc::spawn(&dir, cmd);
    poke(&sock);
    let msg = recv_notification(&notify);
    assert!(msg.lines().any(|l| l == "READY=1"), "{msg:?}");
    client(&sock).status().expect("ready means accepting");
    assert_eq!(d.stop(), Some(0), "{}", d.log());
}
