//! This test binary's scratch directory for store files.
//!
//! Unique to the run (the process id and a random name from `tempfile`): a directory named
//! after the process id alone could be one an earlier run left behind (pid namespaces hand out
//! the same ids run after run), and a store opened on its old files starts from their state.
//! A static is never dropped, so each run leaves its directory: the next run of the same test
//! binary removes those whose process is gone.

use std::path::Path;
use std::sync::LazyLock;

/// The directory, created on first use; it stays for the process's life.
pub fn dir() -> &'static Path {
    static DIR: LazyLock<tempfile::TempDir> = LazyLock::new(|| {
        let krate = env!("CARGO_CRATE_NAME");
        sweep(krate);
        tempfile::Builder::new()
            .prefix(&format!("leasekit-{krate}-{}-", std::process::id()))
            .tempdir()
            .expect("create a scratch directory")
    });
    DIR.path()
}

/// Removes the scratch directories of test binary `krate` whose process no longer exists
/// (`leasekit-<krate>-<pid>-<random>`; a directory of a live process, this one included, is
/// kept).
fn sweep(krate: &str) {
    let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) else {
        return;
    };
    let head = format!("leasekit-{krate}-");
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(rest) = name.to_str().and_then(|n| n.strip_prefix(&head)) else {
            continue;
        };
        let Some(pid) = rest
            .split_once('-')
            .and_then(|(p, _)| p.parse::<u32>().ok())
        else {
            continue;
        };
        if pid != std::process::id() && !Path::new(&format!("/proc/{pid}")).exists() {
            let _ = std::fs::remove_dir_all(e.path());
        }
    }
}
