//! `cargo bench -p leasekit --bench worst_case`: the slowest `authorize`, subset and narrowing
//! calls found within the SEMANTICS 2 and 5 bounds (SEMANTICS 8: 25 ms per `authorize`;
//! SEMANTICS 9: 100 ms per subset or narrowing call), from the generator in
//! `worst_case/generator.rs`. `WORST_CASE_FILTER=stars` runs the cases whose name has it.

#[path = "worst_case/generator.rs"]
mod generator;

use divan::{Bencher, black_box};
use leasekit::*;
use std::sync::Arc;

fn main() {
    divan::main();
}

fn lease(cap: &str, patterns: &[String]) -> Lease {
    Lease::from_value(&serde_json::json!({ cap: patterns })).unwrap()
}

fn names(all: Vec<String>) -> Vec<String> {
    let f = std::env::var("WORST_CASE_FILTER").unwrap_or_default();
    all.into_iter().filter(|n| n.contains(&f)).collect()
}

fn authorize_names() -> Vec<String> {
    names(
        generator::authorize_cases()
            .into_iter()
            .map(|c| c.name)
            .collect(),
    )
}

fn pair_names() -> Vec<String> {
    names(
        generator::pair_cases()
            .into_iter()
            .map(|c| c.name)
            .collect(),
    )
}

#[divan::bench(args = authorize_names(), sample_count = 10, sample_size = 1)]
fn authorize(b: Bencher, name: &str) {
    let case = generator::authorize_cases()
        .into_iter()
        .find(|c| c.name == name)
        .unwrap();
    let guard = LeaseGuard::new(
        lease(case.capability, &case.patterns),
        LeaseConstraints::none(),
        Arc::new(SystemClock),
    );
    let _ = guard.authorize(case.capability, &case.target); // builds lazy tables once
    b.bench(|| {
        guard
            .authorize(black_box(case.capability), black_box(&case.target))
            .is_ok()
    });
}

#[divan::bench(args = pair_names(), sample_count = 10, sample_size = 1)]
fn subset(b: Bencher, name: &str) {
    let case = generator::pair_cases()
        .into_iter()
        .find(|c| c.name == name)
        .unwrap();
    let child = lease(case.capability, &case.child);
    let parent = lease(case.capability, &case.parent);
    b.bench(|| {
        is_lease_subset(
            black_box(&child),
            black_box(&parent),
            &SubsetOptions::default(),
        )
    });
}

#[divan::bench(args = pair_names(), sample_count = 10, sample_size = 1)]
fn narrow(b: Bencher, name: &str) {
    let case = generator::pair_cases()
        .into_iter()
        .find(|c| c.name == name)
        .unwrap();
    let requested = lease(case.capability, &case.child);
    let ceiling = lease(case.capability, &case.parent);
    b.bench(|| narrow_lease(black_box(&requested), black_box(&ceiling)).unwrap());
}
