//! Helpers shared by the CLI tests: run the built `leasekit` binary.
#![allow(dead_code)]

use assert_cmd::Command;
use std::path::PathBuf;

/// The built `leasekit` binary, with colour disabled and the repo root as cwd.
pub fn leasekit() -> Command {
    let mut cmd = Command::cargo_bin("leasekit").expect("leasekit binary");
    cmd.current_dir(repo_root()).env("NO_COLOR", "1");
    cmd
}

/// The repository root (parent of cli/).
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Runs the command and parses its stdout as JSON.
pub fn json_of(cmd: &mut Command) -> serde_json::Value {
    let output = cmd.output().expect("run leasekit");
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not JSON ({e}): {}\nstderr: {}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    })
}

/// `name` in this test binary's scratch directory: unique to the run (a random name from
/// `tempfile`), never a directory an earlier process with the same pid left behind.
pub fn scratch(name: &str) -> PathBuf {
    static DIR: std::sync::LazyLock<tempfile::TempDir> = std::sync::LazyLock::new(|| {
        tempfile::Builder::new()
            .prefix(&format!("leasekit-{}-", env!("CARGO_CRATE_NAME")))
            .tempdir()
            .expect("create a scratch directory")
    });
    DIR.path().join(name)
}
