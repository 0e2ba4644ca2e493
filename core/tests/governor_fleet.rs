//! Fleet (SEMANTICS 13.12): several governor *processes* on one real PostgreSQL database
//! (tests/pg/mod.rs), 64 clients spread over them, bounded acquire/release pairs with random
//! estimates and actuals against a budget that runs out mid-way. Checked: reserved + spent
//! never above the budget and in-flight never above capacity (sampled from the database while
//! the load runs), one grant per idempotency key sent to every governor at once, the audit
//! chain verifies, the budget used equals what the audit says was settled (actuals of released
//! leases, reservations of expired ones), every grant a client got is in the audit exactly once.
//! Faults: kill -9 of one governor process mid-load (its leases expire and the others settle
//! them), PostgreSQL crash-restarted mid-load and stopped for 5 s (clients get clear
//! `store_unavailable` errors, retry with the same keys, no grant lost or duplicated, service
//! resumes).
//!
//! Sizes: `LEASEKIT_FLEET_PAIRS` (default 640 per run; `make soak` runs 20 000).
//! `leasekit serve` daemons are not on main yet: each governor is an embedded governor in a
//! child process (this test binary re-run as `fleet_child`).

mod pg;

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use leasekit::governor::store::{PostgresStore, Store};
use leasekit::governor::verify_audit;
use leasekit::governor::wire::*;
use leasekit::governor::{Governor, GovernorOptions, Policy};
use pg::TempPostgres;
use serde_json::{Value, json};

const CLIENTS: usize = 64;
const TTL_MS: u64 = 2500;

fn fleet_policy(budget: u64, capacity: u64) -> Policy {
    Policy::from_value(json!({
        "policyVersion": "fleet", "maxInFlight": capacity, "dailyBudgetCents": budget,
        "leaseTtlMs": TTL_MS, "maxRequestsPerMinute": 100_000_000u64,
        "maxTokensPerMinute": 100_000_000_000u64, "maxComputeUnits": 100_000,
        "retryThresholdPerLease": 100_000, "policyDenyCircuitBreakerThreshold": 100_000_000u64,
        "spendSpikeCents": 100_000_000u64, "toolLoopThreshold": 100_000
    }))
    .unwrap()
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
}

fn pairs_total() -> usize {
    std::env::var("LEASEKIT_FLEET_PAIRS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(640)
}

struct Log(Mutex<std::fs::File>);

impl Log {
    fn put(&self, v: Value) {
        let mut line = v.to_string();
        line.push('\n');
        let _ = self
            .0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .write_all(line.as_bytes());
    }
}

/// Retries a command on errors (the store down or restarting), bounded: 60 x 150 ms.
fn retry<T>(log: &Log, op: &str, mut f: impl FnMut() -> leasekit::Result<T>) -> Option<T> {
    for _ in 0..60 {
        match f() {
            Ok(v) => return Some(v),
            Err(e) => {
                log.put(json!({"t": "error", "op": op, "msg": e.message()}));
                std::thread::sleep(Duration::from_millis(150));
            }
        }
    }
    None
}

/// A child process: one governor, some clients. Does nothing unless run by a fleet test.
#[test]
fn fleet_child() {
    let Ok(cfg) = std::env::var("LEASEKIT_FLEET_CHILD") else {
        return;
    };
    let cfg: Value = serde_json::from_str(&cfg).unwrap();
    let url = cfg["url"].as_str().unwrap().to_string();
    let gov_no = cfg["gov"].as_u64().unwrap();
    let clients = cfg["clients"].as_u64().unwrap() as usize;
    let pairs = cfg["pairs"].as_u64().unwrap() as usize;
    let until = cfg["until"].as_u64().unwrap_or(u64::MAX);
    let dups = cfg["dups"].as_u64().unwrap();
    let log = Arc::new(Log(Mutex::new(
        std::fs::File::create(cfg["log"].as_str().unwrap()).unwrap(),
    )));
    let policy = fleet_policy(
        cfg["budget"].as_u64().unwrap(),
        cfg["capacity"].as_u64().unwrap(),
    );
    // Bounded retries: on a loaded machine the database may already be restarting (faults).
    let g = (0..100)
        .find_map(|_| {
            Governor::open(&url, policy.clone(), GovernorOptions::default())
                .map_err(|_| std::thread::sleep(Duration::from_millis(200)))
                .ok()
        })
        .expect("child governor");
    let start = cfg["start"].as_u64().unwrap();
    std::thread::sleep(Duration::from_millis(start.saturating_sub(now_ms())));
    // The same keys sent to every governor at the same moment.
    for n in 0..dups {
        let key = format!("dup-{n}");
        let req = AcquireRequest {
            actor_id: "dup-actor".into(),
            workspace_id: "w".into(),
            estimated_cost_cents: 1,
            idempotency_key: key.clone(),
            ..AcquireRequest::default()
        };
        if let Some(r) = retry(&log, "dup", || g.acquire(req.clone())) {
            log.put(
                json!({"t": "dup", "key": key, "granted": r.granted, "lease": r.lease_id,
                           "reason": r.denied_reason}),
            );
            if r.granted {
                let rel = ReleaseRequest {
                    lease_id: r.lease_id.clone(),
                    actual_cost_cents: 1,
                    idempotency_key: format!("rel-{key}"),
                    ..ReleaseRequest::default()
                };
                if let Some(x) = retry(&log, "dup-release", || g.release(rel.clone())) {
                    log.put(json!({"t": "release", "lease": r.lease_id, "actual": 1,
                                   "class": x.classification.as_str()}));
                }
            }
        }
    }
    let threads: Vec<_> = (0..clients)
        .map(|c| {
            let (g, log) = (g.clone(), log.clone());
            std::thread::spawn(move || {
                let mut seed = (gov_no * 1000 + c as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15);
                let mut rnd = |n: u64| {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    seed % n
                };
                for p in 0..pairs {
                    if now_ms() >= until {
                        break;
                    }
                    let key = format!("g{gov_no}-c{c}-p{p}");
                    let est = 1 + rnd(20);
                    let req = AcquireRequest {
                        actor_id: format!("a{gov_no}-{c}"),
                        workspace_id: "w".into(),
                        estimated_cost_cents: est,
                        idempotency_key: key.clone(),
                        ..AcquireRequest::default()
                    };
                    let Some(r) = retry(&log, "acquire", || g.acquire(req.clone())) else {
                        continue;
                    };
                    if !r.granted {
                        log.put(json!({"t": "deny", "reason": r.denied_reason}));
                        continue;
                    }
                    log.put(
                        json!({"t": "grant", "key": key, "lease": r.lease_id, "est": est,
                                   "at": now_ms()}),
                    );
                    let actual = rnd(est + 1);
                    let rel = ReleaseRequest {
                        lease_id: r.lease_id.clone(),
                        actual_cost_cents: actual,
                        idempotency_key: format!("rel-{key}"),
                        ..ReleaseRequest::default()
                    };
                    if let Some(x) = retry(&log, "release", || g.release(rel.clone())) {
                        log.put(
                            json!({"t": "release", "lease": r.lease_id, "actual": actual,
                                       "class": x.classification.as_str(), "at": now_ms()}),
                        );
                    }
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    log.put(json!({"t": "done"}));
}

struct Fleet {
    children: Vec<Child>,
    logs: Vec<PathBuf>,
    dir: PathBuf,
}

impl Drop for Fleet {
    fn drop(&mut self) {
        for c in &mut self.children {
            let _ = c.kill();
            let _ = c.wait();
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

#[allow(clippy::too_many_arguments)]
fn spawn_fleet(
    url: &str,
    govs: usize,
    pairs_per_client: usize,
    budget: u64,
    capacity: u64,
    dups: u64,
    until: Option<u64>,
    tag: &str,
) -> Fleet {
    let dir = std::env::temp_dir().join(format!("leasekit-fleet-{}-{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let start = now_ms() + 3000;
    let exe = std::env::current_exe().unwrap();
    let mut children = Vec::new();
    let mut logs = Vec::new();
    for g in 0..govs {
        let log = dir.join(format!("gov{g}.jsonl"));
        let clients = CLIENTS / govs + usize::from(g < CLIENTS % govs);
        let cfg = json!({"url": url, "gov": g, "clients": clients, "pairs": pairs_per_client,
                         "budget": budget, "capacity": capacity, "dups": dups, "start": start,
                         "until": until, "log": log});
        children.push(
            Command::new(&exe)
                .args(["fleet_child", "--exact", "--nocapture", "--test-threads=1"])
                .env("LEASEKIT_FLEET_CHILD", cfg.to_string())
                .stdout(std::process::Stdio::null())
                .spawn()
                .unwrap(),
        );
        logs.push(log);
    }
    Fleet {
        children,
        logs,
        dir,
    }
}

/// Samples the shared pools while the load runs: (max in-flight, max live lease rows, max
/// budget used).
struct Sampler {
    stop: Arc<AtomicBool>,
    handle: Option<std::thread::JoinHandle<(i64, i64, i64, usize)>>,
}

fn sample(url: &str) -> Sampler {
    let stop = Arc::new(AtomicBool::new(false));
    let (url, flag) = (url.to_string(), stop.clone());
    let handle = std::thread::spawn(move || {
        let (mut fl, mut live, mut used, mut n) = (0i64, 0i64, 0i64, 0usize);
        let mut client: Option<postgres::Client> = None;
        // Bounded: at most 10 minutes of 20 ms samples.
        for _ in 0..30_000 {
            if flag.load(Ordering::SeqCst) {
                break;
            }
            if client.as_ref().is_none_or(|c| c.is_closed()) {
                client = postgres::Client::connect(&url, postgres::NoTls).ok();
            }
            if let Some(c) = client.as_mut()
                && let Ok(r) = c.query_one(
                    "SELECT coalesce(in_flight, 0), coalesce(budget_used_cents, 0)::int8,
                            (SELECT count(*) FROM leasekit.leases WHERE status = 'live')
                     FROM leasekit.meta",
                    &[],
                )
            {
                fl = fl.max(r.get(0));
                used = used.max(r.get(1));
                live = live.max(r.get(2));
                n += 1;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        (fl, live, used, n)
    });
    Sampler {
        stop,
        handle: Some(handle),
    }
}

impl Sampler {
    fn finish(mut self) -> (i64, i64, i64, usize) {
        self.stop.store(true, Ordering::SeqCst);
        self.handle.take().unwrap().join().unwrap()
    }
}

fn wait_all(fleet: &mut Fleet, limit: Duration) {
    let t = Instant::now();
    for c in &mut fleet.children {
        loop {
            if c.try_wait().unwrap().is_some() {
                break;
            }
            assert!(
                t.elapsed() < limit,
                "a governor process did not finish in time"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

fn read_log(p: &Path) -> Vec<Value> {
    std::fs::read_to_string(p)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok()) // a killed process may leave half a line
        .collect()
}

struct Outcome {
    grants: usize,
    denies: usize,
    errors: Vec<String>,
}

/// Every check that holds after any run: pools drained, budget and totals, audit, grants.
fn verify(url: &str, logs: &[PathBuf], budget: u64, capacity: u64) -> Outcome {
    // A governor in this process sweeps what is left (leases of a killed governor).
    let g = Governor::open(
        url,
        fleet_policy(budget, capacity),
        GovernorOptions::default(),
    )
    .expect("verifier governor");
    std::thread::sleep(Duration::from_millis(TTL_MS + 200));
    let m = g.metrics().unwrap();
    let _ = m;
    let store = PostgresStore::open(url).unwrap();
    let lines = store.read_audit(1, u64::MAX).unwrap();
    let v = verify_audit(lines.iter().map(String::as_str));
    assert!(v.ok, "audit chain: {v:?}");
    let mut c = postgres::Client::connect(url, postgres::NoTls).unwrap();
    let r = c
        .query_one(
            "SELECT audit_count, in_flight, budget_used_cents::int8,
                    (SELECT count(*) FROM leasekit.leases WHERE status = 'live')
             FROM leasekit.meta",
            &[],
        )
        .unwrap();
    let (count, in_flight, used, live): (i64, i64, i64, i64) =
        (r.get(0), r.get(1), r.get(2), r.get(3));
    assert_eq!(count as usize, lines.len(), "audit head count = lines");
    assert_eq!((in_flight, live), (0, 0), "every lease released or expired");
    assert!(used as u64 <= budget, "spent {used} > budget {budget}");
    // From the audit: the grant per key, and what each lease settled.
    let mut reserved: BTreeMap<String, i64> = BTreeMap::new();
    let mut settled: BTreeMap<String, i64> = BTreeMap::new();
    let mut by_key: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for l in &lines {
        let rec: Value = serde_json::from_str(l).unwrap();
        let lease = rec["leaseId"].as_str().unwrap_or("").to_string();
        match rec["eventType"].as_str().unwrap_or("") {
            "lease_acquired" => {
                assert!(
                    reserved
                        .insert(lease.clone(), rec["reservedCents"].as_i64().unwrap())
                        .is_none(),
                    "lease {lease} granted twice"
                );
                let key = rec["idempotencyKey"].as_str().unwrap_or("");
                if !key.is_empty() {
                    by_key.entry(key.to_string()).or_default().insert(lease);
                }
            }
            "lease_released" => {
                settled.insert(lease, rec["actualCostCents"].as_i64().unwrap());
            }
            _ => {}
        }
    }
    for (k, leases) in &by_key {
        assert_eq!(leases.len(), 1, "key {k} granted {leases:?}");
    }
    let expected: i64 = reserved
        .iter()
        .map(|(id, r)| settled.get(id).copied().unwrap_or(*r))
        .sum();
    assert_eq!(
        used, expected,
        "budget used = actuals settled + expired reservations"
    );
    // What clients were told.
    let mut out = Outcome {
        grants: 0,
        denies: 0,
        errors: Vec::new(),
    };
    let mut dup_leases: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for p in logs {
        for e in read_log(p) {
            match e["t"].as_str().unwrap() {
                "grant" => {
                    out.grants += 1;
                    let lease = e["lease"].as_str().unwrap();
                    assert!(reserved.contains_key(lease), "grant {lease} lost");
                    let key = e["key"].as_str().unwrap();
                    assert!(by_key[key].contains(lease), "grant {lease} not under {key}");
                }
                "release" => {
                    let lease = e["lease"].as_str().unwrap();
                    assert_eq!(
                        settled.get(lease).copied(),
                        e["actual"].as_i64(),
                        "release of {lease} not settled as answered"
                    );
                }
                "dup" if e["granted"] == json!(true) => {
                    dup_leases
                        .entry(e["key"].as_str().unwrap().to_string())
                        .or_default()
                        .insert(e["lease"].as_str().unwrap().to_string());
                }
                "deny" | "dup" => out.denies += 1,
                "error" => out.errors.push(e["msg"].as_str().unwrap_or("").to_string()),
                _ => {}
            }
        }
    }
    for (k, leases) in &dup_leases {
        assert_eq!(
            leases.len(),
            1,
            "{k}: sent to every governor at once, granted {leases:?}"
        );
    }
    out
}

fn run_fleet(govs: usize) {
    let pg = TempPostgres::shared();
    let url = pg.fresh_db(&format!("fleet{govs}"));
    let pairs = pairs_total();
    let per_client = pairs.div_ceil(CLIENTS);
    // Estimates 1..=20 (mean 10.5), actuals 0..=estimate: about 5.7 cents settled per pair.
    // The budget covers about half of that: it runs out mid-way.
    let budget = (pairs as u64 * 57 / 10) / 2;
    let capacity = 40;
    let sampler = sample(&url);
    // One log directory per test (the tests of this binary run at the same time).
    let tag = format!("load{govs}");
    let mut fleet = spawn_fleet(&url, govs, per_client, budget, capacity, 10, None, &tag);
    wait_all(&mut fleet, Duration::from_secs(900));
    for c in &mut fleet.children {
        assert!(c.wait().unwrap().success(), "a governor process failed");
    }
    let (max_in_flight, max_live, max_used, samples) = sampler.finish();
    assert!(samples > 5, "sampled {samples} times");
    assert!(
        max_in_flight <= capacity as i64 && max_live <= capacity as i64,
        "in flight {max_in_flight}, live rows {max_live} > capacity {capacity}"
    );
    assert!(
        max_used as u64 <= budget,
        "used {max_used} > budget {budget}"
    );
    let out = verify(&url, &fleet.logs, budget, capacity);
    assert!(
        out.grants > 0 && out.denies > 0,
        "{} {}",
        out.grants,
        out.denies
    );
    assert!(
        out.errors.is_empty(),
        "errors without a fault: {:?}",
        out.errors
    );
    println!(
        "fleet of {govs}: {} grants, {} denials (budget {budget} ran out), max in flight \
         {max_in_flight}/{capacity}, max used {max_used}/{budget}, {samples} samples",
        out.grants, out.denies
    );
}

#[test]
fn fleet_of_two_governors_holds_the_invariants() {
    run_fleet(2);
}

#[test]
fn fleet_of_four_governors_holds_the_invariants() {
    run_fleet(4);
}

/// One load, three faults in turn: kill -9 of a governor process, a PostgreSQL crash restart
/// (`pg_ctl stop -m immediate` + start), PostgreSQL stopped for 5 s.
#[test]
fn fleet_survives_a_killed_governor_and_postgres_restarts() {
    // Its own server: restarting it must not disturb the other tests' databases.
    let pg = TempPostgres::start();
    let url = pg.fresh_db("faults");
    let (budget, capacity) = (1_000_000u64, 48u64);
    let t0 = now_ms();
    let until = t0 + 3000 + 15_000;
    let sampler = sample(&url);
    let mut fleet = spawn_fleet(&url, 3, 2000, budget, capacity, 0, Some(until), "faults");
    let at =
        |ms: u64| std::thread::sleep(Duration::from_millis((t0 + ms).saturating_sub(now_ms())));
    at(4500);
    fleet.children[0].kill().unwrap(); // SIGKILL
    fleet.children[0].wait().unwrap();
    let killed_at = now_ms();
    at(7000);
    pg.restart();
    let restarted_at = now_ms();
    at(10_000);
    pg.stop_server("fast");
    std::thread::sleep(Duration::from_secs(5));
    pg.start_server();
    let resumed_at = now_ms();
    wait_all(&mut fleet, Duration::from_secs(300));
    for c in &mut fleet.children[1..] {
        assert!(c.wait().unwrap().success(), "a surviving governor failed");
    }
    let (max_in_flight, max_live, _, _) = sampler.finish();
    assert!(max_in_flight <= capacity as i64 && max_live <= capacity as i64);
    let out = verify(&url, &fleet.logs, budget, capacity);
    // Clear, retryable errors while the database was away, and nothing else.
    assert!(!out.errors.is_empty(), "the faults were not felt");
    for e in &out.errors {
        assert!(e.starts_with("store_unavailable"), "unclear error: {e}");
    }
    // Service resumed after each fault: grants after the restart and after the stop.
    let grants_after = |t: u64| {
        fleet.logs[1..]
            .iter()
            .flat_map(|p| read_log(p))
            .filter(|e| e["t"] == json!("grant") && e["at"].as_u64().unwrap_or(0) > t)
            .count()
    };
    assert!(grants_after(killed_at) > 0, "no grant after the kill");
    assert!(grants_after(restarted_at) > 0, "no grant after the restart");
    assert!(grants_after(resumed_at) > 0, "no grant after the 5 s stop");
    // The killed governor's leases that were live expired and were settled by others.
    let killed: Vec<Value> = read_log(&fleet.logs[0]);
    let released: BTreeSet<String> = killed
        .iter()
        .filter(|e| e["t"] == json!("release"))
        .map(|e| e["lease"].as_str().unwrap().to_string())
        .collect();
    let orphans = killed
        .iter()
        .filter(|e| e["t"] == json!("grant"))
        .filter(|e| !released.contains(e["lease"].as_str().unwrap()))
        .count();
    println!(
        "faults: {} grants, {} errors (all store_unavailable), {orphans} leases of the killed \
         governor settled by expiry",
        out.grants,
        out.errors.len()
    );
}
