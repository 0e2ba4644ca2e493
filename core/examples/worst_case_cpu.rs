//! CPU time of the worst cases of `benches/worst_case/generator.rs`, one line per case:
//! `cargo run --release -p leasekit --example worst_case_cpu [name-filter]`.
//!
//! The divan bench (`cargo bench -p leasekit --bench worst_case`) measures wall time, which a
//! loaded machine inflates; this reads the thread's own CPU time (Linux
//! `/proc/thread-self/schedstat`; elsewhere it falls back to wall time) so figures taken next
//! to other jobs stay comparable with the SEMANTICS 8 and 9 limits (25 ms per `authorize`,
//! 100 ms per subset or narrowing call, on one core).

#[path = "../benches/worst_case/generator.rs"]
mod generator;

use leasekit::*;
use std::sync::Arc;
use std::time::Instant;

/// Nanoseconds of CPU time this thread has used (wall time since `origin` when unknown).
fn cpu_ns(origin: Instant) -> u64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .unwrap_or_else(|| origin.elapsed().as_nanos() as u64)
}

fn lease(cap: &str, patterns: &[String]) -> Lease {
    Lease::from_value(&serde_json::json!({ cap: patterns })).expect("within the bounds")
}

/// Median CPU milliseconds of `runs` calls of `f`.
fn median_ms(runs: usize, mut f: impl FnMut()) -> f64 {
    let origin = Instant::now();
    let mut t: Vec<u64> = (0..runs)
        .map(|_| {
            let c0 = cpu_ns(origin);
            f();
            cpu_ns(origin) - c0
        })
        .collect();
    t.sort_unstable();
    t[runs / 2] as f64 / 1e6
}

fn main() {
    let filter = std::env::args().nth(1).unwrap_or_default();
    println!("case | cpu ms (median of 5)");
    for c in generator::authorize_cases()
        .into_iter()
        .filter(|c| c.name.contains(&filter))
    {
        let g = LeaseGuard::new(
            lease(c.capability, &c.patterns),
            LeaseConstraints::none(),
            Arc::new(SystemClock),
        );
        let _ = g.authorize(c.capability, &c.target); // builds lazy tables once
        let ms = median_ms(5, || {
            let _ = g.authorize(c.capability, &c.target);
        });
        println!("authorize {} | {ms:.2}", c.name);
    }
    for c in generator::pair_cases()
        .into_iter()
        .filter(|c| c.name.contains(&filter))
    {
        let (child, parent) = (
            lease(c.capability, &c.child),
            lease(c.capability, &c.parent),
        );
        let ms = median_ms(5, || {
            let _ = is_lease_subset(&child, &parent, &SubsetOptions::default());
        });
        println!("subset {} | {ms:.2}", c.name);
        let ms = median_ms(5, || {
            let _ = narrow_lease(&child, &parent);
        });
        println!("narrow {} | {ms:.2}", c.name);
    }
    // Cases exact inclusion decides within the bound (SEMANTICS 9), with their answers.
    for c in generator::decidable_cases()
        .into_iter()
        .filter(|c| c.name.contains(&filter))
    {
        let (child, parent) = (
            lease(c.capability, &c.child),
            lease(c.capability, &c.parent),
        );
        let got = is_lease_subset(&child, &parent, &SubsetOptions::default());
        assert_eq!(got, c.subset, "{}", c.name);
        let ms = median_ms(5, || {
            let _ = is_lease_subset(&child, &parent, &SubsetOptions::default());
        });
        println!("subset {} ({got}) | {ms:.2}", c.name);
        let ms = median_ms(5, || {
            let _ = narrow_lease(&child, &parent);
        });
        println!("narrow {} | {ms:.2}", c.name);
    }
}
