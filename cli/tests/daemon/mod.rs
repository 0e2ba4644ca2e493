//! A real `leasekit serve` process for the daemon tests: started on a fresh temp directory
//! (socket, state, stderr log), waited for until its socket answers, stopped with SIGTERM
//! (graceful) or SIGKILL (crash) and restarted on the same state. Nothing is mocked.
#![allow(dead_code)]

pub mod compare;
pub mod peer;

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use leasekit::governor::client::{ClientOptions, FallbackMode, GovernorClient};

static NEXT: AtomicU32 = AtomicU32::new(0);

/// The built `leasekit` binary.
pub fn leasekit_bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_leasekit"))
}

/// The `leasekit` binary at a path another uid can execute (the tests that run it as
/// `nobody`): the build's own when every directory above it lets others through, else a hard
/// link to it (or a copy) in a 0755 directory under the system temp dir. A checkout under a
/// private directory (a home of mode 0700, a `mktemp -d`) is not traversable by another uid,
/// and `exec` of the build's binary would fail there with "Permission denied". The link is kept per build path
/// and replaced when the build changes (its size and modification time are its stamp).
pub fn leasekit_bin_for_any_uid() -> PathBuf {
    static BIN: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    BIN.get_or_init(|| {
        let bin = leasekit_bin();
        if others_can_run(&bin) {
            return bin;
        }
        link_for_any_uid(&bin).unwrap_or_else(|e| {
            panic!(
                "{} is not reachable by other uids, and linking or copying it for them failed: {e}",
                bin.display()
            )
        })
    })
    .clone()
}

/// True when every directory above `path` has the others' search bit and `path` their
/// execute bit.
fn others_can_run(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    let others_x =
        |p: &Path| std::fs::metadata(p).is_ok_and(|m| m.permissions().mode() & 0o001 != 0);
    others_x(path) && path.ancestors().skip(1).all(others_x)
}

fn link_for_any_uid(bin: &Path) -> std::io::Result<PathBuf> {
    use std::hash::{Hash, Hasher};
    use std::os::unix::fs::PermissionsExt;
    let mut h = std::collections::hash_map::DefaultHasher::new();
    bin.hash(&mut h);
    let dir = std::env::temp_dir().join(format!("lk-bin-{:016x}", h.finish()));
    std::fs::create_dir_all(&dir)?;
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755))?;
    sweep_links_of_gone_builds();
    let meta = std::fs::metadata(bin)?;
    // Size and modification time, then the build's path (read by the sweep).
    let stamp = format!("{} {:?}\n{}", meta.len(), meta.modified()?, bin.display());
    let copy = dir.join("leasekit");
    let stamp_file = dir.join("stamp");
    if copy.exists() && std::fs::read_to_string(&stamp_file).is_ok_and(|s| s == stamp) {
        return Ok(copy);
    }
    // Linked (or copied) under a name of this process and renamed: test processes running at
    // once never see a half-written binary. A hard link costs no space; it needs the same file
    // system and a binary others may execute already.
    let part = dir.join(format!("leasekit.{}.part", std::process::id()));
    let _ = std::fs::remove_file(&part);
    let linked = meta.permissions().mode() & 0o001 != 0 && std::fs::hard_link(bin, &part).is_ok();
    if !linked {
        std::fs::copy(bin, &part)?;
        std::fs::set_permissions(&part, std::fs::Permissions::from_mode(0o755))?;
    }
    std::fs::rename(&part, &copy)?;
    std::fs::write(&stamp_file, stamp)?;
    Ok(copy)
}

/// Removes the links (or copies) made for builds that no longer exist (a deleted checkout):
/// a link would keep its binary's space in use.
fn sweep_links_of_gone_builds() {
    let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) else {
        return;
    };
    for e in entries.flatten() {
        if !e.file_name().to_string_lossy().starts_with("lk-bin-") {
            continue;
        }
        let stamp = std::fs::read_to_string(e.path().join("stamp")).unwrap_or_default();
        if let Some((_, built)) = stamp.split_once('\n')
            && !Path::new(built).exists()
        {
            let _ = std::fs::remove_dir_all(e.path());
        }
    }
}

/// A fresh directory under the system temp dir (short, so socket paths fit in 108 bytes).
pub fn temp_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!(
        "lk-{tag}-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A running daemon.
pub struct Daemon {
    child: Option<Child>,
    /// Its socket.
    pub socket: PathBuf,
    /// Its state directory.
    pub state: PathBuf,
    /// The temp directory holding both (removed on drop).
    pub dir: PathBuf,
    /// Extra flags it was started with (reused by `restart`).
    pub args: Vec<String>,
    keep_dir: bool,
}

impl Daemon {
    /// Starts a daemon in a fresh temp directory with `args` added to `--socket`/`--state`.
    pub fn start(args: &[&str]) -> Daemon {
        let dir = temp_dir("d");
        Daemon::start_in(&dir, args.iter().map(|s| s.to_string()).collect())
    }

    /// Starts a daemon in `dir` (its `state/` and `s.sock`).
    pub fn start_in(dir: &Path, args: Vec<String>) -> Daemon {
        Daemon::try_start_in(dir, args).unwrap_or_else(|e| panic!("{e}"))
    }

    /// As `start_in`, with a daemon that exits at start as an error (its log).
    pub fn try_start_in(dir: &Path, args: Vec<String>) -> Result<Daemon, String> {
        Daemon::try_start_at(dir, dir.join("s.sock"), args)
    }

    /// As `try_start_in`, with the socket at `socket`.
    pub fn try_start_at(dir: &Path, socket: PathBuf, args: Vec<String>) -> Result<Daemon, String> {
        let mut d = Daemon {
            child: None,
            socket,
            state: dir.join("state"),
            dir: dir.to_path_buf(),
            args,
            keep_dir: false,
        };
        d.spawn(false);
        d.try_wait_ready()?;
        Ok(d)
    }

    /// The command line of this daemon.
    pub fn command(&self) -> Command {
        let mut cmd = Command::new(leasekit_bin());
        cmd.arg("serve")
            .arg("--socket")
            .arg(&self.socket)
            .arg("--state")
            .arg(&self.state)
            .args(&self.args);
        cmd
    }

    fn spawn(&mut self, wait: bool) {
        let log = File::options()
            .create(true)
            .append(true)
            .open(self.dir.join("daemon.log"))
            .unwrap();
        let child = self
            .command()
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::from(log))
            .spawn()
            .expect("spawn leasekit serve");
        self.child = Some(child);
        if wait {
            self.wait_ready();
        }
    }

    /// Waits until the socket accepts a status call (at most 20 s).
    pub fn wait_ready(&mut self) {
        self.try_wait_ready().unwrap_or_else(|e| panic!("{e}"))
    }

    /// As `wait_ready`, an early exit or a timeout as an error.
    pub fn try_wait_ready(&mut self) -> Result<(), String> {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if let Some(status) = self.child.as_mut().unwrap().try_wait().unwrap() {
                self.child = None;
                return Err(format!(
                    "leasekit serve exited early ({status}):\n{}",
                    self.log()
                ));
            }
            if self.socket.exists() && self.client().status().is_ok() {
                return Ok(());
            }
            if Instant::now() >= deadline {
                return Err(format!("daemon not ready:\n{}", self.log()));
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// Its stderr so far.
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.join("daemon.log")).unwrap_or_default()
    }

    /// A client with fallback off (the tests want every failure to show).
    pub fn client(&self) -> GovernorClient {
        GovernorClient::with_options(
            &self.socket,
            ClientOptions {
                fallback: FallbackMode::Off,
                ..ClientOptions::default()
            },
        )
    }

    /// The daemon's pid.
    pub fn pid(&self) -> i32 {
        self.child.as_ref().expect("running").id() as i32
    }

    /// Sends a signal.
    pub fn signal(&self, sig: i32) {
        // SAFETY: kill on our own child's pid.
        unsafe { libc::kill(self.pid(), sig) };
    }

    /// SIGTERM and wait (graceful shutdown); the exit status.
    pub fn stop(&mut self) -> ExitStatus {
        self.signal(libc::SIGTERM);
        self.wait_exit(Duration::from_secs(60))
    }

    /// Waits for an exit caused by a signal sent elsewhere.
    pub fn stop_wait(&mut self) -> ExitStatus {
        self.wait_exit(Duration::from_secs(60))
    }

    /// SIGKILL and wait (a crash).
    pub fn kill9(&mut self) {
        self.signal(libc::SIGKILL);
        self.wait_exit(Duration::from_secs(20));
    }

    fn wait_exit(&mut self, limit: Duration) -> ExitStatus {
        let deadline = Instant::now() + limit;
        let child = self.child.as_mut().expect("running");
        loop {
            if let Some(s) = child.try_wait().unwrap() {
                self.child = None;
                return s;
            }
            assert!(
                Instant::now() < deadline,
                "daemon did not exit:\n{}",
                self.log()
            );
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// Starts it again on the same state (after `stop` or `kill9`).
    pub fn restart(&mut self) {
        assert!(self.child.is_none(), "still running");
        self.spawn(true);
    }

    /// As `restart`, a failed start as an error.
    pub fn try_restart_with(&mut self, args: Vec<String>) -> Result<(), String> {
        assert!(self.child.is_none(), "still running");
        self.args = args;
        self.spawn(false);
        self.try_wait_ready()
    }

    /// Starts it again with other extra flags.
    pub fn restart_with(&mut self, args: Vec<String>) {
        self.args = args;
        self.restart();
    }

    /// Keeps the temp directory after the test (for a look at a failure).
    pub fn keep(&mut self) {
        self.keep_dir = true;
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
        if !self.keep_dir && !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

/// One raw frame: 4-byte little-endian length, then the bytes.
pub fn frame(payload: &[u8]) -> Vec<u8> {
    let mut f = (payload.len() as i32).to_le_bytes().to_vec();
    f.extend_from_slice(payload);
    f
}

/// A request envelope's JSON.
pub fn envelope(command: &str, payload: &serde_json::Value) -> Vec<u8> {
    serde_json::to_vec(&serde_json::json!({
        "protocolVersion": "0.1", "command": command, "payloadJson": payload.to_string()
    }))
    .unwrap()
}

/// Reads one response frame from a raw stream (None at EOF).
pub fn read_response(s: &mut impl std::io::Read) -> Option<serde_json::Value> {
    let mut len = [0u8; 4];
    if s.read_exact(&mut len).is_err() {
        return None;
    }
    let n = i32::from_le_bytes(len);
    assert!(n > 0, "bad response length {n}");
    let mut body = vec![0u8; n as usize];
    s.read_exact(&mut body).ok()?;
    Some(serde_json::from_slice(&body).expect("response is JSON"))
}
