//! The commands of docs/operations.md through the real binary: `leasekit gov migrate` on a
//! real throwaway PostgreSQL server, and the SQLite backups (`sqlite3 .backup`, `VACUUM INTO`)
//! of a store a governor has open, verified with `leasekit audit verify`.

#[path = "../../core/tests/pg/mod.rs"]
mod pg;

use std::process::{Command as Std, Output};

use assert_cmd::Command;
use leasekit::governor::wire::AcquireRequest;
use leasekit::governor::{Governor, GovernorOptions, Policy};

fn leasekit(args: &[&str]) -> Output {
    Command::cargo_bin("leasekit")
        .unwrap()
        .args(args)
        .output()
        .unwrap()
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

#[test]
fn gov_migrate_reports_applies_once_and_refuses_a_newer_schema() {
    let pg = pg::TempPostgres::start();
    let url = pg.fresh_db("cli_migrate");
    let check = leasekit(&["gov", "migrate", "--check", "--store", &url]);
    assert_eq!(check.status.code(), Some(1), "{}", text(&check));
    assert!(
        text(&check).contains("schema version 0 of 2: migrations pending"),
        "{}",
        text(&check)
    );
    let run = leasekit(&["gov", "migrate", "--store", &url]);
    assert_eq!(run.status.code(), Some(0), "{}", text(&run));
    assert!(
        text(&run).contains("schema version 0 -> 2: migrated"),
        "{}",
        text(&run)
    );
    let again = leasekit(&["gov", "migrate", "--store", &url, "--format", "json"]);
    assert_eq!(again.status.code(), Some(0), "{}", text(&again));
    let v: serde_json::Value = serde_json::from_slice(&again.stdout).unwrap();
    assert_eq!(
        v,
        serde_json::json!({"before": 2, "after": 2, "latest": 2, "applied": false,
                           "pending": false})
    );
    let check = leasekit(&["gov", "migrate", "--check", "--store", &url]);
    assert_eq!(check.status.code(), Some(0), "{}", text(&check));
    // A governor opens the migrated schema.
    let policy = Policy::from_json(r#"{"maxInFlight": 2, "dailyBudgetCents": 10}"#).unwrap();
    drop(Governor::open(&url, policy, GovernorOptions::default()).unwrap());
    // Newer than this build: refused, nothing applied.
    let name = url.rsplit('/').next().unwrap();
    pg.client(name)
        .batch_execute("INSERT INTO leasekit.migrations (version, name) VALUES (3, 'future')")
        .unwrap();
    for args in [vec!["--check"], vec![]] {
        let mut a = vec!["gov", "migrate", "--store", &url];
        a.extend(args);
        let out = leasekit(&a);
        assert_eq!(out.status.code(), Some(2), "{}", text(&out));
        assert!(
            text(&out).contains("version 3, newer than this leasekit knows"),
            "{}",
            text(&out)
        );
    }
    // Not a PostgreSQL URL; a password never echoed.
    let out = leasekit(&["gov", "migrate", "--store", "/tmp/x.db"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let out = leasekit(&[
        "gov",
        "migrate",
        "--store",
        "postgres://u:hunter2@%2Fno-such-dir/db",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(!text(&out).contains("hunter2"), "{}", text(&out));
}

#[test]
fn sqlite_backups_of_an_open_store_verify() {
    let dir = std::env::temp_dir().join(format!("leasekit-backup-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join("governor.db").display().to_string();
    let policy = Policy::from_json(
        r#"{"maxInFlight": 100, "maxComputeUnits": 100, "dailyBudgetCents": 1000}"#,
    )
    .unwrap();
    let g = Governor::open(&db, policy, GovernorOptions::default()).unwrap();
    for i in 0..20 {
        let r = g
            .acquire(AcquireRequest {
                actor_id: format!("a{i}"),
                workspace_id: "w".into(),
                estimated_cost_cents: 1,
                ..AcquireRequest::default()
            })
            .unwrap();
        assert!(r.granted, "{r:?}");
    }
    let records = g.verify_audit().unwrap().records;
    // The governor still has the store open: the backups are taken while it runs.
    let copy = dir.join("backup.db").display().to_string();
    let compact = dir.join("backup-compact.db").display().to_string();
    for cmd in [
        format!(".backup '{copy}'"),
        format!("VACUUM INTO '{compact}'"),
    ] {
        let out = Std::new("sqlite3").arg(&db).arg(&cmd).output().unwrap();
        assert!(out.status.success(), "{cmd}: {}", text(&out));
    }
    for f in [&copy, &compact] {
        let out = leasekit(&["audit", "verify", f]);
        assert_eq!(out.status.code(), Some(0), "{f}: {}", text(&out));
        assert!(
            text(&out).contains(&format!("{records} records verify")),
            "{}",
            text(&out)
        );
    }
    drop(g);
    let _ = std::fs::remove_dir_all(&dir);
}
