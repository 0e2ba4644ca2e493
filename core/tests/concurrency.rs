//! Many threads spending, reserving and authorizing on one guard: counters add up exactly and
//! `reserve` never overspends.

use leasekit::*;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

fn d(s: &str) -> Decimal {
    s.parse().unwrap()
}

#[test]
fn spend_and_reserve_from_many_threads_add_up() {
    let lease =
        Lease::from_json(r#"{"tool.call": ["t"], "cost.budget": ["USD:1000.00"]}"#).unwrap();
    let guard = LeaseGuard::new(lease, LeaseConstraints::none(), Arc::new(SystemClock));
    let threads = 8;
    let per_thread = 500;
    let emitted = Arc::new(AtomicUsize::new(0));
    std::thread::scope(|s| {
        for _ in 0..threads {
            let g = guard.clone();
            let emitted = emitted.clone();
            s.spawn(move || {
                for i in 0..per_thread {
                    let m = if i % 2 == 0 {
                        g.record_metric("cost.llm", "0.07", "USD").unwrap()
                    } else {
                        g.reserve("USD", d("0.03")).unwrap()
                    };
                    emitted.fetch_add(m.len(), Ordering::Relaxed);
                    let _ = g.authorize("tool.call", "t");
                }
            });
        }
    });
    // 8 * 250 * 0.07 + 8 * 250 * 0.03 = 200.00
    assert_eq!(guard.remaining()["USD"], d("800.00"));
    // 20 % spent: steps 5, 10, 15, 20 each emitted exactly once
    assert_eq!(emitted.load(Ordering::Relaxed), 4);
}

#[test]
fn reserve_never_overspends() {
    let lease = Lease::from_json(r#"{"cost.budget": ["USD:10.00"]}"#).unwrap();
    let guard = LeaseGuard::new(lease, LeaseConstraints::none(), Arc::new(SystemClock));
    let ok = Arc::new(AtomicUsize::new(0));
    std::thread::scope(|s| {
        for _ in 0..8 {
            let g = guard.clone();
            let ok = ok.clone();
            s.spawn(move || {
                for _ in 0..200 {
                    if g.reserve("USD", d("0.01")).is_ok() {
                        ok.fetch_add(1, Ordering::Relaxed);
                    }
                }
            });
        }
    });
    assert_eq!(ok.load(Ordering::Relaxed), 1000);
    assert_eq!(guard.remaining()["USD"], Decimal::ZERO);
}

#[test]
fn concurrent_delegation_never_reserves_more_than_remaining() {
    let lease = Lease::from_json(r#"{"tool.call": ["t"], "cost.budget": ["USD:10"]}"#).unwrap();
    let parent = LeaseGuard::new(lease, LeaseConstraints::none(), Arc::new(SystemClock));
    let child = Lease::from_json(r#"{"tool.call": ["t"], "cost.budget": ["USD:1"]}"#).unwrap();
    let kids = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..8 {
            let p = parent.clone();
            let c = child.clone();
            let kids = &kids;
            s.spawn(move || {
                for _ in 0..5 {
                    if let Ok(k) = p.delegate(c.clone(), LeaseConstraints::none()) {
                        kids.lock().unwrap().push(k);
                    }
                }
            });
        }
    });
    assert_eq!(kids.lock().unwrap().len(), 10);
    assert_eq!(parent.remaining()["USD"], Decimal::ZERO);
    for k in kids.lock().unwrap().iter() {
        k.record_metric("cost.x", "0.5", "USD").unwrap();
        k.close();
    }
    assert_eq!(parent.remaining()["USD"], d("5"));
}
