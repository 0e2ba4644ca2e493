//! The daemon's directories and files under hostile local users (SEMANTICS 13.16 "Files"):
//! it refuses a state or socket directory that another uid owns or that others may write
//! (unless sticky, like `/tmp`), never follows a link planted as its lock file, socket or
//! store, and gives the socket its mode when binding it (never a `chmod` by path afterwards).
//! Every test starts a real `leasekit serve`; the ownership tests need root.

mod daemon;

use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{MetadataExt, PermissionsExt, symlink};
use std::path::{Path, PathBuf};

use daemon::Daemon;

const OTHER: u32 = 65534;

fn is_root() -> bool {
    leasekit_serve::listener::current_uid() == 0
}

/// A fresh directory for one daemon (`state/` and `s.sock` inside) and a victim file in
/// another directory (a daemon that fails to start takes its directory with it) holding
/// `precious`.
fn setup(tag: &str) -> (PathBuf, PathBuf) {
    let dir = daemon::temp_dir(tag);
    fs::set_permissions(&dir, fs::Permissions::from_mode(0o755)).unwrap();
    let victim = victim(tag, "precious");
    (dir, victim)
}

/// A file holding `content` in a directory of its own.
fn victim(tag: &str, content: &str) -> PathBuf {
    let v = daemon::temp_dir(&format!("{tag}v")).join("victim");
    fs::write(&v, content).unwrap();
    v
}

fn private_state(dir: &Path) -> PathBuf {
    let state = dir.join("state");
    fs::create_dir(&state).unwrap();
    fs::set_permissions(&state, fs::Permissions::from_mode(0o700)).unwrap();
    state
}

/// Starts a daemon in `dir` that must refuse to start; its log.
fn refused(dir: &Path, args: &[&str]) -> String {
    refused_at(dir, dir.join("s.sock"), args)
}

/// As `refused`, with the socket at `socket`.
fn refused_at(dir: &Path, socket: PathBuf, args: &[&str]) -> String {
    match Daemon::try_start_at(dir, socket, args.iter().map(|s| s.to_string()).collect()) {
        Ok(mut d) => {
            d.keep();
            panic!("the daemon started:\n{}", d.log())
        }
        Err(log) => log,
    }
}

fn started(dir: &Path, args: &[&str]) -> Daemon {
    Daemon::start_in(dir, args.iter().map(|s| s.to_string()).collect())
}

#[test]
fn a_link_planted_as_a_lock_file_is_refused_and_its_target_untouched() {
    for lock in ["state/leasekit.lock", "s.sock.lock"] {
        let (dir, victim) = setup("lklock");
        private_state(&dir);
        symlink(&victim, dir.join(lock)).unwrap();
        let log = refused(&dir, &["--store", "memory"]);
        assert!(
            log.contains(&format!("lock file {}", dir.join(lock).display()))
                && log.contains("symbolic link"),
            "{lock}: {log}"
        );
        assert_eq!(fs::read_to_string(&victim).unwrap(), "precious", "{lock}");
        let _ = fs::remove_dir_all(&dir);
        let _ = fs::remove_dir_all(victim.parent().unwrap());
    }
}

#[test]
fn a_link_planted_as_the_socket_is_refused() {
    let (dir, victim) = setup("lksock");
    symlink(&victim, dir.join("s.sock")).unwrap();
    let log = refused(&dir, &["--store", "memory"]);
    assert!(
        log.contains(&format!("socket path {}", dir.join("s.sock").display()))
            && log.contains("symbolic link"),
        "{log}"
    );
    assert_eq!(fs::read_to_string(&victim).unwrap(), "precious");
    let _ = fs::remove_dir_all(&dir);
    let _ = fs::remove_dir_all(victim.parent().unwrap());
}

#[test]
fn a_link_planted_as_a_store_file_is_refused_and_its_target_untouched() {
    for name in ["governor.db", "governor.db-wal", "governor.db-journal"] {
        let (dir, _) = setup("lkstore");
        let state = private_state(&dir);
        // An empty file: SQLite would happily make it a database.
        let victim = victim("lkstore", "");
        symlink(&victim, state.join(name)).unwrap();
        let log = refused(&dir, &[]);
        assert!(
            log.contains(&format!("store file {}", state.join(name).display()))
                && log.contains("symbolic link"),
            "{name}: {log}"
        );
        assert_eq!(fs::metadata(&victim).unwrap().len(), 0, "{name}");
        let _ = fs::remove_dir_all(&dir);
        let _ = fs::remove_dir_all(victim.parent().unwrap());
    }
}

#[test]
fn a_state_directory_others_may_write_is_refused() {
    for (mode, who) in [
        (0o770, "writable by its group"),
        (0o707, "writable by others"),
        (0o777, "writable by group and others"),
    ] {
        let (dir, _) = setup("lkmode");
        let state = private_state(&dir);
        fs::set_permissions(&state, fs::Permissions::from_mode(mode)).unwrap();
        let log = refused(&dir, &["--store", "memory"]);
        assert!(
            log.contains(&format!("state directory {}", state.display()))
                && log.contains(who)
                && log.contains(&format!("mode {mode:o}"))
                && log.contains("sticky"),
            "{mode:o}: {log}"
        );
        let _ = fs::remove_dir_all(&dir);
    }
}

#[test]
fn directories_owned_by_another_uid_are_refused() {
    if !is_root() {
        eprintln!("SKIP: needs root to give a directory to another uid");
        return;
    }
    // The state directory.
    let (dir, _) = setup("lkown");
    let state = private_state(&dir);
    std::os::unix::fs::chown(&state, Some(OTHER), Some(OTHER)).unwrap();
    let log = refused(&dir, &["--store", "memory"]);
    assert!(
        log.contains(&format!("state directory {}", state.display()))
            && log.contains("owned by uid 65534"),
        "{log}"
    );
    let _ = fs::remove_dir_all(&dir);
    // The socket's directory.
    let (dir, _) = setup("lkown");
    let sockdir = dir.join("sock");
    fs::create_dir(&sockdir).unwrap();
    std::os::unix::fs::chown(&sockdir, Some(OTHER), Some(OTHER)).unwrap();
    let sock = sockdir.join("s.sock");
    let log = refused_at(&dir, sock.clone(), &["--store", "memory"]);
    assert!(
        log.contains(&format!("socket directory {}", sockdir.display()))
            && log.contains("owned by uid 65534"),
        "{log}"
    );
    assert!(!sock.exists());
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn a_sticky_socket_directory_like_tmp_is_fine_and_a_group_writable_one_is_not() {
    let (dir, _) = setup("lksticky");
    let sockdir = dir.join("shared");
    fs::create_dir(&sockdir).unwrap();
    fs::set_permissions(&sockdir, fs::Permissions::from_mode(0o1777)).unwrap();
    let d = Daemon::try_start_at(
        &dir,
        sockdir.join("s.sock"),
        vec!["--store".into(), "memory".into()],
    )
    .unwrap_or_else(|e| panic!("{e}"));
    d.client().status().unwrap();
    drop(d);
    let (dir, _) = setup("lksticky");
    let sockdir = dir.join("shared");
    fs::create_dir(&sockdir).unwrap();
    fs::set_permissions(&sockdir, fs::Permissions::from_mode(0o775)).unwrap();
    let sock = sockdir.join("s.sock");
    let log = refused_at(&dir, sock, &["--store", "memory"]);
    assert!(
        log.contains(&format!("socket directory {}", sockdir.display()))
            && log.contains("writable by its group"),
        "{log}"
    );
    let _ = fs::remove_dir_all(&dir);
}

/// inotify events on `dir`'s entries: (mask, name).
struct Watch(i32);

impl Watch {
    fn new(dir: &Path) -> Watch {
        let path = std::ffi::CString::new(dir.as_os_str().as_bytes()).unwrap();
        // SAFETY: inotify on a path we own; the descriptor is closed on drop.
        unsafe {
            let fd = libc::inotify_init1(libc::IN_NONBLOCK | libc::IN_CLOEXEC);
            assert!(fd >= 0);
            let wd = libc::inotify_add_watch(fd, path.as_ptr(), libc::IN_ATTRIB | libc::IN_CREATE);
            assert!(wd >= 0);
            Watch(fd)
        }
    }

    fn events(&self) -> Vec<(u32, String)> {
        let mut out = Vec::new();
        let mut buf = [0u8; 16 * 1024];
        loop {
            // SAFETY: read into a local buffer of its length.
            let n = unsafe { libc::read(self.0, buf.as_mut_ptr().cast(), buf.len()) };
            if n <= 0 {
                return out;
            }
            let mut off = 0;
            while off < n as usize {
                // SAFETY: the kernel writes whole inotify_event records.
                let ev: libc::inotify_event =
                    unsafe { std::ptr::read_unaligned(buf[off..].as_ptr().cast()) };
                let start = off + std::mem::size_of::<libc::inotify_event>();
                let name = &buf[start..start + ev.len as usize];
                let name = name.split(|b| *b == 0).next().unwrap_or_default();
                out.push((ev.mask, String::from_utf8_lossy(name).into_owned()));
                off = start + ev.len as usize;
            }
        }
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        // SAFETY: our own descriptor.
        unsafe { libc::close(self.0) };
    }
}

#[test]
fn the_socket_gets_its_mode_when_bound_never_by_path_afterwards() {
    for mode in ["600", "660", "666"] {
        let (dir, _) = setup("lkbind");
        let watch = Watch::new(&dir);
        let d = started(&dir, &["--store", "memory", "--socket-mode", mode]);
        let events = watch.events();
        assert!(
            events
                .iter()
                .any(|(m, n)| n == "s.sock" && m & libc::IN_CREATE != 0),
            "{events:?}"
        );
        assert!(
            !events
                .iter()
                .any(|(m, n)| n == "s.sock" && m & libc::IN_ATTRIB != 0),
            "the socket's attributes were changed after bind: {events:?}"
        );
        let meta = fs::symlink_metadata(&d.socket).unwrap();
        assert_eq!(
            meta.mode() & 0o7777,
            u32::from_str_radix(mode, 8).unwrap(),
            "{mode}"
        );
    }
}
