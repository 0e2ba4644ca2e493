//! The PostgreSQL store's schema (schema `leasekit`) and its versioned migrations.
//!
//! `leasekit gov migrate` applies them (as the schema owner's role); a governor's open applies
//! them too when the schema is behind and its role may. Either way in one transaction that
//! first takes a transaction-scoped advisory lock, so two governors starting at once apply
//! each step exactly once (the lock is taken at startup only, and only when the schema is
//! behind). A database migrated by a newer leasekit is refused.

use ::postgres::error::SqlState;
use ::postgres::{Client, GenericClient};

use super::postgres::pg_err;

/// Advisory lock key of the migration step (`leasekit` in ASCII, as a number).
const MIGRATION_LOCK: i64 = 0x6c65_6173_656b_6974;

/// Migrations, in order: (version, name, SQL).
pub(crate) const MIGRATIONS: &[(i64, &str, &str)] = &[
    (1, "governor state", V1),
    (2, "begin_batch: lock and refresh in one call", V2),
];

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

/// Version 2: fewer round trips per batch (issue 16, docs/governor.md "Fleet throughput").
///
/// `leasekit.begin_batch(seen)` locks the meta row (`FOR UPDATE`) and answers, in one call,
/// a header row (`kind` -1: `rkey` = "ver purged_ver audit_count fresh", `rbody` = the
/// audit head), the meta body when it changed since `seen` (`kind` -2), and every row written
/// since `seen` when `seen` is within the unpurged range (kinds 0-3: leases, approvals,
/// idempotency records, rate events; a NULL body is a deletion).
/// The client sends it after `BEGIN` in one simple-query message (`seen` is a number it
/// formats itself), so begin, lock and refresh cost one round trip instead of three.
const V2: &str = r#"
CREATE FUNCTION leasekit.begin_batch(seen bigint)
RETURNS TABLE (kind int2, rkey text, rbody text)
LANGUAGE plpgsql AS $fn$
DECLARE
    m record;
BEGIN
    SELECT mt.ver, mt.purged_ver, mt.audit_count, mt.audit_head, mt.body
        INTO STRICT m FROM leasekit.meta mt WHERE mt.id = 1 FOR UPDATE;
    kind := -1;
    rkey := concat_ws(' ', m.ver, m.purged_ver, m.audit_count, (m.body IS NULL)::int);
    rbody := m.audit_head;
    RETURN NEXT;
    IF m.body IS NULL OR m.ver IS NOT DISTINCT FROM seen THEN
        RETURN;
    END IF;
    kind := -2;
    rkey := NULL;
    rbody := m.body;
    RETURN NEXT;
    IF seen IS NOT NULL AND seen >= m.purged_ver AND seen < m.ver THEN
        RETURN QUERY
            SELECT 0::int2, l.id, l.body FROM leasekit.leases l WHERE l.ver > seen
            UNION ALL SELECT 1::int2, a.id, a.body FROM leasekit.approvals a WHERE a.ver > seen
            UNION ALL SELECT 2::int2, i.key, i.body FROM leasekit.idem i WHERE i.ver > seen
            UNION ALL SELECT 3::int2, r.key, r.body FROM leasekit.rate r WHERE r.ver > seen
            ORDER BY 1, 2;
    END IF;
END
$fn$;

"#;

/// The newest schema version this build knows.
pub(crate) fn latest() -> i64 {
    MIGRATIONS.last().map_or(0, |m| m.0)
}

/// The schema version in place (0: none yet), read without writing or locking anything, so
/// a role without DDL privileges (the runtime role of docs/operations.md) can ask.
pub(crate) fn current<C: GenericClient>(client: &mut C) -> crate::Result<i64> {
    let exists: bool = client
        .query_one(
            // The catalog read as a query (the statement's snapshot), not through
            // to_regclass (the session's catalog cache, which an advisory lock does not
            // refresh: a migration another session just committed could go unseen).
            "SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_class c
                 JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
                 WHERE n.nspname = 'leasekit' AND c.relname = 'migrations')",
            &[],
        )
        .map_err(pg_err)?
        .get(0);
    if !exists {
        return Ok(0);
    }
    Ok(client
        .query_one(
            "SELECT coalesce(max(version), 0) FROM leasekit.migrations",
            &[],
        )
        .map_err(pg_err)?
        .get(0))
}

/// The refusal of a schema newer than this build knows.
pub(crate) fn newer(current: i64) -> crate::Error {
    crate::Error::new(
        crate::ErrorCode::InternalError,
        format!(
            "the database schema is at version {current}, newer than this leasekit knows \
             ({}): upgrade leasekit",
            latest()
        ),
    )
}

/// Brings the schema to [`latest`] at a governor's open: nothing to do (no lock, no DDL)
/// when it is current; refused when it is newer; applied when it is behind and the role may
/// (a role that may not gets a clear error naming `leasekit gov migrate`). Answers the
/// version now in place.
pub(crate) fn migrate(client: &mut Client) -> crate::Result<i64> {
    let v = current(client)?;
    if v > latest() {
        return Err(newer(v));
    }
    if v == latest() {
        return Ok(v);
    }
    apply(client).map(|(_, after)| after)
}

/// Applies every pending migration in one transaction under the migration lock; answers the
/// version before and after. A newer schema is refused; applying twice changes nothing.
pub(crate) fn apply(client: &mut Client) -> crate::Result<(i64, i64)> {
    let mut tx = client.transaction().map_err(pg_err)?;
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])
        .map_err(pg_err)?;
    let before = current(&mut tx)?;
    if before > latest() {
        return Err(newer(before));
    }
    if before == latest() {
        return Ok((before, before));
    }
    let denied = |e: ::postgres::Error| {
        if e.code() == Some(&SqlState::INSUFFICIENT_PRIVILEGE) {
            crate::Error::new(
                crate::ErrorCode::InternalError,
                format!(
                    "the database schema is at version {before} and this leasekit needs version \
                     {}, but this role may not migrate it ({e}): run `leasekit gov migrate \
                     --store URL` as the schema owner's role first",
                    latest()
                ),
            )
        } else {
            pg_err(e)
        }
    };
    // Created only when missing: the owner of a schema made for it (docs/operations.md)
    // needs no CREATE privilege on the database.
    let has_schema: bool = tx
        .query_one(
            "SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_namespace WHERE nspname = 'leasekit')",
            &[],
        )
        .map_err(pg_err)?
        .get(0);
    if !has_schema {
        tx.batch_execute("CREATE SCHEMA leasekit").map_err(denied)?;
    }
    if before == 0 {
        tx.batch_execute(
            "CREATE TABLE IF NOT EXISTS leasekit.migrations (
                 version bigint PRIMARY KEY,
                 name text NOT NULL,
                 applied_at timestamptz NOT NULL DEFAULT now()
             );",
        )
        .map_err(denied)?;
    }
    for (version, name, sql) in MIGRATIONS.iter().filter(|m| m.0 > before) {
        tx.batch_execute(sql).map_err(denied)?;
        tx.execute(
            "INSERT INTO leasekit.migrations (version, name) VALUES ($1, $2)",
            &[version, name],
        )
        .map_err(denied)?;
    }
    tx.commit().map_err(pg_err)?;
    Ok((before, latest()))
}
