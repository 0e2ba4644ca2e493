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

/// Acquire + release on SQLite; `threads` threads share one governor (time per pair per
/// thread: pairs/s = threads / time).
#[divan::bench(args = [1, 16], sample_count = 10, sample_size = 20)]
fn sqlite_full_pair(b: Bencher, threads: usize) {
    let (g, _path) = sqlite(Synchronous::Full);
    let reqs: Vec<AcquireRequest> = (0..threads).map(request).collect();
    b.counter(divan::counter::ItemsCount::new(threads))
        .bench(|| {
            std::thread::scope(|s| {
                for r in &reqs {
                    let g = &g;
                    s.spawn(move || pair(g, r));
                }
            })
        });
}

/// As `sqlite_full_pair` with `synchronous=NORMAL`.
#[divan::bench(args = [1, 16], sample_count = 10, sample_size = 50)]
fn sqlite_normal_pair(b: Bencher, threads: usize) {
    let (g, _path) = sqlite(Synchronous::Normal);
    let reqs: Vec<AcquireRequest> = (0..threads).map(request).collect();
    b.counter(divan::counter::ItemsCount::new(threads))
        .bench(|| {
            std::thread::scope(|s| {
                for r in &reqs {
                    let g = &g;
                    s.spawn(move || pair(g, r));
                }
            })
        });
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
