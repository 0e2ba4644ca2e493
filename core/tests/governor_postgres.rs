//! The PostgreSQL store on a real throwaway server (tests/pg/mod.rs): migrations safe when
//! governors start at once, state kept across a reopen, governors on one database sharing
//! pools, idempotency records and one linear audit chain, numeric money mirrors, refused
//! URLs and blind writes.

mod pg;

use std::sync::{Arc, Barrier};

use leasekit::governor::engine::IdSource;
use leasekit::governor::store::{Batch, PostgresStore, Store};
use leasekit::governor::wire::*;
use leasekit::governor::{Governor, GovernorOptions, Policy};
use leasekit::{ErrorCode, SystemClock};
use pg::TempPostgres;
use serde_json::json;

fn policy(max_in_flight: u64, budget: u64) -> Policy {
    Policy::from_value(json!({
        "policyVersion": "fleet-test", "maxInFlight": max_in_flight,
        "dailyBudgetCents": budget, "maxRequestsPerMinute": 100000,
        "maxTokensPerMinute": 100000000, "maxComputeUnits": 1000
    }))
    .unwrap()
}

fn open(url: &str, p: Policy) -> Governor {
    Governor::new(
        p,
        GovernorOptions::default(),
        Arc::new(PostgresStore::open(url).expect("open store")),
        Arc::new(SystemClock),
        IdSource::Random,
    )
    .expect("open governor")
}

fn acq(actor: &str, cents: u64, key: &str) -> AcquireRequest {
    AcquireRequest {
        actor_id: actor.into(),
        workspace_id: "w".into(),
        estimated_cost_cents: cents,
        idempotency_key: key.into(),
        ..AcquireRequest::default()
    }
}

fn shared_pg() -> Arc<TempPostgres> {
    TempPostgres::shared()
}

#[test]
fn governors_starting_at_once_migrate_once_and_share_one_state() {
    let pg = shared_pg();
    let url = pg.fresh_db("start");
    let barrier = Arc::new(Barrier::new(4));
    let govs: Vec<Governor> = (0..4)
        .map(|_| {
            let (url, b) = (url.clone(), barrier.clone());
            std::thread::spawn(move || {
                b.wait();
                open(&url, policy(3, 1000))
            })
        })
        .collect::<Vec<_>>()
        .into_iter()
        .map(|h| h.join().expect("governor thread"))
        .collect();
    let mut c = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    let row = c
        .query_one(
            "SELECT count(*), count(DISTINCT version), max(version) FROM leasekit.migrations",
            &[],
        )
        .unwrap();
    let (n, distinct, max): (i64, i64, i64) = (row.get(0), row.get(1), row.get(2));
    assert_eq!((n, distinct, max), (2, 2, 2), "each migration applied once");
    // One policy activation recorded, one audit chain.
    let v = govs[3].verify_audit().unwrap();
    assert!(v.ok, "{v:?}");
    // Capacity 3 is shared by the four governors.
    let granted: Vec<bool> = (0..4)
        .map(|i| {
            govs[i]
                .acquire(acq(&format!("a{i}"), 1, ""))
                .unwrap()
                .granted
        })
        .collect();
    assert_eq!(granted, vec![true, true, true, false]);
    let denied = govs[0].acquire(acq("z", 1, "")).unwrap();
    assert_eq!(denied.denied_reason, "concurrency_limit_reached");
    let in_flight: i64 = c
        .query_one("SELECT in_flight FROM leasekit.meta", &[])
        .unwrap()
        .get(0);
    assert_eq!(in_flight, 3);
}

#[test]
fn state_survives_a_reopen_and_money_is_numeric() {
    let pg = shared_pg();
    let url = pg.fresh_db("reopen");
    let g = open(&url, policy(4, 500));
    let a = g.acquire(acq("a", 120, "k1")).unwrap();
    assert!(a.granted);
    let r = g
        .release(ReleaseRequest {
            lease_id: a.lease_id.clone(),
            actual_cost_cents: 77,
            // Keyed, so the released lease is kept (for a replay) and its row can be read.
            idempotency_key: "r1".into(),
            ..ReleaseRequest::default()
        })
        .unwrap();
    assert_eq!(r.classification, ReleaseClassification::Recorded, "{r:?}");
    drop(g);
    // A reopen with another policy keeps the stored one and the spend.
    let g = open(&url, policy(1, 99999));
    assert_eq!(
        g.with_engine(|e| e.policy().version().to_string()),
        "fleet-test"
    );
    assert_eq!(g.with_engine(|e| e.state().meta.pools.budget_used), 77);
    let replay = g.acquire(acq("a", 120, "k1")).unwrap();
    assert_eq!(replay.lease_id, a.lease_id, "the stored grant is replayed");
    let mut c = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    let row = c
        .query_one(
            "SELECT pg_typeof(settled_cents)::text, settled_cents::text, reserved_cents::text,
                    status FROM leasekit.leases WHERE id = $1",
            &[&a.lease_id],
        )
        .unwrap();
    let (ty, settled, reserved, status): (String, String, String, String) =
        (row.get(0), row.get(1), row.get(2), row.get(3));
    assert_eq!(
        (
            ty.as_str(),
            settled.as_str(),
            reserved.as_str(),
            status.as_str()
        ),
        ("numeric", "77", "120", "released")
    );
    let used: String = c
        .query_one("SELECT budget_used_cents::text FROM leasekit.meta", &[])
        .unwrap()
        .get(0);
    assert_eq!(used, "77");
    assert!(g.verify_audit().unwrap().ok);
}

#[test]
fn one_grant_per_key_sent_to_two_governors_at_once() {
    let pg = shared_pg();
    let url = pg.fresh_db("idem");
    let (g1, g2) = (
        open(&url, policy(64, 100000)),
        open(&url, policy(64, 100000)),
    );
    for round in 0..20 {
        let key = format!("key-{round}");
        let b = Arc::new(Barrier::new(2));
        let hs: Vec<_> = [g1.clone(), g2.clone()]
            .into_iter()
            .map(|g| {
                let (b, key) = (b.clone(), key.clone());
                std::thread::spawn(move || {
                    b.wait();
                    g.acquire(acq("same-actor", 3, &key)).unwrap()
                })
            })
            .collect();
        let rs: Vec<AcquireResponse> = hs.into_iter().map(|h| h.join().unwrap()).collect();
        assert!(rs[0].granted && rs[1].granted, "{rs:?}");
        assert_eq!(rs[0].lease_id, rs[1].lease_id, "round {round}: one grant");
    }
    let mut c = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    let n: i64 = c
        .query_one(
            "SELECT count(*) FROM leasekit.leases WHERE body IS NOT NULL",
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(n, 20, "twenty leases for twenty keys");
    let used = g2.with_engine(|e| e.state().meta.pools.budget_used);
    let _ = g2.metrics().unwrap();
    assert_eq!(
        g2.with_engine(|e| e.state().meta.pools.budget_used),
        60.max(used)
    );
    // The audit chain is one line per event, linear, verified from either governor.
    let v1 = g1.verify_audit().unwrap();
    let v2 = g2.verify_audit().unwrap();
    assert!(v1.ok && v2.ok);
    assert_eq!(v1.records, v2.records);
    let (count, lines): (i64, i64) = {
        let r = c
            .query_one(
                "SELECT audit_count, (SELECT count(*) FROM leasekit.audit) FROM leasekit.meta",
                &[],
            )
            .unwrap();
        (r.get(0), r.get(1))
    };
    assert_eq!(count, lines);
    assert_eq!(count as u64, v1.records);
}

#[test]
fn urls_are_checked_without_echoing_secrets_and_blind_writes_are_refused() {
    let e = PostgresStore::open("mysql://x").unwrap_err();
    assert_eq!(e.code(), ErrorCode::InvalidRequest);
    let e = PostgresStore::open("postgres://u:s3cret@%2Fnonexistent-dir/db").unwrap_err();
    assert!(!e.message().contains("s3cret"), "{e}");
    assert!(e.message().starts_with("store_unavailable"), "{e}");
    let pg = shared_pg();
    let url = pg.fresh_db("blind");
    let store = PostgresStore::open(&url).unwrap();
    assert!(store.shared());
    assert!(store.commit(Batch::default()).is_err());
    assert!(!store.path().contains("s3cret"));
    assert!(
        store.path().starts_with("postgres://postgres@"),
        "{}",
        store.path()
    );
    assert_eq!(store.schema_version().unwrap(), 2);
    let g = Governor::open(&url, policy(2, 100), GovernorOptions::default()).unwrap();
    assert!(g.acquire(acq("a", 1, "")).unwrap().granted);
    let names = store.connected_governors().unwrap();
    assert!(
        names.len() >= 2 && names[0].application_name.starts_with("leasekit-governor "),
        "{names:?}"
    );
}

#[test]
fn embedded_open_takes_a_postgres_url_as_every_binding_does() {
    let pg = shared_pg();
    let url = pg.fresh_db("embedded_open");
    let policy = r#"{"policyVersion": "bound", "dailyBudgetCents": 100}"#;
    let a = leasekit::governor::open::EmbeddedGovernor::open(&url, policy, "").unwrap();
    let b = leasekit::governor::open::EmbeddedGovernor::open(&url, policy, "").unwrap();
    let grant: serde_json::Value = serde_json::from_str(
        &a.governor()
            .call_json("Acquire", r#"{"actorId":"x","estimatedCostCents":60}"#)
            .unwrap(),
    )
    .unwrap();
    assert_eq!(grant["granted"], true, "{grant}");
    // The second governor sees the first one's reservation: 60 + 60 > 100.
    let second: serde_json::Value = serde_json::from_str(
        &b.governor()
            .call_json("Acquire", r#"{"actorId":"y","estimatedCostCents":60}"#)
            .unwrap(),
    )
    .unwrap();
    assert_eq!(second["granted"], false, "{second}");
    let status = b.governor().status().unwrap();
    assert_eq!(status.connected_governors.map(|g| g.len()), Some(2));
    let e = leasekit::governor::open::EmbeddedGovernor::open(&url, "", r#"{"synchronous":"full"}"#)
        .unwrap_err();
    assert_eq!(e.code(), ErrorCode::InvalidRequest);
}

#[test]
fn begin_batch_answers_only_what_changed_since_the_version_seen() {
    let pg = shared_pg();
    let url = pg.fresh_db("begin_batch");
    let g = open(&url, policy(5, 1000));
    assert!(g.acquire(acq("a", 10, "")).unwrap().granted);
    let mut c = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    let ver: i64 = c
        .query_one("SELECT ver FROM leasekit.meta WHERE id = 1", &[])
        .unwrap()
        .get(0);
    let kinds = |c: &mut postgres::Client, seen: Option<i64>| -> Vec<i16> {
        let mut tx = c.transaction().unwrap();
        let rows = tx
            .query(
                "SELECT kind FROM leasekit.begin_batch($1) ORDER BY kind, rkey",
                &[&seen],
            )
            .unwrap();
        tx.rollback().unwrap();
        rows.iter().map(|r| r.get(0)).collect()
    };
    // Up to date: the header only (version, purge mark, audit count, fresh flag; head).
    assert_eq!(kinds(&mut c, Some(ver)), vec![-1]);
    // One version behind: header, meta body and the lease written by the last batch.
    let behind = kinds(&mut c, Some(ver - 1));
    assert_eq!(&behind[..2], &[-2, -1], "{behind:?}");
    assert!(behind[2..].contains(&0), "{behind:?}");
    // Never seen: header and meta only (the caller reloads everything).
    assert_eq!(kinds(&mut c, None), vec![-2, -1]);
    let mut tx = c.transaction().unwrap();
    let header: String = tx
        .query_one(
            "SELECT rkey FROM leasekit.begin_batch($1) WHERE kind = -1",
            &[&Some(ver)],
        )
        .unwrap()
        .get(0);
    tx.rollback().unwrap();
    let fields: Vec<&str> = header.split(' ').collect();
    assert_eq!(fields.len(), 4, "{header}");
    assert_eq!(fields[0], ver.to_string());
    assert_eq!(fields[3], "0", "a stored state is not fresh: {header}");
}

/// `command` as daemon peer `uid` (not an admin): the response payload.
fn as_peer(g: &Governor, uid: u32, command: &str, payload: serde_json::Value) -> serde_json::Value {
    let env = g.handle_as(
        leasekit::governor::Peer { uid, admin: false },
        command,
        &payload.to_string(),
    );
    assert!(env.success, "{command}: {env:?}");
    serde_json::from_str(&env.payload_json).unwrap()
}

#[test]
fn peers_of_other_uids_are_isolated_on_a_shared_store() {
    let pg = shared_pg();
    let url = pg.fresh_db("peers");
    let p = Policy::from_value(json!({
        "toolRegistry": [{"toolId": "t", "category": "other"}],
        "allowedModels": ["good"], "policyDenyCircuitBreakerThreshold": 2,
        "retryThresholdPerLease": 100, "safetyCooldownMs": 60000,
        "uidBindings": {
            "1000": {"orgIds": ["*"], "workspaceIds": ["*"], "actorIds": ["alice"]},
            "1001": {"orgIds": ["*"], "workspaceIds": ["*"], "actorIds": ["mallory"]},
            "1002": {"orgIds": ["*"], "workspaceIds": ["*"], "actorIds": ["*"]}
        }
    }))
    .unwrap();
    let (g1, g2) = (open(&url, p.clone()), open(&url, p));
    let (alice, mallory) = (1000, 1001);
    let req = json!({"actorId": "alice", "workspaceId": "w", "modelId": "good",
        "estimatedCostCents": 2, "idempotencyKey": "k",
        "requestedTools": [{"toolId": "t"}], "requestedLease": {"fs.read": ["/data/**"]}});
    let grant = as_peer(&g1, alice, "Acquire", req.clone());
    assert_eq!(grant["granted"], true, "{grant}");
    let id = grant["leaseId"].as_str().unwrap().to_string();
    let sub = as_peer(
        &g1,
        alice,
        "RequestToolSubLease",
        json!({"leaseId": id, "toolId": "t"}),
    );
    assert_eq!(sub["granted"], true, "{sub}");

    // Another uid, through either governor of the fleet: the lease does not exist for it.
    let mut carol_grant = None;
    for g in [&g1, &g2] {
        let r = as_peer(g, mallory, "Release", json!({"leaseId": id}));
        assert_eq!(r["classification"], "leaseNotFound", "{r}");
        let s = as_peer(
            g,
            mallory,
            "RequestToolSubLease",
            json!({"leaseId": id, "toolId": "t"}),
        );
        assert_eq!(s["deniedReason"], "lease_not_found", "{s}");
        let a = as_peer(
            g,
            mallory,
            "Authorize",
            json!({"leaseId": id, "capability": "fs.read", "target": "/data/x"}),
        );
        assert_eq!(a["deniedReason"], "lease_not_found", "{a}");
        let x = as_peer(
            g,
            mallory,
            "ExecuteToolCall",
            json!({"leaseId": id, "toolSubLeaseId": sub["toolSubLeaseId"], "toolId": "t"}),
        );
        assert_eq!(x["deniedReason"], "tool_sublease_not_found", "{x}");
        // Alice's key and request from Mallory: her actor id is not bound to Mallory's uid.
        let other = as_peer(g, mallory, "Acquire", req.clone());
        assert_eq!(other["deniedReason"], "identity_not_bound", "{other}");
        // From uid 1002, bound to every id: a grant of its own, not a replay of Alice's; and
        // replayed to 1002 by the other governor.
        let carol = as_peer(g, 1002, "Acquire", req.clone());
        assert_eq!(carol["granted"], true, "{carol}");
        assert_ne!(carol["leaseId"], grant["leaseId"], "{carol}");
        let first = carol_grant.get_or_insert_with(|| carol["leaseId"].clone());
        assert_eq!(*first, carol["leaseId"]);
    }
    // Mallory's own policy denials trip only Mallory's breaker on the workspace.
    for _ in 0..2 {
        let d = as_peer(
            &g2,
            mallory,
            "Acquire",
            json!({"actorId": "mallory", "workspaceId": "w", "modelId": "bad"}),
        );
        assert_eq!(d["deniedReason"], "model_not_allowed", "{d}");
    }
    let d = as_peer(
        &g1,
        mallory,
        "Acquire",
        json!({"actorId": "mallory", "workspaceId": "w", "modelId": "good"}),
    );
    assert_eq!(d["deniedReason"], "workspace_circuit_breaker", "{d}");
    let a = as_peer(
        &g2,
        alice,
        "Acquire",
        json!({"actorId": "alice", "workspaceId": "w", "modelId": "good"}),
    );
    assert_eq!(a["granted"], true, "{a}");
    // The owner replays and releases through the other governor.
    let again = as_peer(&g2, alice, "Acquire", req);
    assert_eq!(again["leaseId"], grant["leaseId"]);
    let auth = as_peer(
        &g2,
        alice,
        "Authorize",
        json!({"leaseId": id, "capability": "fs.read", "target": "/data/x"}),
    );
    assert_eq!(auth["allowed"], true, "{auth}");
    let r = as_peer(
        &g2,
        alice,
        "Release",
        json!({"leaseId": id, "actualCostCents": 1}),
    );
    assert_eq!(r["classification"], "recorded", "{r}");
}
