//! The PostgreSQL store's schema (schema `leasekit`) and its versioned migrations.
//!
//! Migrations run at every open inside one transaction that first takes a transaction-scoped
//! advisory lock, so two governors starting at once apply each step exactly once (the lock
//! is taken at startup only, never on the hot path). A database migrated by a newer leasekit
//! is refused.

use ::postgres::Client;

use super::postgres::pg_err;

/// Advisory lock key of the migration step (`leasekit` in ASCII, as a number).
const MIGRATION_LOCK: i64 = 0x6c65_6173_656b_6974;

/// Migrations, in order: (version, name, SQL).
pub(crate) const MIGRATIONS: &[(i64, &str, &str)] = &[(1, "governor state", V1)];

/// Version 1: the meta row (pools, counters, policy, the audit chain head: one row, so the
/// chain stays linear across governors), leases, approvals, idempotency records (one row per
/// scoped key: the primary key is the unique constraint), rate-window events, the audit lines. Every row carries
/// the version (`ver`) of the transaction that last wrote it, so a governor fetches only what
/// changed since it last looked; a deleted row stays as a tombstone (`body` NULL) until a
/// purge that every governor either has seen or detects (`purged_ver`). Money mirrors
/// (`*_cents`) are `numeric`; the JSON `body` is the engine's exact row.
const V1: &str = "
CREATE TABLE leasekit.meta (
    id integer PRIMARY KEY CHECK (id = 1),
    ver bigint NOT NULL DEFAULT 0,
    purged_ver bigint NOT NULL DEFAULT 0,
    body text,
    audit_count bigint NOT NULL DEFAULT 0,
    audit_head text NOT NULL DEFAULT repeat('0', 64),
    budget_day bigint,
    budget_used_cents numeric(20, 0),
    in_flight bigint,
    updated_at timestamptz NOT NULL DEFAULT now()
);
INSERT INTO leasekit.meta (id) VALUES (1);
CREATE TABLE leasekit.leases (
    id text PRIMARY KEY,
    ver bigint NOT NULL,
    body text,
    status text,
    reserved_cents numeric(20, 0),
    settled_cents numeric(20, 0),
    expires_at timestamptz,
    actor_id text
);
CREATE INDEX leases_ver ON leasekit.leases (ver);
CREATE TABLE leasekit.approvals (
    id text PRIMARY KEY,
    ver bigint NOT NULL,
    body text
);
CREATE INDEX approvals_ver ON leasekit.approvals (ver);
CREATE TABLE leasekit.idem (
    key text PRIMARY KEY,
    ver bigint NOT NULL,
    body text
);
CREATE INDEX idem_ver ON leasekit.idem (ver);
CREATE TABLE leasekit.rate (
    key text PRIMARY KEY,
    ver bigint NOT NULL,
    body text
);
CREATE INDEX rate_ver ON leasekit.rate (ver);
CREATE TABLE leasekit.audit (
    line bigint PRIMARY KEY CHECK (line >= 1),
    body text NOT NULL
);
";

/// The newest schema version this build knows.
pub(crate) fn latest() -> i64 {
    MIGRATIONS.last().map_or(0, |m| m.0)
}

/// Creates or upgrades the schema; answers the version now in place.
pub(crate) fn migrate(client: &mut Client) -> crate::Result<i64> {
    let mut tx = client.transaction().map_err(pg_err)?;
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])
        .map_err(pg_err)?;
    tx.batch_execute(
        "CREATE SCHEMA IF NOT EXISTS leasekit;
         CREATE TABLE IF NOT EXISTS leasekit.migrations (
             version bigint PRIMARY KEY,
             name text NOT NULL,
             applied_at timestamptz NOT NULL DEFAULT now()
         );",
    )
    .map_err(pg_err)?;
    let current: i64 = tx
        .query_one(
            "SELECT coalesce(max(version), 0) FROM leasekit.migrations",
            &[],
        )
        .map_err(pg_err)?
        .get(0);
    if current > latest() {
        return Err(crate::Error::new(
            crate::ErrorCode::InternalError,
            format!(
                "the database schema is at version {current}, newer than this leasekit knows \
                 ({}): upgrade leasekit",
                latest()
            ),
        ));
    }
    for (version, name, sql) in MIGRATIONS.iter().filter(|m| m.0 > current) {
        tx.batch_execute(sql).map_err(pg_err)?;
        tx.execute(
            "INSERT INTO leasekit.migrations (version, name) VALUES ($1, $2)",
            &[version, name],
        )
        .map_err(pg_err)?;
    }
    tx.commit().map_err(pg_err)?;
    Ok(latest())
}
