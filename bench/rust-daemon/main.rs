//! The daemon series of `make bench`: acquire+release pairs per second through a real
//! `leasekit serve` on its Unix socket, for the memory store, SQLite `synchronous=FULL` and
//! `synchronous=NORMAL`, with 1, 16 and 64 clients (one thread and one connection each), and
//! the p50 / p99 latency of one `Acquire` round trip. Runs are interleaved (every store and
//! every binary once per round, rounds repeated), so drift in the shared machine's speed weighs
//! on both sides of a ratio; the load average is recorded with every run.
//!
//! Usage: `bench-daemon [--quick] [--rounds N] [--clients 1,16,64]
//!        --bin LABEL=PATH [--bin LABEL=PATH ...] OUT_JSON`
//! Environment (profiling one store): `BENCH_DAEMON_PAIRS=N` pairs per run in all (default
//! 4 000), `BENCH_DAEMON_STORES=full,memory` a subset of the stores.
//! (`--bin` is a `leasekit` binary; two labels, e.g. `before=` and `after=`, compare builds).

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Barrier;
use std::time::{Duration, Instant};

use leasekit::governor::client::{ClientOptions, FallbackMode, GovernorClient};
use leasekit::governor::wire::{AcquireRequest, ReleaseClassification, ReleaseRequest};
use serde_json::{Value, json};

const STORES: [&str; 3] = ["memory", "full", "normal"];

struct Daemon {
    child: Child,
    dir: PathBuf,
    socket: PathBuf,
}

impl Daemon {
    fn start(bin: &Path, store: &str, n: usize) -> Daemon {
        let dir = std::env::temp_dir().join(format!("lk-bench-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("temp dir");
        let policy = dir.join("policy.json");
        std::fs::write(
            &policy,
            json!({
                "policyVersion": "bench",
                "maxInFlight": 1_000_000, "maxComputeUnits": 1_000_000,
                "dailyBudgetCents": 1_000_000_000_000i64,
                "maxRequestsPerMinute": 1_000_000_000, "maxTokensPerMinute": 1_000_000_000_000i64,
                "leaseTtlMs": 600_000
            })
            .to_string(),
        )
        .expect("policy");
        let socket = dir.join("s.sock");
        let mut cmd = Command::new(bin);
        cmd.arg("serve")
            .arg("--socket")
            .arg(&socket)
            .arg("--state")
            .arg(dir.join("state"))
            .arg("--policy")
            .arg(&policy)
            .args(["--max-connections-per-uid", "256"]);
        match store {
            "memory" => {
                cmd.args(["--store", "memory"]);
            }
            "normal" => {
                cmd.args(["--sync", "normal"]);
            }
            _ => {}
        }
        let log = std::fs::File::create(dir.join("daemon.log")).expect("log");
        let child = cmd
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", bin.display()));
        let d = Daemon { child, dir, socket };
        let deadline = Instant::now() + Duration::from_secs(20);
        while !(d.socket.exists() && d.client().status().is_ok()) {
            assert!(Instant::now() < deadline, "daemon not ready: {}", d.log());
            std::thread::sleep(Duration::from_millis(5));
        }
        d
    }

    fn client(&self) -> GovernorClient {
        GovernorClient::with_options(
            &self.socket,
            ClientOptions {
                fallback: FallbackMode::Off,
                ..ClientOptions::default()
            },
        )
    }

    fn log(&self) -> String {
        std::fs::read_to_string(self.dir.join("daemon.log")).unwrap_or_default()
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .arg("-TERM")
            .arg(self.child.id().to_string())
            .status();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn load_avg() -> f64 {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .unwrap_or(-1.0)
}

/// CPU time (user + system) of process `pid` so far, in microseconds (`/proc/PID/stat`, clock
/// ticks of 10 ms: read over runs of a second or more).
fn cpu_us(pid: &str) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // Fields after the command name (which may hold spaces) start at field 3 (state).
    let rest = stat.rsplit_once(')').map(|(_, r)| r).unwrap_or("");
    let f: Vec<f64> = rest
        .split_whitespace()
        .skip(11)
        .take(2)
        .filter_map(|v| v.parse().ok())
        .collect();
    f.iter().sum::<f64>() * 10_000.0
}

fn acquire_req(thread: usize, i: usize) -> AcquireRequest {
    AcquireRequest {
        actor_id: format!("agent-{thread}"),
        workspace_id: "bench".into(),
        model_id: "m".into(),
        estimated_prompt_tokens: 10,
        max_output_tokens: 10,
        estimated_cost_cents: 3,
        session_id: format!("{thread}-{i}"),
        ..AcquireRequest::default()
    }
}

/// `clients` threads x `pairs` pairs (after `warm` unmeasured pairs each): pairs/s and the
/// acquire latencies in microseconds.
fn run(d: &Daemon, clients: usize, pairs: usize, warm: usize) -> (f64, Vec<u64>) {
    let barrier = Barrier::new(clients + 1);
    let (elapsed, lat) = std::thread::scope(|s| {
        let handles: Vec<_> = (0..clients)
            .map(|t| {
                let client = d.client();
                let barrier = &barrier;
                s.spawn(move || {
                    let pair = |i: usize, lat: Option<&mut Vec<u64>>| {
                        let a0 = Instant::now();
                        let g = client.acquire(acquire_req(t, i)).expect("acquire answered");
                        if let Some(lat) = lat {
                            lat.push(a0.elapsed().as_micros() as u64);
                        }
                        assert!(g.granted, "denied: {}", g.denied_reason);
                        let r = client
                            .release(ReleaseRequest {
                                lease_id: g.lease_id,
                                actual_cost_cents: 2,
                                ..ReleaseRequest::default()
                            })
                            .expect("release answered");
                        assert_eq!(r.classification, ReleaseClassification::Recorded);
                    };
                    for i in 0..warm {
                        pair(1_000_000 + i, None);
                    }
                    barrier.wait();
                    let mut lat = Vec::with_capacity(pairs);
                    for i in 0..pairs {
                        pair(i, Some(&mut lat));
                    }
                    lat
                })
            })
            .collect();
        barrier.wait();
        let t0 = Instant::now();
        let lat: Vec<Vec<u64>> = handles.into_iter().map(|h| h.join().unwrap()).collect();
        (t0.elapsed(), lat)
    });
    let lat: Vec<u64> = lat.into_iter().flatten().collect();
    ((clients * pairs) as f64 / elapsed.as_secs_f64(), lat)
}

fn pct(sorted: &[u64], p: f64) -> u64 {
    sorted[((sorted.len() as f64 * p) as usize).min(sorted.len() - 1)]
}

/// The median (NaN for no values: a store left out by `BENCH_DAEMON_STORES`).
fn median(mut v: Vec<f64>) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

fn main() {
    let mut args = std::env::args().skip(1);
    let mut quick = false;
    let mut rounds = 3usize;
    let mut clients_list = vec![1usize, 16, 64];
    let mut bins: Vec<(String, PathBuf)> = Vec::new();
    let mut out = None;
    while let Some(a) = args.next() {
        match a.as_str() {
            "--quick" => quick = true,
            "--rounds" => {
                rounds = args
                    .next()
                    .and_then(|v| v.parse().ok())
                    .expect("--rounds N")
            }
            "--clients" => {
                clients_list = args
                    .next()
                    .expect("--clients LIST")
                    .split(',')
                    .map(|c| c.parse().expect("client count"))
                    .collect()
            }
            "--bin" => {
                let v = args.next().expect("--bin LABEL=PATH");
                let (l, p) = v.split_once('=').expect("--bin LABEL=PATH");
                bins.push((l.to_string(), PathBuf::from(p)));
            }
            _ => out = Some(PathBuf::from(a)),
        }
    }
    assert!(!bins.is_empty(), "give at least one --bin LABEL=PATH");
    if quick {
        rounds = rounds.min(1);
    }
    // Pairs per client: about the same total per run whatever the client count.
    let pairs_for = |clients: usize| -> usize {
        let total = std::env::var("BENCH_DAEMON_PAIRS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(if quick { 400 } else { 4_000 });
        (total / clients).clamp(if quick { 5 } else { 50 }, if quick { 200 } else { 2_000 })
    };
    let warm = if quick { 3 } else { 20 };
    // BENCH_DAEMON_STORES=full,memory: a subset of the stores (profiling one of them).
    let stores_env = std::env::var("BENCH_DAEMON_STORES").unwrap_or_default();
    let stores: Vec<&str> = STORES
        .into_iter()
        .filter(|s| stores_env.is_empty() || stores_env.split(',').any(|e| e == *s))
        .collect();
    let mut records = Vec::new();
    let mut n = 0;
    for round in 0..rounds {
        for &clients in &clients_list {
            for (label, bin) in &bins {
                for &store in &stores {
                    n += 1;
                    let d = Daemon::start(bin, store, n);
                    let load = load_avg();
                    let pid = d.child.id().to_string();
                    let (d0, c0) = (cpu_us(&pid), cpu_us("self"));
                    let (per_s, mut lat) = run(&d, clients, pairs_for(clients), warm);
                    // CPU per measured pair (the warm-up pairs counted in: a small share).
                    let all = (clients * (pairs_for(clients) + warm)) as f64;
                    let (d_cpu, c_cpu) = ((cpu_us(&pid) - d0) / all, (cpu_us("self") - c0) / all);
                    lat.sort_unstable();
                    let rec = json!({
                        "binary": label, "store": store, "clients": clients, "round": round,
                        "pairs": clients * pairs_for(clients), "pairs_per_s": per_s,
                        "acquire_p50_us": pct(&lat, 0.50), "acquire_p99_us": pct(&lat, 0.99),
                        "daemon_cpu_us_per_pair": d_cpu, "client_cpu_us_per_pair": c_cpu,
                        "load_avg": load,
                    });
                    eprintln!(
                        "daemon {label} {store:6} {clients:2} clients: {per_s:7.0} pairs/s, \
                         acquire p50 {} us p99 {} us, CPU per pair daemon {d_cpu:.0} us client {c_cpu:.0} us \
                         (load {load:.2})",
                        pct(&lat, 0.50),
                        pct(&lat, 0.99)
                    );
                    records.push(rec);
                }
            }
        }
    }
    // Ratios per binary and client count: median over rounds of each round's ratio.
    println!("binary  clients  memory pairs/s  full pairs/s (ratio)  normal pairs/s (ratio)");
    let mut summary = Vec::new();
    for (label, _) in &bins {
        for &clients in &clients_list {
            let get = |store: &str, round: usize| -> Option<&Value> {
                records.iter().find(|r| {
                    r["binary"] == label.as_str()
                        && r["store"] == store
                        && r["clients"] == clients
                        && r["round"] == round
                })
            };
            let per = |store: &str| -> Vec<f64> {
                (0..rounds)
                    .filter_map(|r| get(store, r)?["pairs_per_s"].as_f64())
                    .collect()
            };
            let ratio = |store: &str| -> f64 {
                median(
                    (0..rounds)
                        .filter_map(|r| {
                            Some(
                                get(store, r)?["pairs_per_s"].as_f64()?
                                    / get("memory", r)?["pairs_per_s"].as_f64()?,
                            )
                        })
                        .collect(),
                )
            };
            let (m, f, no) = (
                median(per("memory")),
                median(per("full")),
                median(per("normal")),
            );
            let (rf, rn) = (ratio("full"), ratio("normal"));
            println!(
                "{label:7} {clients:7}  {m:14.0}  {f:12.0} ({:4.0} %)  {no:14.0} ({:4.0} %)",
                rf * 100.0,
                rn * 100.0
            );
            summary.push(
                json!({"binary": label, "clients": clients, "memory": m, "full": f,
                "normal": no, "full_ratio": rf, "normal_ratio": rn}),
            );
        }
    }
    if let Some(out) = out {
        let doc = json!({"lang": "rust", "series": "daemon", "rounds": rounds, "quick": quick,
            "records": records, "summary": summary});
        std::fs::write(&out, serde_json::to_string_pretty(&doc).unwrap()).expect("write out");
    }
}
