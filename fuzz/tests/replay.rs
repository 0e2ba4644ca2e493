//! Plain regression tests (stable toolchain, no libFuzzer): every target runs on its seed
//! corpus (built from the conformance vectors and examples), on deterministic pseudo-random
//! inputs, and on the minimized crashes kept in `regressions/<target>/`. Run by
//! scripts/test-rust.sh as `cargo test -p leasekit-fuzz` (with the rest of the workspace).

use leasekit_fuzz::{TARGETS, seeds};
use std::panic::{AssertUnwindSafe, catch_unwind};

/// Runs `check` on every input; returns the failing inputs, shown escaped.
fn failures(check: fn(&[u8]), inputs: &[Vec<u8>]) -> Vec<String> {
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let bad: Vec<String> = inputs
        .iter()
        .filter_map(|d| {
            let r = catch_unwind(AssertUnwindSafe(|| check(d)));
            r.err().map(|e| {
                let why = e
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                let shown: String = d.escape_ascii().to_string().chars().take(300).collect();
                format!(
                    "{shown}\n    -> {}",
                    why.chars().take(300).collect::<String>()
                )
            })
        })
        .collect();
    std::panic::set_hook(hook);
    bad
}

fn check(target: &str) -> fn(&[u8]) {
    TARGETS
        .iter()
        .find(|(n, _)| *n == target)
        .expect("a target")
        .1
}

/// xorshift bytes: the same inputs on every run.
fn pseudo_random(n: usize, max_len: usize) -> Vec<Vec<u8>> {
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    (0..n)
        .map(|_| {
            let len = (next() % max_len as u64) as usize;
            (0..len).map(|_| next() as u8).collect()
        })
        .collect()
}

fn regressions(target: &str) -> Vec<Vec<u8>> {
    let dir = seeds::repo_root().join("fuzz/regressions").join(target);
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    files.sort();
    files.iter().filter_map(|p| std::fs::read(p).ok()).collect()
}

fn run(target: &str, min_seeds: usize) {
    let all = seeds::seeds();
    let mut inputs = all.0.get(target).cloned().unwrap_or_default();
    assert!(
        inputs.len() >= min_seeds,
        "{target}: {} seeds, expected at least {min_seeds}",
        inputs.len()
    );
    inputs.extend(regressions(target));
    inputs.extend(pseudo_random(300, 64));
    let bad = failures(check(target), &inputs);
    assert!(
        bad.is_empty(),
        "{target}: {} of {} inputs fail:\n{}",
        bad.len(),
        inputs.len(),
        bad.join("\n")
    );
}

macro_rules! replay {
    ($($name:ident: $min:expr),* $(,)?) => {
        $( #[test] fn $name() { run(stringify!($name), $min); } )*
        #[test]
        fn every_target_is_replayed() {
            let mut names = vec![$(stringify!($name)),*];
            names.sort();
            let mut all: Vec<&str> = TARGETS.iter().map(|(n, _)| *n).collect();
            all.sort();
            assert_eq!(names, all);
        }
    };
}

replay! {
    lease_json: 100,
    authorize: 100,
    pattern_match: 100,
    canonicalize: 100,
    canonical_fast_path: 100,
    canonical_invariants: 100,
    subset_bruteforce: 0,
    narrow: 0,
    budget_amount: 50,
    expires_at: 50,
    agentfile: 50,
    cedar_policy: 3,
    governor_frame: 100,
    governor_dispatch: 100,
    c_abi: 100,
}
