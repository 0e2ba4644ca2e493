//! `cargo bench -p leasekit --bench governor` (`make bench-governor`): one acquire+release pair
//! on the memory store (typed methods and the wire dispatcher), on SQLite with
//! `synchronous=FULL` and `NORMAL` from 1 and 16 threads (group commit), and the frame codec
//! on a typical acquire. Sample counts and sizes are fixed so every loop is bounded.

use std::sync::Arc;

use divan::{Bencher, black_box};
use leasekit::SystemClock;
use leasekit::governor::engine::IdSource;
use leasekit::governor::store::{MemoryStore, SqliteStore, Synchronous};
use leasekit::governor::wire::*;
use leasekit::governor::{Governor, GovernorOptions, Policy};
use serde_json::json;

fn main() {
    divan::main();
}

fn policy() -> Policy {
    Policy::from_value(json!({
        "policyVersion": "bench",
        "maxInFlight": 64, "maxComputeUnits": 1000, "dailyBudgetCents": 1000000000,
        "maxRequestsPerMinute": 1000000000, "maxTokensPerMinute": 1000000000000i64,
        "spendSpikeCents": 1000000, "allowedModels": ["gpt-4o-mini"],
        "toolRegistry": [{"toolId": "fs.read", "category": "fileRead"}]
    }))
    .unwrap()
}

fn request(actor: usize) -> AcquireRequest {
    AcquireRequest {
        actor_id: format!("actor{actor}"),
        workspace_id: "ws1".into(),
        model_id: "gpt-4o-mini".into(),
        estimated_prompt_tokens: 100,
        max_output_tokens: 50,
        estimated_cost_cents: 5,
        requested_tools: vec![ToolIntent {
            tool_id: "fs.read".into(),
            category: ToolCategory::FileRead,
        }],
        ..AcquireRequest::default()
    }
}

fn pair(g: &Governor, req: &AcquireRequest) {
    let r = g.acquire(req.clone()).unwrap();
    assert!(r.granted, "{}", r.denied_reason);
    g.release(ReleaseRequest {
        lease_id: r.lease_id,
        actual_cost_cents: 4,
        ..ReleaseRequest::default()
    })
    .unwrap();
}

fn memory() -> Governor {
    Governor::new(
        policy(),
        GovernorOptions::default(),
        Arc::new(MemoryStore::new()),
        Arc::new(SystemClock),
        IdSource::Random,
    )
    .unwrap()
}

/// Acquire + release through the typed methods, memory store, one thread.
#[divan::bench(sample_count = 100, sample_size = 200)]
fn memory_pair_typed(b: Bencher) {
    let g = memory();
    let req = request(0);
    b.bench_local(|| pair(&g, black_box(&req)));
}

/// Acquire + release through the wire dispatcher (`handle`), memory store, one thread.
#[divan::bench(sample_count = 100, sample_size = 200)]
fn memory_pair_wire(b: Bencher) {
    let g = memory();
    let acquire = serde_json::to_string(&request(0)).unwrap();
    b.bench_local(|| {
        let env: ResponseEnvelope =
            serde_json::from_str(&g.handle("Acquire", black_box(&acquire))).unwrap();
        let r: AcquireResponse = serde_json::from_str(&env.payload_json).unwrap();
        let rel = format!("{{\"leaseId\":\"{}\",\"actualCostCents\":4}}", r.lease_id);
        black_box(g.handle("Release", &rel));
    });
}

fn sqlite(sync: Synchronous) -> (Governor, std::path::PathBuf) {
    let dir = std::env::temp_dir().join(format!("leasekit-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!(
        "{sync:?}-{}.db",
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos()
    ));
    let g = Governor::new(
        policy(),
        GovernorOptions::default(),
        Arc::new(SqliteStore::open_with(&path, sync).unwrap()),
        Arc::new(SystemClock),
        IdSource::Random,
    )
    .unwrap();
    (g, path)
}

/// Pairs each thread runs per iteration: enough that group commit reaches a steady state.
const PAIRS_PER_THREAD: usize = 25;

fn sqlite_pairs(b: Bencher, sync: Synchronous, threads: usize) {
    let (g, _path) = sqlite(sync);
    threaded_pairs(b, &g, threads);
}

/// `threads` threads share governor `g`, each running 25 pairs per iteration.
fn threaded_pairs(b: Bencher, g: &Governor, threads: usize) {
    let reqs: Vec<AcquireRequest> = (0..threads).map(request).collect();
    b.counter(divan::counter::ItemsCount::new(threads * PAIRS_PER_THREAD))
        .bench(|| {
            std::thread::scope(|s| {
                for r in &reqs {
                    s.spawn(move || {
                        for _ in 0..PAIRS_PER_THREAD {
                            pair(g, r);
                        }
                    });
                }
            })
        });
}

/// Acquire + release pairs on the memory store, threaded as `sqlite_full_pairs` (the peer of
/// the SQLite rows: the ratio of the two is what durability costs).
#[divan::bench(args = [1, 16], sample_count = 5, sample_size = 20)]
fn memory_pairs(b: Bencher, threads: usize) {
    threaded_pairs(b, &memory(), threads);
}

/// Acquire + release pairs on SQLite `synchronous=FULL`: `threads` threads share one governor,
/// each running 25 pairs per iteration (items/s = pairs/s).
#[divan::bench(args = [1, 16], sample_count = 5, sample_size = 1)]
fn sqlite_full_pairs(b: Bencher, threads: usize) {
    sqlite_pairs(b, Synchronous::Full, threads);
}

/// As `sqlite_full_pairs` with `synchronous=NORMAL`.
#[divan::bench(args = [1, 16], sample_count = 5, sample_size = 2)]
fn sqlite_normal_pairs(b: Bencher, threads: usize) {
    sqlite_pairs(b, Synchronous::Normal, threads);
}

/// Encodes a typical acquire request frame.
#[divan::bench(sample_count = 100, sample_size = 1000)]
fn frame_encode_acquire(b: Bencher) {
    let payload = serde_json::to_string(&request(0)).unwrap();
    b.bench_local(|| {
        let env = RequestEnvelope {
            protocol_version: PROTOCOL_VERSION.into(),
            command: "Acquire".into(),
            payload_json: black_box(&payload).clone(),
        };
        encode_frame(&serde_json::to_vec(&env).unwrap()).unwrap()
    });
}

/// Decodes a typical acquire request frame (envelope and payload).
#[divan::bench(sample_count = 100, sample_size = 1000)]
fn frame_decode_acquire(b: Bencher) {
    let env = RequestEnvelope {
        protocol_version: PROTOCOL_VERSION.into(),
        command: "Acquire".into(),
        payload_json: serde_json::to_string(&request(0)).unwrap(),
    };
    let frame = encode_frame(&serde_json::to_vec(&env).unwrap()).unwrap();
    b.bench_local(|| {
        let e = decode_request_frame(black_box(&frame)).unwrap();
        let r: AcquireRequest = serde_json::from_str(&e.payload_json).unwrap();
        r
    });
}
