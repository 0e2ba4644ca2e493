//! Helpers shared by the CLI tests: run the built `leasekit` binary.
#![allow(dead_code)]

#[path = "../../../core/tests/scratch/mod.rs"]
mod core_scratch;

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

/// `name` in this test binary's scratch directory: unique to the run, never a directory an
/// earlier process with the same pid left behind (core's test scratch directory).
pub fn scratch(name: &str) -> PathBuf {
    core_scratch::dir().join(name)
}
