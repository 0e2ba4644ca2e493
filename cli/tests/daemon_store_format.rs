//! `leasekit serve` on a SQLite store of a newer format than it reads: it refuses to start,
//! says why (`store_format`: the file's format and the one it reads), and writes nothing to
//! the file.

mod daemon;

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[test]
fn a_store_of_a_newer_format_is_refused_and_left_untouched() {
    let dir = daemon::temp_dir("lkfmt");
    let state = dir.join("state");
    fs::create_dir(&state).unwrap();
    fs::set_permissions(&state, fs::Permissions::from_mode(0o700)).unwrap();
    let db = state.join("governor.db");
    let newer = leasekit::governor::store::SQLITE_FORMAT + 1;
    rusqlite::Connection::open(&db)
        .unwrap()
        .pragma_update(None, "user_version", newer)
        .unwrap();
    let before = fs::read(&db).unwrap();
    // Run directly (the harness removes a daemon's directory when it fails to start).
    let mut child = Command::new(daemon::leasekit_bin())
        .arg("serve")
        .arg("--socket")
        .arg(dir.join("s.sock"))
        .arg("--state")
        .arg(&state)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("the daemon started on a store of format {newer}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    let log = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{log}");
    assert!(log.contains(&format!("has format {newer}")), "{log}");
    assert!(log.contains(&db.display().to_string()), "{log}");
    assert_eq!(fs::read(&db).unwrap(), before, "the store file was written");
    let _ = fs::remove_dir_all(&dir);
}
