//! Fuzz targets for leasekit and the checks behind them.
//!
//! Every target is a plain function `fn(&[u8])` in [`targets`] that panics when a property of
//! docs/semantics.md does not hold (and never otherwise): the cargo-fuzz binaries in
//! `fuzz_targets/` call it under libFuzzer, and `tests/replay.rs` calls it on the seed corpora
//! ([`seeds`]) and on the minimized crashes in `regressions/`, so what the fuzzer found stays
//! fixed in `make test`.
//!
//! Inputs are raw bytes; several fields are separated by the byte `0xFF`, which never occurs
//! in UTF-8, so every string a caller can pass is reachable and seeds are easy to write
//! ([`fields`]). The two targets over small alphabets (subset against brute force, narrowing)
//! draw their structure through `arbitrary::Unstructured`.

pub mod fields;
pub mod glob_regex;
pub mod model;
pub mod seeds;
mod seeds_governor;
pub mod targets;

/// A target's check: panics exactly when a property fails.
pub type Check = fn(&[u8]);

/// Every target: name (the cargo-fuzz binary) and check.
pub const TARGETS: &[(&str, Check)] = &[
    ("lease_json", targets::lease_json),
    ("authorize", targets::authorize),
    ("pattern_match", targets::pattern_match),
    ("canonicalize", targets::canonicalize),
    ("canonical_fast_path", targets::canonical_fast_path),
    ("canonical_invariants", targets::canonical_invariants),
    ("subset_bruteforce", targets::subset_bruteforce),
    ("narrow", targets::narrow),
    ("budget_amount", targets::budget_amount),
    ("expires_at", targets::expires_at),
    ("agentfile", targets::agentfile),
    ("cedar_policy", targets::cedar_policy),
    ("governor_frame", targets::governor_frame),
    ("governor_dispatch", targets::governor_dispatch),
    ("c_abi", targets::c_abi),
];
