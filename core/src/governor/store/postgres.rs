//! The PostgreSQL store (a fleet, SEMANTICS 13.12): any number of governors, embedded or in
//! `leasekit serve` daemons on any number of hosts, share one database and behave as one.
//!
//! Every batch of commands a governor has queued (group commit) is one `READ COMMITTED`
//! transaction of one connection, in three round trips (schema version 2's function):
//!
//! 1. `BEGIN; SELECT * FROM leasekit.begin_batch(seen)` locks the meta row (pools, counters,
//!    policy and the audit chain head), reads its version and, when another governor
//!    committed since this one last looked, answers the meta row and only the rows written
//!    since then (`ver > seen`); the engine refreshes its image;
//! 2. the engine decides the queued commands; one prepared statement writes their changes
//!    (upserts through `unnest`, the audit lines, the meta row); 3. `COMMIT` (durable).
//!
//! The meta row is locked from the first call's execution to the commit: the decision and two
//! round trips, but not the WAL flush. The batch commits with `synchronous_commit = off`,
//! which releases its row locks as soon as the commit record is in the WAL buffers (early
//! lock release), and [`Store::settle`] then waits for durability on a second connection
//! (one small transaction writing one WAL message, committed with the site's synchronous
//! commit, whose flush covers every commit record before it), before any command of the batch
//! is answered. Another governor may read and build on a commit that is not flushed yet, but
//! its own commit record comes later in the same WAL, so it cannot become durable (or answer)
//! without the first one: an answer that was sent never rests on a lost commit. Concurrent
//! flushes coalesce: one flush settles every batch committed before it started.
//!
//! Writers serialize on the one meta row, never on a table lock or an advisory lock; the
//! rows a batch writes are disjoint from nothing else's, so no deadlock or serialization
//! failure arises between governors. Should one arise anyway (SQLSTATE 40001/40P01, e.g. from
//! a site's own session settings) before the decision, the transaction is retried (up to 5
//! times, with backoff); after the decision it fails the batch with a retryable
//! `store_unavailable` error and the next batch rebuilds the image. An idempotency record is
//! one row per scoped key (the primary key), decided by an engine that has seen every row
//! under the lock. Each audit batch must continue the stored head (`prevHash`), so the chain
//! stays linear.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use ::postgres::error::SqlState;
use ::postgres::{Client, Config, GenericClient, SimpleQueryMessage, Statement};
use serde::Deserialize;

use super::postgres_schema::{self, migrate};
use super::postgres_tls::Tls;
use super::{AuditSnapshot, Batch, Decide, Refresh, Snapshot, Store, Table};
use crate::governor::engine::state::{LeaseStatus, Pools};
use crate::{Error, ErrorCode};

/// Attempts of a transaction that failed before its decision (serialization failure,
/// deadlock, a connection that broke).
const ATTEMPTS: u32 = 5;
/// Tombstones older than this many versions are purged (every that many versions).
const PURGE_EVERY: i64 = 512;

pub(crate) fn pg_err(e: ::postgres::Error) -> Error {
    // A failed connection or TLS handshake says why (refused, certificate not valid for the
    // name, unknown issuer, no TLS on the server): names and addresses, never key material.
    let shown = e.to_string();
    let why = match std::error::Error::source(&e) {
        Some(s)
            if e.as_db_error().is_none()
                && matches!(
                    shown.as_str(),
                    "error performing TLS handshake" | "error connecting to server"
                ) =>
        {
            format!(": {s}")
        }
        // The server's message (never its DETAIL, which may quote row values).
        _ => e
            .as_db_error()
            .map(|db| format!(": {}: {}", db.severity(), db.message()))
            .unwrap_or_default(),
    };
    Error::new(
        ErrorCode::InternalError,
        format!("store_unavailable: PostgreSQL: {shown}{why} (retryable)"),
    )
}

/// A failed connection: with the server's own refusal when it sent one (authentication
/// failed, no such role or database, pg_hba rejected), which names no secret.
pub(crate) fn connect_err(e: ::postgres::Error) -> Error {
    match e.as_db_error() {
        Some(db) => Error::new(
            ErrorCode::InternalError,
            format!(
                "store_unavailable: PostgreSQL refused the connection: {}: {} (retryable)",
                db.severity(),
                db.message()
            ),
        ),
        None => pg_err(e),
    }
}

fn unavailable(msg: impl std::fmt::Display) -> Error {
    Error::new(
        ErrorCode::InternalError,
        format!("store_unavailable: {msg} (retryable)"),
    )
}

fn retriable(e: &::postgres::Error) -> bool {
    matches!(
        e.code(),
        Some(c) if *c == SqlState::T_R_SERIALIZATION_FAILURE || *c == SqlState::T_R_DEADLOCK_DETECTED
    )
}

struct Stmts {
    all_rows: Statement,
    write: Statement,
}

struct Conn {
    client: Client,
    st: Stmts,
}

/// Phases of a batch transaction, timed when `LEASEKIT_PG_TRACE=1` (see [`Trace`]).
const PHASES: [&str; 7] = [
    "-",
    "begin+lock+fetch",
    "full reload",
    "decide",
    "write",
    "commit",
    "flush (per flush)",
];

/// Where a batch's time goes (`LEASEKIT_PG_TRACE=1`): per phase the total time, plus the
/// batches, round trips, rows fetched and written; printed to stderr when the store drops.
#[derive(Default)]
struct Trace {
    batches: u64,
    trips: u64,
    fetched: u64,
    written: u64,
    audit: u64,
    flushes: u64,
    ns: [u64; 7],
}

impl Trace {
    fn report(&self, shown: &str) -> String {
        let b = self.batches.max(1) as f64;
        let mut s = format!(
            "leasekit pg trace {shown}: {} batches, {:.2} round trips/batch, {:.1} rows \
             written/batch, {:.1} audit lines/batch, {:.1} rows fetched/batch; ms/batch:",
            self.batches,
            self.trips as f64 / b,
            self.written as f64 / b,
            self.audit as f64 / b,
            self.fetched as f64 / b
        );
        for (i, (name, ns)) in PHASES.iter().zip(self.ns).enumerate() {
            let per = if i == 6 {
                self.flushes.max(1) as f64
            } else {
                b
            };
            if *name != "-" {
                s.push_str(&format!(" {name} {:.3}", ns as f64 / per / 1e6));
            }
        }
        s.push_str(&format!("; {} flushes", self.flushes));
        s
    }
}

/// A PostgreSQL store (feature `postgres`), opened by URL (`postgres://user@host/db`, or a
/// socket directory as the percent-encoded host).
pub struct PostgresStore {
    config: Config,
    /// The TLS connector the URL's `ssl*` parameters ask for (module `postgres_tls`).
    tls: Tls,
    shown: String,
    conn: Mutex<Option<Conn>>,
    /// The connection that waits for durability ([`Store::settle`]).
    flush: Mutex<Flusher>,
    /// Transactions this store ended (committed, or read-only): a ticket count.
    ended: AtomicU64,
    /// The version and audit head this store last saw or wrote: an unchanged version with
    /// another head (a commit lost by a server crash, then the version reached again by
    /// another governor) reloads everything.
    last: Mutex<Option<(i64, String)>>,
    /// Commit without waiting for the flush and settle after the locks are released (the
    /// default); `LEASEKIT_PG_SETTLE=commit` makes each batch's `COMMIT` wait for its flush
    /// under the lock instead (the earlier design, kept for comparison in `make bench-fleet`).
    early_release: bool,
    trace: Option<Mutex<Trace>>,
}

/// The durability side of a store: its own connection and how far it has flushed.
struct Flusher {
    client: Option<Client>,
    /// Every transaction ended before this ticket is durable.
    durable: u64,
}

impl Drop for PostgresStore {
    fn drop(&mut self) {
        if let Some(t) = &self.trace {
            let t = t.lock().unwrap_or_else(|p| p.into_inner());
            eprintln!("{}", t.report(&self.shown));
        }
    }
}

impl std::fmt::Debug for PostgresStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PostgresStore")
            .field("url", &self.shown)
            .finish()
    }
}

pub use crate::governor::wire::ConnectedGovernor;

/// What [`PostgresStore::migrate_schema`] found and did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SchemaMigration {
    /// The schema version before (0: no schema yet).
    pub before: i64,
    /// The schema version after (equal to `before` when nothing was applied).
    pub after: i64,
    /// The newest version this build knows.
    pub latest: i64,
}

const ALL_ROWS_SQL: &str = "
    SELECT 0::int2, id, body FROM leasekit.leases WHERE body IS NOT NULL
    UNION ALL SELECT 1::int2, id, body FROM leasekit.approvals WHERE body IS NOT NULL
    UNION ALL SELECT 2::int2, key, body FROM leasekit.idem WHERE body IS NOT NULL
    UNION ALL SELECT 3::int2, key, body FROM leasekit.rate WHERE body IS NOT NULL
    ORDER BY 1, 2";

const WRITE_SQL: &str = "
WITH l AS (
    INSERT INTO leasekit.leases AS t
        (id, ver, body, status, reserved_cents, settled_cents, expires_at, actor_id)
    SELECT u.id, $1::int8, u.body, u.status, u.reserved::numeric, u.settled::numeric,
           to_timestamp(u.exp / 1000.0), u.actor
    FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::int8[],
                $8::text[]) AS u(id, body, status, reserved, settled, exp, actor)
    ON CONFLICT (id) DO UPDATE SET ver = excluded.ver, body = excluded.body,
        status = excluded.status, reserved_cents = excluded.reserved_cents,
        settled_cents = excluded.settled_cents, expires_at = excluded.expires_at,
        actor_id = excluded.actor_id
    RETURNING 1
), a AS (
    INSERT INTO leasekit.approvals AS t (id, ver, body)
    SELECT u.id, $1::int8, u.body FROM unnest($9::text[], $10::text[]) AS u(id, body)
    ON CONFLICT (id) DO UPDATE SET ver = excluded.ver, body = excluded.body
    RETURNING 1
), i AS (
    INSERT INTO leasekit.idem AS t (key, ver, body)
    SELECT u.key, $1::int8, u.body FROM unnest($11::text[], $12::text[]) AS u(key, body)
    ON CONFLICT (key) DO UPDATE SET ver = excluded.ver, body = excluded.body
    RETURNING 1
), r AS (
    INSERT INTO leasekit.rate AS t (key, ver, body)
    SELECT u.key, $1::int8, u.body FROM unnest($22::text[], $23::text[]) AS u(key, body)
    ON CONFLICT (key) DO UPDATE SET ver = excluded.ver, body = excluded.body
    RETURNING 1
), au AS (
    INSERT INTO leasekit.audit (line, body)
    SELECT * FROM unnest($13::int8[], $14::text[])
    RETURNING 1
), m AS (
    UPDATE leasekit.meta SET ver = $1::int8, body = coalesce($15::text, body),
        audit_count = $16::int8, audit_head = $17::text,
        budget_day = coalesce($18::int8, budget_day),
        budget_used_cents = coalesce($19::text::numeric, budget_used_cents),
        in_flight = coalesce($20::int8, in_flight),
        purged_ver = coalesce($21::int8, purged_ver), updated_at = now()
    WHERE id = 1
    RETURNING 1
)
SELECT (SELECT count(*) FROM l), (SELECT count(*) FROM a), (SELECT count(*) FROM i),
       (SELECT count(*) FROM au), (SELECT count(*) FROM m), (SELECT count(*) FROM r)";

/// An open batch transaction: rolled back when dropped before its commit (an error, a
/// decision that refused, a panic), so the meta row is never left locked.
struct Open<'a> {
    client: &'a mut Client,
    done: bool,
}

impl Drop for Open<'_> {
    fn drop(&mut self) {
        if !self.done && !self.client.is_closed() {
            let _ = self.client.batch_execute("ROLLBACK");
        }
    }
}

fn parse_num<T: std::str::FromStr>(v: Option<&str>) -> crate::Result<T> {
    v.and_then(|v| v.parse().ok())
        .ok_or_else(|| internal("leasekit.begin_batch answered a malformed header"))
}

#[derive(Deserialize)]
struct LeaseMirror {
    status: LeaseStatus,
    reserved: u64,
    #[serde(default)]
    settled: Option<u64>,
    expires_at: i64,
    request: RequestMirror,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RequestMirror {
    #[serde(default)]
    actor_id: String,
}

#[derive(Deserialize)]
struct MetaMirror {
    pools: Pools,
}

#[derive(Deserialize)]
struct Link {
    #[serde(rename = "prevHash")]
    prev: String,
    #[serde(rename = "entryHash")]
    entry: String,
}

fn table_of(n: i16) -> crate::Result<Table> {
    match n {
        0 => Ok(Table::Lease),
        1 => Ok(Table::Approval),
        2 => Ok(Table::Idem),
        3 => Ok(Table::Rate),
        _ => Err(Error::new(ErrorCode::InternalError, "unknown row table")),
    }
}

fn internal(msg: impl Into<String>) -> Error {
    Error::new(ErrorCode::InternalError, msg)
}

/// What a batch transaction needs of its store besides the connection.
struct Ctx<'a> {
    trace: Option<&'a Mutex<Trace>>,
    last: &'a Mutex<Option<(i64, String)>>,
    early_release: bool,
}

/// Where a transaction failed.
enum Failure {
    /// Before the decision: nothing decided, may be retried.
    Before(::postgres::Error),
    /// The decision itself refused (its error is answered as is).
    Decide(Error),
    /// After the decision, before `COMMIT`: rolled back.
    Write(Error),
    /// During `COMMIT`: the outcome is unknown.
    Commit(::postgres::Error),
}

impl PostgresStore {
    /// Connects to `url` (`postgres://` or `postgresql://`), creates or migrates the schema.
    pub fn open(url: &str) -> crate::Result<PostgresStore> {
        let (mut config, tls) = parse_url(url)?;
        let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
            .map(|h| h.trim().to_string())
            .unwrap_or_else(|_| "unknown".into());
        config
            .application_name(&format!("leasekit-governor {host} {}", std::process::id()))
            .connect_timeout(Duration::from_secs(5))
            .keepalives(true)
            .keepalives_idle(Duration::from_secs(10));
        let shown = shown_url(&config);
        let store = PostgresStore {
            config,
            tls,
            shown,
            conn: Mutex::new(None),
            flush: Mutex::new(Flusher {
                client: None,
                durable: 0,
            }),
            ended: AtomicU64::new(0),
            last: Mutex::new(None),
            early_release: std::env::var_os("LEASEKIT_PG_SETTLE").is_none_or(|v| v != "commit"),
            trace: std::env::var_os("LEASEKIT_PG_TRACE")
                .is_some_and(|v| v == "1")
                .then(|| Mutex::new(Trace::default())),
        };
        let conn = store.connect()?;
        *store.conn.lock().unwrap_or_else(|p| p.into_inner()) = Some(conn);
        Ok(store)
    }

    /// `true`: each batch's `COMMIT` waits for its WAL flush while it holds the meta row (the
    /// earlier design; what `LEASEKIT_PG_SETTLE=commit` selects at open). `false` (the
    /// default): commit, release the locks, then wait for durability in [`Store::settle`].
    /// Both answer only durable decisions; `make bench-fleet` measures one beside the other.
    pub fn settle_at_commit(mut self, yes: bool) -> PostgresStore {
        self.early_release = !yes;
        self
    }

    fn connect(&self) -> crate::Result<Conn> {
        let mut client = self.config.connect(self.tls.clone()).map_err(connect_err)?;
        // A governor that stops mid-transaction (hung, cut off) must not hold the meta row
        // for long; a lock wait that long means something is wrong: fail, retryable.
        client
            .batch_execute(
                "SET lock_timeout = '10s'; SET idle_in_transaction_session_timeout = '30s';
                 SET statement_timeout = '60s'",
            )
            .map_err(pg_err)?;
        migrate(&mut client)?;
        let st = Stmts {
            all_rows: client.prepare(ALL_ROWS_SQL).map_err(pg_err)?,
            write: client.prepare(WRITE_SQL).map_err(pg_err)?,
        };
        Ok(Conn { client, st })
    }

    /// The durability connection (application name `leasekit-settle ...`): the site's
    /// `synchronous_commit`, except that `off` is raised to `on` (a flush that does not wait
    /// would settle nothing).
    fn connect_flush(&self) -> crate::Result<Client> {
        // Named apart, so `connected_governors` counts each governor once.
        let mut config = self.config.clone();
        let name = config.get_application_name().unwrap_or_default();
        config.application_name(&name.replacen("leasekit-governor", "leasekit-settle", 1));
        let mut client = config.connect(self.tls.clone()).map_err(connect_err)?;
        client
            .batch_execute("SET statement_timeout = '60s'")
            .map_err(pg_err)?;
        let level = client
            .simple_query("SHOW synchronous_commit")
            .map_err(pg_err)?
            .into_iter()
            .find_map(|m| match m {
                SimpleQueryMessage::Row(r) => r.get(0).map(str::to_string),
                _ => None,
            })
            .unwrap_or_default();
        if level == "off" {
            client
                .batch_execute("SET synchronous_commit = on")
                .map_err(pg_err)?;
        }
        Ok(client)
    }

    fn with_conn<R>(&self, f: impl FnOnce(&mut Conn) -> crate::Result<R>) -> crate::Result<R> {
        let mut guard = self.conn.lock().unwrap_or_else(|p| p.into_inner());
        if guard.as_ref().is_none_or(|c| c.client.is_closed()) {
            *guard = None;
            *guard = Some(self.connect()?);
        }
        let r = f(guard.as_mut().expect("connected"));
        if guard.as_ref().is_some_and(|c| c.client.is_closed()) {
            *guard = None;
        }
        r
    }

    /// The governors connected to this database now (`leasekit gov status`).
    pub fn connected_governors(&self) -> crate::Result<Vec<ConnectedGovernor>> {
        self.with_conn(|c| {
            let rows = c
                .client
                .query(
                    "SELECT application_name, coalesce(host(client_addr), 'local'),
                            to_char(backend_start AT TIME ZONE 'UTC',
                                    'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')
                     FROM pg_stat_activity
                     WHERE datname = current_database()
                       AND application_name LIKE 'leasekit-governor %'
                     ORDER BY backend_start",
                    &[],
                )
                .map_err(pg_err)?;
            Ok(rows
                .iter()
                .map(|r| ConnectedGovernor {
                    application_name: r.get(0),
                    client: r.get(1),
                    since: r.get(2),
                })
                .collect())
        })
    }

    /// `leasekit gov migrate`: connects to `url` on its own (no governor, no store image) and,
    /// with `apply`, brings the schema to the newest version this build knows; without it,
    /// only reads the version. A schema newer than this build knows is an error either way;
    /// applying twice changes nothing.
    pub fn migrate_schema(url: &str, apply: bool) -> crate::Result<SchemaMigration> {
        let (mut config, tls) = parse_url(url)?;
        config
            .application_name("leasekit-migrate")
            .connect_timeout(Duration::from_secs(5));
        let mut client = config.connect(tls).map_err(connect_err)?;
        client
            .batch_execute("SET lock_timeout = '60s'; SET statement_timeout = '300s'")
            .map_err(pg_err)?;
        let latest = postgres_schema::latest();
        let (before, after) = if apply {
            postgres_schema::apply(&mut client)?
        } else {
            let v = postgres_schema::current(&mut client)?;
            if v > latest {
                return Err(postgres_schema::newer(v));
            }
            (v, v)
        };
        Ok(SchemaMigration {
            before,
            after,
            latest,
        })
    }

    /// The schema version in place.
    pub fn schema_version(&self) -> crate::Result<i64> {
        self.with_conn(|c| {
            Ok(c.client
                .query_one("SELECT max(version) FROM leasekit.migrations", &[])
                .map_err(pg_err)?
                .get(0))
        })
    }

    fn load_all(
        tx: &mut impl GenericClient,
        st: &Stmts,
        meta: String,
    ) -> Result<Snapshot, ::postgres::Error> {
        let mut rows = Vec::new();
        for r in tx.query(&st.all_rows, &[])? {
            let body: Option<String> = r.get(2);
            if let (Ok(t), Some(body)) = (table_of(r.get(0)), body) {
                rows.push((t, r.get(1), body));
            }
        }
        Ok(Snapshot { meta, rows })
    }

    fn attempt(
        conn: &mut Conn,
        seen: Option<u64>,
        decide: &mut Decide<'_>,
        ctx: &Ctx<'_>,
    ) -> Result<u64, Failure> {
        let trace = ctx.trace;
        let Conn { client, st } = conn;
        let mut t = Trace::default();
        let mut at = Instant::now();
        let mut lap = |t: &mut Trace, phase: usize| {
            let now = Instant::now();
            t.ns[phase] += (now - at).as_nanos() as u64;
            t.trips += u64::from(phase != 3);
            at = now;
        };
        let mut open = Open {
            client,
            done: false,
        };
        // Round trip 1: begin (committing without waiting for the flush, which
        // `settle` waits for after the locks are released), lock the meta row, fetch what
        // changed since `seen`.
        let seen_i = seen.map(|v| v as i64);
        let arg = seen_i.map_or_else(|| "NULL".to_string(), |v| v.to_string());
        let msgs = open
            .client
            .simple_query(&format!(
                "BEGIN ISOLATION LEVEL READ COMMITTED; {}\
                 SELECT kind, rkey, rbody FROM leasekit.begin_batch({arg}::int8)",
                if ctx.early_release {
                    "SET LOCAL synchronous_commit = off; "
                } else {
                    ""
                }
            ))
            .map_err(Failure::Before)?;
        lap(&mut t, 1);
        let mut header = None;
        let mut meta = None;
        let mut rows = Vec::new();
        for m in &msgs {
            let SimpleQueryMessage::Row(r) = m else {
                continue;
            };
            let kind: i16 = parse_num(r.get(0)).map_err(Failure::Decide)?;
            match kind {
                -1 => {
                    let mut f = r.get(1).unwrap_or("").split(' ');
                    let mut n = || parse_num::<i64>(f.next()).map_err(Failure::Decide);
                    let h = (n()?, n()?, n()?, n()? == 1);
                    let head = r.get(2).unwrap_or("").to_string();
                    header = Some((h, head));
                }
                -2 => meta = r.get(2).map(str::to_string),
                k => rows.push((
                    table_of(k).map_err(Failure::Decide)?,
                    r.get(1).unwrap_or("").to_string(),
                    r.get(2).map(str::to_string),
                )),
            }
        }
        let Some(((ver, purged, audit_count, fresh), audit_head)) = header else {
            return Err(Failure::Decide(internal(
                "leasekit.begin_batch answered no header",
            )));
        };
        t.fetched += rows.len() as u64;
        let mut last = ctx.last.lock().unwrap_or_else(|p| p.into_inner());
        let same = last
            .as_ref()
            .is_some_and(|(v, h)| *v == ver && *h == audit_head);
        let refresh = if fresh {
            Refresh::Full(None)
        } else if seen_i == Some(ver) && same {
            Refresh::Unchanged
        } else {
            let meta = meta.ok_or_else(|| Failure::Decide(internal("meta row vanished")))?;
            match seen_i {
                Some(s) if s >= purged && s < ver => Refresh::Changes { meta, rows },
                _ => {
                    let snap =
                        Self::load_all(&mut *open.client, st, meta).map_err(Failure::Before)?;
                    lap(&mut t, 2);
                    Refresh::Full(Some(snap))
                }
            }
        };
        let batch = decide(refresh).map_err(Failure::Decide)?;
        lap(&mut t, 3);
        if batch.is_empty() {
            // Nothing to write: end the read-only transaction (no WAL flush).
            open.done = true;
            open.client
                .batch_execute("ROLLBACK")
                .map_err(|e| Failure::Write(pg_err(e)))?;
            *last = Some((ver, audit_head));
            return Ok(ver as u64);
        }
        // Round trips 2 and 3: one statement writes everything, then COMMIT (durable).
        let next = ver + 1;
        *last = None;
        let head = Self::write(open.client, st, &batch, next, audit_count, &audit_head)
            .map_err(Failure::Write)?;
        lap(&mut t, 4);
        open.client
            .batch_execute("COMMIT")
            .map_err(Failure::Commit)?;
        open.done = true;
        *last = Some((next, head));
        lap(&mut t, 5);
        if let Some(tr) = trace {
            let mut tr = tr.lock().unwrap_or_else(|p| p.into_inner());
            tr.batches += 1;
            tr.trips += t.trips;
            tr.fetched += t.fetched;
            tr.written += batch.rows.len() as u64;
            tr.audit += batch.audit.len() as u64;
            for (a, b) in tr.ns.iter_mut().zip(t.ns) {
                *a += b;
            }
        }
        Ok(next as u64)
    }

    fn write(
        client: &mut Client,
        st: &Stmts,
        batch: &Batch,
        next: i64,
        audit_count: i64,
        audit_head: &str,
    ) -> crate::Result<String> {
        let mut l_id = Vec::new();
        let mut l_body: Vec<Option<&str>> = Vec::new();
        let mut l_status: Vec<Option<&str>> = Vec::new();
        let mut l_res: Vec<Option<String>> = Vec::new();
        let mut l_set: Vec<Option<String>> = Vec::new();
        let mut l_exp: Vec<Option<i64>> = Vec::new();
        let mut l_actor: Vec<Option<String>> = Vec::new();
        let (mut a_id, mut a_body) = (Vec::new(), Vec::<Option<&str>>::new());
        let (mut i_key, mut i_body) = (Vec::new(), Vec::<Option<&str>>::new());
        let (mut r_key, mut r_body) = (Vec::new(), Vec::<Option<&str>>::new());
        let mut idem_rows = 0i64;
        for ((t, id), body) in &batch.rows {
            match t {
                Table::Lease => {
                    l_id.push(id.as_str());
                    l_body.push(body.as_deref());
                    match body {
                        Some(b) => {
                            let m: LeaseMirror = serde_json::from_str(b)
                                .map_err(|e| internal(format!("lease row: {e}")))?;
                            l_status.push(Some(match m.status {
                                LeaseStatus::Live => "live",
                                LeaseStatus::Expired => "expired",
                                LeaseStatus::Released => "released",
                            }));
                            l_res.push(Some(m.reserved.to_string()));
                            l_set.push(m.settled.map(|s| s.to_string()));
                            l_exp.push(Some(m.expires_at));
                            l_actor.push(Some(m.request.actor_id));
                        }
                        None => {
                            l_status.push(None);
                            l_res.push(None);
                            l_set.push(None);
                            l_exp.push(None);
                            l_actor.push(None);
                        }
                    }
                }
                Table::Approval => {
                    a_id.push(id.as_str());
                    a_body.push(body.as_deref());
                }
                Table::Idem => {
                    i_key.push(id.as_str());
                    i_body.push(body.as_deref());
                    idem_rows += 1;
                }
                Table::Rate => {
                    r_key.push(id.as_str());
                    r_body.push(body.as_deref());
                }
                // A fleet shares its scoped counters and policy contents in the meta row (the
                // store does not keep them as rows): a batch never holds one.
                Table::Scope | Table::Policy => {
                    return Err(internal(
                        "a meta part row for a PostgreSQL store, which keeps them in the meta row",
                    ));
                }
            }
        }
        // The audit lines continue the stored head, in order.
        let mut head = audit_head.to_string();
        let mut lines = Vec::with_capacity(batch.audit.len());
        for (n, line) in batch.audit.iter().enumerate() {
            let link: Link = serde_json::from_str(line)
                .map_err(|e| internal(format!("audit line is not a record: {e}")))?;
            if link.prev != head {
                return Err(internal(
                    "audit chain fork refused: the batch does not continue the stored head",
                ));
            }
            head = link.entry;
            lines.push(audit_count + 1 + n as i64);
        }
        let audit_bodies: Vec<&str> = batch.audit.iter().map(String::as_str).collect();
        let mirror = match &batch.meta {
            Some(m) => Some(
                serde_json::from_str::<MetaMirror>(m)
                    .map_err(|e| internal(format!("meta row: {e}")))?
                    .pools,
            ),
            None => None,
        };
        let purge = (next % PURGE_EVERY == 0).then_some(next - PURGE_EVERY);
        let budget_day = mirror.as_ref().map(|p| p.budget_day);
        let budget_used = mirror.as_ref().map(|p| p.budget_used.to_string());
        let in_flight = mirror.as_ref().map(|p| p.in_flight as i64);
        let audit_total = audit_count + batch.audit.len() as i64;
        let row = client
            .query_one(
                &st.write,
                &[
                    &next,
                    &l_id,
                    &l_body,
                    &l_status,
                    &l_res,
                    &l_set,
                    &l_exp,
                    &l_actor,
                    &a_id,
                    &a_body,
                    &i_key,
                    &i_body,
                    &lines,
                    &audit_bodies,
                    &batch.meta,
                    &audit_total,
                    &head,
                    &budget_day,
                    &budget_used,
                    &in_flight,
                    &purge,
                    &r_key,
                    &r_body,
                ],
            )
            .map_err(pg_err)?;
        let counts: [i64; 6] = [
            row.get(0),
            row.get(1),
            row.get(2),
            row.get(3),
            row.get(4),
            row.get(5),
        ];
        if counts[0] != l_id.len() as i64
            || counts[2] != idem_rows
            || counts[1] != a_id.len() as i64
            || counts[3] != lines.len() as i64
            || counts[4] != 1
            || counts[5] != r_key.len() as i64
        {
            return Err(internal("store write incomplete: refused"));
        }
        if let Some(p) = purge {
            client
                .batch_execute(&format!(
                    "DELETE FROM leasekit.leases WHERE body IS NULL AND ver <= {p};
                 DELETE FROM leasekit.approvals WHERE body IS NULL AND ver <= {p};
                 DELETE FROM leasekit.idem WHERE body IS NULL AND ver <= {p};
                 DELETE FROM leasekit.rate WHERE body IS NULL AND ver <= {p};"
                ))
                .map_err(pg_err)?;
        }
        Ok(head)
    }
}

/// The connection settings and TLS connector of a `postgres://` or `postgresql://` URL.
fn parse_url(url: &str) -> crate::Result<(Config, Tls)> {
    if !(url.starts_with("postgres://") || url.starts_with("postgresql://")) {
        return Err(Error::new(
            ErrorCode::InvalidRequest,
            "a PostgreSQL store URL starts with postgres:// or postgresql://",
        ));
    }
    super::postgres_tls::parse(url)
}

/// A read-only snapshot of a PostgreSQL store's audit chain ([`AuditSnapshot`]): its own
/// connection (never the one batches use) and one `REPEATABLE READ READ ONLY` transaction, so
/// every page and the recorded head (`leasekit.meta.audit_head`, `audit_count`) are as of the
/// open. It takes no lock a writer waits for, creates nothing and migrates nothing.
pub struct PgAuditSnapshot {
    client: Client,
    recorded: (String, u64),
    shown: String,
}

impl std::fmt::Debug for PgAuditSnapshot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgAuditSnapshot")
            .field("url", &self.shown)
            .finish()
    }
}

impl PgAuditSnapshot {
    /// Connects to `url` read-only and takes the snapshot.
    pub fn open(url: &str) -> crate::Result<PgAuditSnapshot> {
        let (config, tls) = parse_url(url)?;
        PgAuditSnapshot::connect(config, &tls)
    }

    /// The URL without its password.
    pub fn shown(&self) -> &str {
        &self.shown
    }

    fn connect(mut config: Config, tls: &Tls) -> crate::Result<PgAuditSnapshot> {
        let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
            .map(|h| h.trim().to_string())
            .unwrap_or_else(|_| "unknown".into());
        config
            .application_name(&format!(
                "leasekit-audit-reader {host} {}",
                std::process::id()
            ))
            .connect_timeout(Duration::from_secs(5));
        let shown = shown_url(&config);
        let mut client = config.connect(tls.clone()).map_err(connect_err)?;
        client
            .batch_execute(
                "SET statement_timeout = '60s'; SET idle_in_transaction_session_timeout = '60s';
                 SET default_transaction_read_only = on;
                 BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY",
            )
            .map_err(pg_err)?;
        let row = client
            .query_opt(
                "SELECT audit_head, audit_count FROM leasekit.meta WHERE id = 1",
                &[],
            )
            .map_err(|e| {
                if e.code() == Some(&SqlState::UNDEFINED_TABLE) {
                    Error::invalid(format!(
                        "{shown}: no leasekit governor store in this database"
                    ))
                } else {
                    pg_err(e)
                }
            })?;
        let recorded = match row {
            Some(r) => (r.get::<_, String>(0), r.get::<_, i64>(1).max(0) as u64),
            None => (crate::governor::audit::GENESIS_HASH.to_string(), 0),
        };
        Ok(PgAuditSnapshot {
            client,
            recorded,
            shown,
        })
    }
}

impl AuditSnapshot for PgAuditSnapshot {
    fn recorded(&self) -> Option<(String, u64)> {
        Some(self.recorded.clone())
    }

    fn page(&mut self, after: u64, max: usize) -> crate::Result<Vec<(u64, String)>> {
        let after = after.min(i64::MAX as u64) as i64;
        let max = max.min(i64::MAX as usize) as i64;
        let rows = self
            .client
            .query(
                "SELECT line, body FROM leasekit.audit WHERE line > $1 ORDER BY line LIMIT $2",
                &[&after, &max],
            )
            .map_err(pg_err)?;
        Ok(rows
            .iter()
            .map(|r| (r.get::<_, i64>(0).max(0) as u64, r.get::<_, String>(1)))
            .collect())
    }
}

/// `postgres://user@host[:port]/db` without a password.
fn shown_url(c: &Config) -> String {
    use ::postgres::config::Host;
    let host = match c.get_hosts().first() {
        Some(Host::Tcp(h)) => h.clone(),
        Some(Host::Unix(p)) => p.display().to_string(),
        None => "localhost".into(),
    };
    let port = c
        .get_ports()
        .first()
        .filter(|p| **p != 5432)
        .map(|p| format!(":{p}"))
        .unwrap_or_default();
    let user = c.get_user().map(|u| format!("{u}@")).unwrap_or_default();
    format!(
        "postgres://{user}{host}{port}/{}",
        c.get_dbname().unwrap_or("")
    )
}

impl Store for PostgresStore {
    fn wants_rows(&self) -> bool {
        true
    }

    fn load(&self) -> crate::Result<Option<Snapshot>> {
        self.with_conn(|c| {
            let mut tx = c.client.transaction().map_err(pg_err)?;
            let meta: Option<String> = tx
                .query_one("SELECT body FROM leasekit.meta WHERE id = 1", &[])
                .map_err(pg_err)?
                .get(0);
            let Some(meta) = meta else { return Ok(None) };
            let snap = Self::load_all(&mut tx, &c.st, meta).map_err(pg_err)?;
            Ok(Some(snap))
        })
    }

    fn commit(&self, _batch: Batch) -> crate::Result<()> {
        // A blind write would overwrite what other governors decided: refused.
        Err(internal(
            "a shared PostgreSQL store commits only through transact (decide under the lock)",
        ))
    }

    fn read_audit(&self, from: u64, to: u64) -> crate::Result<Vec<String>> {
        let (from, to) = (from.max(1) as i64, to.min(i64::MAX as u64) as i64);
        self.with_conn(|c| {
            let rows = c
                .client
                .query(
                    "SELECT body FROM leasekit.audit WHERE line >= $1 AND line <= $2 ORDER BY line",
                    &[&from, &to],
                )
                .map_err(pg_err)?;
            Ok(rows.iter().map(|r| r.get(0)).collect())
        })
    }

    fn audit_snapshot(&self) -> crate::Result<Box<dyn AuditSnapshot + '_>> {
        // Its own connection: batches keep theirs, and the meta row is never locked by it.
        Ok(Box::new(PgAuditSnapshot::connect(
            self.config.clone(),
            &self.tls,
        )?))
    }

    fn durable(&self) -> bool {
        true
    }

    fn path(&self) -> String {
        self.shown.clone()
    }

    fn shared(&self) -> bool {
        true
    }

    fn connected_governors(&self) -> crate::Result<Option<Vec<ConnectedGovernor>>> {
        PostgresStore::connected_governors(self).map(Some)
    }

    /// Makes durable every transaction this store ended before the call (see the module
    /// documentation). One flush settles all the batches ended before it started.
    fn settle(&self) -> crate::Result<()> {
        if !self.early_release {
            return Ok(());
        }
        let want = self.ended.load(Ordering::Acquire);
        let mut f = self.flush.lock().unwrap_or_else(|p| p.into_inner());
        if f.durable >= want {
            return Ok(());
        }
        let target = self.ended.load(Ordering::Acquire);
        let started = Instant::now();
        if f.client.as_ref().is_none_or(|c| c.is_closed()) {
            f.client = None;
            f.client = Some(self.connect_flush()?);
        }
        let client = f.client.as_mut().expect("connected");
        // A transactional WAL record makes this commit wait for its flush (a transaction
        // that only took an id, or wrote nothing, commits without waiting), and the flush
        // covers every commit record before it in the WAL. Any role may call it, at any
        // `wal_level`; logical decoding, if any, sees a message under this prefix.
        match client
            .batch_execute("SELECT pg_catalog.pg_logical_emit_message(true, 'leasekit.settle', '')")
        {
            Ok(()) => {
                f.durable = target;
                if let Some(tr) = &self.trace {
                    let mut tr = tr.lock().unwrap_or_else(|p| p.into_inner());
                    tr.flushes += 1;
                    tr.ns[6] += started.elapsed().as_nanos() as u64;
                }
                Ok(())
            }
            Err(e) => {
                f.client = None;
                Err(unavailable(format!(
                    "PostgreSQL: waiting for the commit to be durable failed, its outcome is \
                     unknown ({e}); retry with the same idempotencyKey"
                )))
            }
        }
    }

    fn transact(&self, seen: Option<u64>, decide: &mut Decide<'_>) -> crate::Result<u64> {
        let mut guard = self.conn.lock().unwrap_or_else(|p| p.into_inner());
        let mut attempt = 0;
        loop {
            attempt += 1;
            if guard.as_ref().is_none_or(|c| c.client.is_closed()) {
                *guard = None;
                *guard = Some(self.connect()?);
            }
            let conn = guard.as_mut().expect("connected");
            let ctx = Ctx {
                trace: self.trace.as_ref(),
                last: &self.last,
                early_release: self.early_release,
            };
            match Self::attempt(conn, seen, decide, &ctx) {
                Ok(v) => {
                    self.ended.fetch_add(1, Ordering::AcqRel);
                    return Ok(v);
                }
                Err(Failure::Before(e)) => {
                    let closed = conn.client.is_closed();
                    if closed {
                        *guard = None;
                    }
                    // A broken connection is retried once (a fresh one); a serialization
                    // failure or deadlock up to ATTEMPTS times.
                    let again = (retriable(&e) && attempt < ATTEMPTS) || (closed && attempt < 2);
                    if !again {
                        return Err(pg_err(e));
                    }
                    std::thread::sleep(Duration::from_millis(2 << attempt));
                }
                Err(Failure::Decide(e)) => return Err(e),
                Err(Failure::Write(e)) => {
                    if conn.client.is_closed() {
                        *guard = None;
                    }
                    return Err(if e.message().starts_with("store_unavailable") {
                        e
                    } else {
                        internal(format!("store_unavailable: {} (retryable)", e.message()))
                    });
                }
                Err(Failure::Commit(e)) => {
                    if conn.client.is_closed() {
                        *guard = None;
                    }
                    return Err(unavailable(format!(
                        "PostgreSQL: the commit was cut off, its outcome is unknown ({e}); \
                         retry with the same idempotencyKey"
                    )));
                }
            }
        }
    }
}
