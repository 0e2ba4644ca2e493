//! Rust core harness: times the shared operations directly on the `leasekit` crate (the
//! baseline every binding's overhead is measured against) and runs the adversarial series.
//!
//! Usage: `leasekit-bench INPUTS_JSON OUT_JSON`. Writes `{"lang": "rust", "records": [...]}`.

mod timing;

use leasekit::*;
use serde_json::{Value, json};
use std::hint::black_box;
use std::sync::Arc;
use timing::{median_ns_per_call, peak_rss_kb, reset_peak_rss};

fn guard_for(lease: Value) -> LeaseGuard {
    let lease = Lease::from_value(&lease).expect("valid lease");
    LeaseGuard::new(lease, LeaseConstraints::default(), Arc::new(SystemClock))
}

fn strs(v: &Value) -> Vec<String> {
    v.as_array()
        .expect("array")
        .iter()
        .map(|s| s.as_str().expect("string").to_owned())
        .collect()
}

fn time_record(op: &str, f: impl FnMut()) -> Value {
    let (ns, iters, samples) = median_ns_per_call(f);
    json!({"kind": "time", "impl": "leasekit", "op": op, "median_ns": ns, "iters": iters, "samples": samples})
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let inputs: Value =
        serde_json::from_str(&std::fs::read_to_string(&args[1]).expect("read inputs"))
            .expect("json");
    let cap = inputs["capability"].as_str().unwrap().to_owned();
    let mut records = Vec::new();

    for n in inputs["sizes"].as_array().unwrap() {
        let n = n.as_u64().unwrap().to_string();
        let guard = guard_for(json!({ cap.clone(): inputs["leases"][&n] }));
        let target = inputs["targets"][&n].as_str().unwrap().to_owned();
        let denied = inputs["denied"][&n].as_str().unwrap().to_owned();
        assert_eq!(
            guard.authorize(&cap, &target).as_deref(),
            Ok(target.as_str())
        );
        assert!(guard.authorize(&cap, &denied).is_err());
        // Timed: `authorize_cow`, the call the Python, Node and JVM bindings make (it borrows
        // an already-canonical target instead of allocating a copy).
        records.push(time_record(&format!("authorize/{n}"), || {
            black_box(
                guard
                    .authorize_cow(black_box(&cap), black_box(&target))
                    .is_ok(),
            );
        }));
    }

    let parent = Lease::from_value(&inputs["subset"]["parent"]).unwrap();
    let child = Lease::from_value(&inputs["subset"]["child"]).unwrap();
    let opts = SubsetOptions::default();
    assert!(is_lease_subset(&child, &parent, &opts));
    records.push(time_record("subset", || {
        black_box(is_lease_subset(
            black_box(&child),
            black_box(&parent),
            &opts,
        ));
    }));

    let b = &inputs["budget"];
    let entry = b["entry"].as_str().unwrap();
    let parsed = parse_budget_amount(entry).unwrap();
    assert_eq!(parsed.currency, b["currency"].as_str().unwrap());
    assert_eq!(format_amount(&parsed.amount), b["amount"].as_str().unwrap());
    records.push(time_record("budget_parse", || {
        black_box(parse_budget_amount(black_box(entry)).is_ok());
    }));
    let spender = guard_for(json!({"cost.budget": [b["lease_budget"]]}));
    let metric = strs(&b["metric"]);
    records.push(time_record("budget_spend", || {
        black_box(
            spender
                .record_metric(&metric[0], &metric[1], &metric[2])
                .is_ok(),
        );
    }));

    // Adversarial: the backtracking pattern against growing targets (in-process; the core is
    // linear, so no point needs a timeout).
    let adv = &inputs["adversarial"];
    let acap = adv["capability"].as_str().unwrap();
    let guard = guard_for(json!({ acap: [adv["pattern"]] }));
    for size in adv["sizes"].as_array().unwrap() {
        let size = size.as_u64().unwrap() as usize;
        let target = "a".repeat(size);
        reset_peak_rss();
        let (ns, _, _) = median_ns_per_call(|| {
            black_box(guard.authorize(acap, black_box(&target)).is_ok());
        });
        records.push(
            json!({"kind": "adv", "impl": "leasekit", "series": "star-a", "n": size,
            "ns": ns, "timed_out": false, "peak_rss_kb": peak_rss_kb()}),
        );
    }

    let out = json!({"lang": "rust", "records": records});
    std::fs::write(&args[2], serde_json::to_string_pretty(&out).unwrap()).expect("write results");
}
