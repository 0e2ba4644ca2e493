//! `leasekit audit verify postgres://...` on a real throwaway PostgreSQL server: a fleet's
//! shared chain verifies; a tampered line is named (exit 1); no password in any output.

#[path = "../../core/tests/pg/mod.rs"]
mod pg;

use assert_cmd::Command;
use leasekit::governor::wire::AcquireRequest;
use leasekit::governor::{Governor, GovernorOptions, Policy};

#[test]
fn verifies_the_shared_chain_and_names_a_tampered_line() {
    let pg = pg::TempPostgres::start();
    let url = pg.fresh_db("cli_audit");
    let policy = Policy::from_json(r#"{"maxInFlight": 8, "dailyBudgetCents": 1000}"#).unwrap();
    let (g1, g2) = (
        Governor::open(&url, policy.clone(), GovernorOptions::default()).unwrap(),
        Governor::open(&url, policy, GovernorOptions::default()).unwrap(),
    );
    for i in 0..3 {
        for g in [&g1, &g2] {
            let r = g
                .acquire(AcquireRequest {
                    actor_id: format!("a{i}"),
                    workspace_id: "w".into(),
                    estimated_cost_cents: 5,
                    ..AcquireRequest::default()
                })
                .unwrap();
            assert!(r.granted);
        }
    }
    let records = g1.verify_audit().unwrap().records;
    let out = Command::cargo_bin("leasekit")
        .unwrap()
        .args(["audit", "verify", &url])
        .assert()
        .success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    assert!(
        text.contains(&format!("{records} records verify")),
        "{text}"
    );
    // Tamper with line 3 in the database.
    let name = url.rsplit('/').next().unwrap();
    pg.client(name)
        .batch_execute(
            "UPDATE leasekit.audit SET body = replace(body, '\"a1\"', '\"a9\"') WHERE line = 3",
        )
        .unwrap();
    let out = Command::cargo_bin("leasekit")
        .unwrap()
        .args(["audit", "verify", &url, "--format", "json"])
        .assert()
        .code(1);
    let v: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(v["ok"], false);
    assert_eq!(v["line"], 3, "{v}");
    // A URL with a password that cannot be reached: a clear error, the password not echoed.
    let out = Command::cargo_bin("leasekit")
        .unwrap()
        .args(["audit", "verify", "postgres://u:hunter2@%2Fno-such-dir/db"])
        .assert()
        .code(2);
    let err = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(
        err.contains("store_unavailable") && !err.contains("hunter2"),
        "{err}"
    );
}

#[test]
fn a_deleted_last_row_fails_and_export_writes_a_chain_that_verifies() {
    let pg = pg::TempPostgres::start();
    let url = pg.fresh_db("cli_audit_head");
    let policy = Policy::from_json(r#"{"maxInFlight": 8, "dailyBudgetCents": 1000}"#).unwrap();
    let g = Governor::open(&url, policy, GovernorOptions::default()).unwrap();
    for i in 0..4 {
        let r = g
            .acquire(AcquireRequest {
                actor_id: format!("a{i}"),
                workspace_id: "w".into(),
                estimated_cost_cents: 5,
                ..AcquireRequest::default()
            })
            .unwrap();
        assert!(r.granted);
    }
    // Export while the governor holds its connection: a read-only snapshot beside it.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("chain.jsonl");
    Command::cargo_bin("leasekit")
        .unwrap()
        .args(["audit", "export", "--store", &url, file.to_str().unwrap()])
        .assert()
        .success();
    let out = Command::cargo_bin("leasekit")
        .unwrap()
        .args(["audit", "verify", file.to_str().unwrap()])
        .assert()
        .success();
    assert!(String::from_utf8_lossy(&out.get_output().stdout).contains("4 records verify"));
    // The last row deleted: what is left links and recomputes, but the store's recorded head
    // and count say line 4 is missing.
    let name = url.rsplit('/').next().unwrap();
    pg.client(name)
        .batch_execute("DELETE FROM leasekit.audit WHERE line = 4")
        .unwrap();
    let out = Command::cargo_bin("leasekit")
        .unwrap()
        .args(["audit", "verify", &url, "--format", "json"])
        .assert()
        .code(1);
    let v: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(v["line"], 4, "{v}");
    assert!(v["message"].as_str().unwrap().contains("missing"), "{v}");
    // So does the governor's own VerifyAudit.
    let v = g.verify_audit().unwrap();
    assert_eq!((v.ok, v.first_bad_line), (false, Some(4)), "{v:?}");
}
