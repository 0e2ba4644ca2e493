//! This test binary's scratch directory for store files.
//!
//! Unique to the run (a random name from `tempfile`): a directory named after the process id
//! could be one an earlier run left behind (pid namespaces hand out the same ids run after
//! run), and a store opened on its old files starts from their state.

use std::path::Path;
use std::sync::LazyLock;

/// The directory, created on first use; it stays for the process's life.
pub fn dir() -> &'static Path {
    static DIR: LazyLock<tempfile::TempDir> = LazyLock::new(|| {
        tempfile::Builder::new()
            .prefix(&format!("leasekit-{}-", env!("CARGO_CRATE_NAME")))
            .tempdir()
            .expect("create a scratch directory")
    });
    DIR.path()
}
