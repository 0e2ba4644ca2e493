//! A fleet of real `leasekit serve --store postgres://...` daemons on one throwaway PostgreSQL
//! (SEMANTICS 13.12; the server is started by `core/tests/pg/mod.rs`, no mocks): clients spread
//! over two daemons share one budget and one audit chain, `leasekit gov status` shows the
//! shared store and both daemons, one idempotency key sent to both daemons at once is granted
//! once, a daemon killed with -9 has its lease settled by the other, and
//! `leasekit audit verify postgres://...` accepts the chain. The heavier fleet load and fault
//! tests (governor processes, PostgreSQL restarts) are `core/tests/governor_fleet.rs`.

mod daemon;
#[path = "../../core/tests/pg/mod.rs"]
mod pg;

use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use assert_cmd::Command;
use daemon::{Daemon, temp_dir};
use leasekit::governor::wire::{AcquireRequest, ReleaseRequest};
use serde_json::{Value, json};

const BUDGET: u64 = 2_000;

fn policy_file() -> std::path::PathBuf {
    let path = temp_dir("fleetpol").join("policy.json");
    let policy = json!({
        "policyVersion": "fleet", "maxInFlight": 8, "dailyBudgetCents": BUDGET,
        "leaseTtlMs": 1500, "maxRequestsPerMinute": 100_000_000u64,
        "maxTokensPerMinute": 100_000_000_000u64, "retryThresholdPerLease": 100_000,
        "policyDenyCircuitBreakerThreshold": 100_000_000u64,
        "spendSpikeCents": 100_000_000u64, "toolLoopThreshold": 100_000
    });
    std::fs::write(&path, policy.to_string()).unwrap();
    path
}

fn acquire(actor: &str, cents: u64, key: &str) -> AcquireRequest {
    AcquireRequest {
        actor_id: actor.into(),
        max_output_tokens: 50,
        estimated_cost_cents: cents,
        idempotency_key: key.into(),
        ..AcquireRequest::default()
    }
}

fn cli() -> Command {
    Command::cargo_bin("leasekit").unwrap()
}

fn status_json(d: &Daemon) -> Value {
    let out = cli()
        .args(["gov", "--socket"])
        .arg(&d.socket)
        .args(["status", "--format", "json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn daemons_on_one_postgres_share_budget_keys_and_chain() {
    let pg = pg::TempPostgres::start();
    let url = pg.fresh_db("fleetd");
    let policy = policy_file();
    let args = [
        "--store",
        url.as_str(),
        "--policy",
        policy.to_str().unwrap(),
    ];
    let mut d1 = Daemon::start(&args);
    let d2 = Daemon::start(&args);

    // The operator view: the shared store and both daemons.
    let text = cli()
        .args(["gov", "--socket"])
        .arg(&d1.socket)
        .arg("status")
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(
        text.contains("postgresql") && text.contains("shared"),
        "{text}"
    );
    assert!(text.contains("connected governors 2"), "{text}");
    assert!(!text.contains("password"), "{text}");
    let s = status_json(&d2);
    assert_eq!(s["connectedGovernors"].as_array().unwrap().len(), 2, "{s}");

    let sockets = [d1.socket.clone(), d2.socket.clone()];
    // One idempotency key sent to both daemons at the same moment: one grant.
    let barrier = Arc::new(Barrier::new(2));
    let answers: Vec<_> = sockets
        .iter()
        .map(|socket| {
            let (socket, barrier) = (socket.clone(), barrier.clone());
            std::thread::spawn(move || {
                let c = leasekit::governor::client::GovernorClient::connect(&socket);
                barrier.wait();
                c.acquire(acquire("fleet", 1, "same-key")).unwrap()
            })
        })
        .collect::<Vec<_>>()
        .into_iter()
        .map(|t| t.join().unwrap())
        .collect();
    assert!(answers[0].granted && answers[1].granted, "{answers:?}");
    assert_eq!(answers[0].lease_id, answers[1].lease_id, "{answers:?}");
    let grant_id = answers[0].lease_id.clone();
    d1.client()
        .release(ReleaseRequest {
            lease_id: grant_id,
            actual_cost_cents: 1,
            ..ReleaseRequest::default()
        })
        .unwrap();

    // A lease held through a daemon killed with -9 is settled by the other one's sweep.
    let held = d1.client().acquire(acquire("fleet", 1, "held")).unwrap();
    assert!(held.granted, "{held:?}");
    assert_eq!(status_json(&d2)["activeLeases"], 1);
    d1.kill9();
    let deadline = Instant::now() + Duration::from_secs(20);
    while status_json(&d2)["activeLeases"].as_u64().unwrap() != 0 {
        assert!(
            Instant::now() < deadline,
            "the killed daemon's lease was never settled"
        );
        std::thread::sleep(Duration::from_millis(100));
    }

    // Restarted, it joins again.
    d1.restart();
    assert_eq!(
        status_json(&d1)["connectedGovernors"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    let spent_before = status_json(&d2)["spendTodayCents"].as_u64().unwrap();
    assert_eq!(
        spent_before, 2,
        "one settled release and one expired reservation of 1 cent"
    );

    // Load over both daemons until the budget runs out: 8 clients x 40 pairs, estimates
    // 10-49 cents, actuals at most the estimate.
    let mut threads = Vec::new();
    for t in 0..8u64 {
        let socket = sockets[(t % 2) as usize].clone();
        threads.push(std::thread::spawn(move || {
            let c = leasekit::governor::client::GovernorClient::connect(&socket);
            let (mut granted, mut spent) = (0u64, 0u64);
            for i in 0..40u64 {
                let est = 10 + (t * 7 + i * 13) % 40;
                let g = c
                    .acquire(acquire("fleet", est, &format!("k-{t}-{i}")))
                    .unwrap();
                if !g.granted {
                    continue;
                }
                granted += 1;
                let actual = est - (i % 3);
                let r = c
                    .release(ReleaseRequest {
                        lease_id: g.lease_id,
                        actual_cost_cents: actual,
                        ..ReleaseRequest::default()
                    })
                    .unwrap();
                assert_eq!(serde_json::to_value(r.classification).unwrap(), "recorded");
                spent += actual;
            }
            (granted, spent)
        }));
    }
    let (mut granted, mut spent) = (0, 0);
    for t in threads {
        let (g, s) = t.join().unwrap();
        granted += g;
        spent += s;
    }
    assert!(granted > 0);
    // 320 pairs of 10-49 cents ask for more than the budget: it ran out, and the daemons
    // together never let more than the budget be spent.
    let s1 = status_json(&d1);
    let s2 = status_json(&d2);
    assert_eq!(s1["spendTodayCents"], s2["spendTodayCents"]);
    let total = spent_before + spent;
    assert_eq!(s1["spendTodayCents"].as_u64().unwrap(), total, "{s1}");
    assert!(total <= BUDGET, "spent {total} of {BUDGET}");
    assert!(
        total + 50 > BUDGET,
        "the budget should have run out: {total}"
    );
    assert_eq!(s1["activeLeases"], 0);

    // The shared chain verifies.
    cli().args(["audit", "verify", &url]).assert().success();
}
