//! The least-privilege roles of docs/operations.md (its SQL, run as written) on a real
//! throwaway server: the runtime role cannot migrate (a clear error naming `leasekit gov
//! migrate`), the owner migrates, then the runtime role runs a governor but cannot create,
//! alter or drop anything; a schema newer than the build is refused.

mod pg;

use leasekit::governor::store::PostgresStore;
use leasekit::governor::wire::{AcquireRequest, ReleaseRequest};
use leasekit::governor::{Governor, GovernorOptions, Policy};
use pg::TempPostgres;

/// The SQL block between the `roles-sql` markers of docs/operations.md.
fn roles_sql() -> String {
    let doc = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../docs/operations.md"
    ))
    .unwrap();
    let start = doc.find("<!-- roles-sql").expect("roles-sql marker");
    let end = doc.find("<!-- /roles-sql -->").expect("end marker");
    let block = &doc[start..end];
    let body = block.split("```sql").nth(1).expect("sql block");
    body.split("```").next().unwrap().to_string()
}

fn url_as(pg: &TempPostgres, role: &str) -> String {
    pg.url("leasekit")
        .replacen("postgres://postgres@", &format!("postgres://{role}@"), 1)
}

fn policy() -> Policy {
    Policy::from_json(r#"{"maxInFlight": 4, "dailyBudgetCents": 100}"#).unwrap()
}

#[test]
fn the_runtime_role_runs_a_governor_and_can_change_no_schema() {
    let pg = TempPostgres::start();
    pg.client("postgres")
        .batch_execute("CREATE DATABASE leasekit")
        .unwrap();
    pg.client("leasekit").batch_execute(&roles_sql()).unwrap();
    let (owner, runtime) = (
        url_as(&pg, "leasekit_owner"),
        url_as(&pg, "leasekit_runtime"),
    );

    // Before any migration the runtime role may not create the schema: a clear refusal.
    let e = Governor::open(&runtime, policy(), GovernorOptions::default()).unwrap_err();
    assert!(
        e.message().contains("leasekit gov migrate") && e.message().contains("version 0"),
        "{e:?}"
    );
    // The owner migrates (no CREATE on the database needed: the schema is its own).
    let m = PostgresStore::migrate_schema(&owner, true).unwrap();
    assert_eq!((m.before, m.after), (0, m.latest));
    assert!(m.latest >= 2);
    let again = PostgresStore::migrate_schema(&owner, true).unwrap();
    assert_eq!(
        (again.before, again.after),
        (m.latest, m.latest),
        "idempotent"
    );

    // The runtime role runs a governor: decisions, release, durability wait, audit.
    let g = Governor::open(&runtime, policy(), GovernorOptions::default()).expect("runtime open");
    let r = g
        .acquire(AcquireRequest {
            actor_id: "a".into(),
            workspace_id: "w".into(),
            estimated_cost_cents: 5,
            ..AcquireRequest::default()
        })
        .unwrap();
    assert!(r.granted, "{r:?}");
    g.release(ReleaseRequest {
        lease_id: r.lease_id.clone(),
        actual_cost_cents: 3,
        ..ReleaseRequest::default()
    })
    .unwrap();
    let st = g.status().unwrap();
    assert_eq!((st.active_leases, st.spend_today_cents), (0, 3), "{st:?}");
    assert!(g.verify_audit().unwrap().ok);
    drop(g);

    // ...and can change no schema.
    let mut rt = postgres::Client::connect(
        &format!(
            "host={} user=leasekit_runtime dbname=leasekit",
            pg.socket_dir().display()
        ),
        postgres::NoTls,
    )
    .unwrap();
    for sql in [
        "DROP TABLE leasekit.audit",
        "CREATE TABLE leasekit.x (a int)",
        "ALTER TABLE leasekit.leases ADD COLUMN x int",
        "TRUNCATE leasekit.audit",
        "CREATE TABLE public.x (a int)",
        "DROP FUNCTION leasekit.begin_batch(bigint)",
    ] {
        let e = rt.batch_execute(sql).expect_err(sql);
        assert_eq!(
            e.code(),
            Some(&postgres::error::SqlState::INSUFFICIENT_PRIVILEGE),
            "{sql}: {e:?}"
        );
    }

    // A schema newer than this build: the governor and the migration refuse it.
    pg.client("leasekit")
        .batch_execute("INSERT INTO leasekit.migrations (version, name) VALUES (99, 'future')")
        .unwrap();
    let e = Governor::open(&runtime, policy(), GovernorOptions::default()).unwrap_err();
    assert!(e.message().contains("newer"), "{e:?}");
    let e = PostgresStore::migrate_schema(&owner, true).unwrap_err();
    assert!(e.message().contains("version 99"), "{e:?}");
}
