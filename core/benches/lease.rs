//! `cargo bench -p leasekit --bench lease`: authorize, canonicalize, subset and budget spend.

use divan::{Bencher, black_box};
use leasekit::*;
use std::sync::Arc;

fn main() {
    divan::main();
}

/// A realistic lease of `n` URL patterns: literal origins, prefix + `**`, and a few globs.
fn url_lease(n: usize) -> Lease {
    let patterns: Vec<String> = (0..n)
        .map(|i| match i % 4 {
            0 => format!("https://api{i}.example.com/v1/**"),
            1 => format!("https://cdn{i}.example.com/assets/*.js"),
            2 => format!("https://svc{i}.example.com/items/*/detail"),
            _ => format!("https://static{i}.example.com/index.html"),
        })
        .collect();
    Lease::from_value(&serde_json::json!({ "net.fetch": patterns })).unwrap()
}

fn guard(n: usize) -> LeaseGuard {
    LeaseGuard::new(
        url_lease(n),
        LeaseConstraints::none(),
        Arc::new(SystemClock),
    )
}

fn target(i: usize) -> String {
    format!("https://api{i}.example.com/v1/users/42")
}

#[divan::bench(args = [1, 10, 100, 1000])]
fn authorize_hit_first(b: Bencher, n: usize) {
    let g = guard(n);
    let t = target(0);
    b.bench(|| g.authorize(black_box("net.fetch"), black_box(&t)).unwrap());
}

#[divan::bench(args = [1, 10, 100, 1000])]
fn authorize_hit_last(b: Bencher, n: usize) {
    let g = guard(n);
    let last = (n - 1) / 4 * 4; // the last `api` pattern
    let t = target(last);
    b.bench(|| g.authorize(black_box("net.fetch"), black_box(&t)).unwrap());
}

/// A guard over a 10-pattern `fs.read` lease shaped like bench/inputs.py's; its target
/// `/srv/t9/reports/q3.csv` matches the last pattern.
fn path_guard_10() -> LeaseGuard {
    let patterns: Vec<String> = (0..10)
        .map(|i| match i % 3 {
            0 => format!("/srv/t{i}/reports/*.csv"),
            1 => format!("/srv/t{i}/logs/**"),
            _ => format!("/srv/t{i}/cfg/app.json"),
        })
        .collect();
    let lease = Lease::from_value(&serde_json::json!({ "fs.read": patterns })).unwrap();
    LeaseGuard::new(lease, LeaseConstraints::none(), Arc::new(SystemClock))
}

/// `authorize_cow` by name (the Python and C bindings' call) on [`path_guard_10`].
#[divan::bench]
fn authorize_cow_path_10(b: Bencher) {
    let g = path_guard_10();
    b.bench(|| {
        g.authorize_cow(black_box("fs.read"), black_box("/srv/t9/reports/q3.csv"))
            .unwrap()
    });
}

/// `authorize_kind_cow` (the Node and JVM bindings' call for a reserved capability) on
/// [`path_guard_10`].
#[divan::bench]
fn authorize_kind_cow_path_10(b: Bencher) {
    let g = path_guard_10();
    b.bench(|| {
        g.authorize_kind_cow(
            black_box(CapabilityKind::FsRead),
            black_box("/srv/t9/reports/q3.csv"),
        )
        .unwrap()
    });
}

#[divan::bench(args = [1, 10, 100, 1000])]
fn authorize_miss(b: Bencher, n: usize) {
    let g = guard(n);
    b.bench(|| {
        g.authorize(
            black_box("net.fetch"),
            black_box("https://evil.example.net/x"),
        )
        .unwrap_err()
    });
}

#[divan::bench]
fn authorize_adversarial_10k(b: Bencher) {
    let lease = Lease::from_json(r#"{"tool.call": ["*a*a*a*a*a*a*a*a*a*a*a*a*c"]}"#).unwrap();
    let g = LeaseGuard::new(lease, LeaseConstraints::none(), Arc::new(SystemClock));
    let t = "a".repeat(10_000);
    b.bench(|| {
        g.authorize(black_box("tool.call"), black_box(&t))
            .unwrap_err()
    });
}

#[divan::bench]
fn canonicalize_url(b: Bencher) {
    b.bench(|| {
        canonicalize_target(
            black_box("net.fetch"),
            black_box("HTTPS://API.Example.com:443/v1/%7euser/../items?q=1#top"),
        )
        .unwrap()
    });
}

#[divan::bench]
fn canonicalize_path(b: Bencher) {
    b.bench(|| {
        canonicalize_target(
            black_box("fs.read"),
            black_box("/srv//data/./reports/../2026/W19.csv"),
        )
        .unwrap()
    });
}

/// Parent: 100 realistic patterns; child: 100 narrower ones covered by the parent.
#[divan::bench]
fn subset_100_in_100(b: Bencher) {
    let parent = url_lease(100);
    let child: Vec<String> = (0..100)
        .map(|i| match i % 4 {
            0 => format!("https://api{i}.example.com/v1/users/**"),
            1 => format!("https://cdn{i}.example.com/assets/app.js"),
            2 => format!("https://svc{i}.example.com/items/42/detail"),
            _ => format!("https://static{i}.example.com/index.html"),
        })
        .collect();
    let child = Lease::from_value(&serde_json::json!({ "net.fetch": child })).unwrap();
    assert!(is_lease_subset(&child, &parent, &SubsetOptions::default()));
    b.bench(|| {
        is_lease_subset(
            black_box(&child),
            black_box(&parent),
            &SubsetOptions::default(),
        )
    });
}

#[divan::bench(threads = [1, 2])]
fn budget_spend(b: Bencher) {
    let lease = Lease::from_json(r#"{"cost.budget": ["USD:1000000000"]}"#).unwrap();
    let g = LeaseGuard::new(lease, LeaseConstraints::none(), Arc::new(SystemClock));
    b.bench(|| {
        g.record_metric(black_box("cost.llm"), black_box("0.0001"), black_box("USD"))
            .unwrap()
    });
}

#[divan::bench]
fn budget_parse(b: Bencher) {
    b.bench(|| parse_budget_amount(black_box("USD:1234.56")).unwrap());
}
