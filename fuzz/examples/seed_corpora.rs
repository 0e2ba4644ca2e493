//! Writes the seed corpus of every fuzz target into `<dir>/<target>/` (default `fuzz/corpus`),
//! from the conformance vectors and the examples. `scripts/fuzz.sh` runs it before fuzzing.
//! Usage: `cargo run -p leasekit-fuzz --example seed_corpora [dir]`

use leasekit_fuzz::{TARGETS, seeds};
use std::path::PathBuf;

fn main() -> std::io::Result<()> {
    let dir = std::env::args()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| seeds::repo_root().join("fuzz/corpus"));
    let all = seeds::seeds();
    for (name, _) in TARGETS {
        let d = dir.join(name);
        std::fs::create_dir_all(&d)?;
        let inputs = all.0.get(name).cloned().unwrap_or_default();
        for (i, data) in inputs.iter().enumerate() {
            std::fs::write(d.join(format!("seed-{i:05}")), data)?;
        }
        println!("{name:22} {:5} seeds", inputs.len());
    }
    Ok(())
}
