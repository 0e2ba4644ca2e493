//! The SQLite store (the embedded durable default): WAL, `synchronous=FULL` by default (a
//! power loss loses no answered grant) or `NORMAL` (survives a process crash, not a power
//! loss). One `BEGIN IMMEDIATE` transaction per batch.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicI64, Ordering};

use rusqlite::{Connection, OpenFlags, OptionalExtension, params};

use super::{AuditSnapshot, Batch, Snapshot, Store, Table};
use crate::governor::audit::GENESIS_HASH;
use crate::{Error, ErrorCode};

/// SQLite durability level.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Synchronous {
    /// fsync at every commit (default).
    #[default]
    Full,
    /// fsync at checkpoints only: survives a process crash, not a power loss.
    Normal,
}

fn db_err(e: rusqlite::Error) -> Error {
    Error::new(ErrorCode::InternalError, format!("sqlite: {e}"))
}

/// A SQLite file store. It serves one governor: a commit is refused when another
/// connection (a second governor on the same file) has committed since this store was opened,
/// so two governors on one file can never both grant from the same pools (SQLite's
/// `PRAGMA data_version`; a fleet shares PostgreSQL instead, SEMANTICS 13.12).
#[derive(Debug)]
pub struct SqliteStore {
    conn: Mutex<Connection>,
    path: PathBuf,
    /// `PRAGMA data_version` when opened: it changes only when another connection commits.
    data_version: AtomicI64,
}

fn data_version(conn: &Connection) -> crate::Result<i64> {
    conn.prepare_cached("PRAGMA data_version")
        .and_then(|mut st| st.query_row([], |r| r.get(0)))
        .map_err(db_err)
}

/// The format of the store file this leasekit writes (`PRAGMA user_version`). A file of a
/// newer format is refused (an older leasekit could misread it); a file of format 0 (written
/// before the version was recorded: the same tables) is stamped with this one.
/// Format 2 keeps the scoped daily budget counters (`scopes`) and the policy contents
/// (`policies`) in tables of their own; a format-1 file (both inside the meta row) is converted
/// by its first open.
pub const SQLITE_FORMAT: i64 = 2;

/// Refuses a file whose recorded format is newer than [`SQLITE_FORMAT`]
/// (`details.reason = "store_format"`).
fn check_format(conn: &Connection, shown: &Path) -> crate::Result<i64> {
    let found: i64 = conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .map_err(db_err)?;
    if !(0..=SQLITE_FORMAT).contains(&found) {
        return Err(Error::new(
            ErrorCode::InternalError,
            format!(
                "the SQLite store {} has format {found}, and this leasekit reads format \
                 {SQLITE_FORMAT} and older: open it with the leasekit that wrote it (a newer \
                 release), or start from a new file",
                shown.display()
            ),
        )
        .with_detail("reason", "store_format"));
    }
    Ok(found)
}

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS meta (id INTEGER PRIMARY KEY CHECK (id = 1), body TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS leases (id TEXT PRIMARY KEY, body TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS approvals (id TEXT PRIMARY KEY, body TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS idem (id TEXT PRIMARY KEY, body TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS rate (id TEXT PRIMARY KEY, body TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS scopes (id TEXT PRIMARY KEY, body TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS policies (id TEXT PRIMARY KEY, body TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS audit (line INTEGER PRIMARY KEY, body TEXT NOT NULL);
";

impl SqliteStore {
    /// Opens (or creates) the file with `synchronous=FULL`.
    pub fn open(path: impl AsRef<Path>) -> crate::Result<SqliteStore> {
        SqliteStore::open_with(path, Synchronous::Full)
    }

    /// Opens with a durability level.
    pub fn open_with(path: impl AsRef<Path>, sync: Synchronous) -> crate::Result<SqliteStore> {
        let path = path.as_ref().to_path_buf();
        let mut conn = Connection::open(&path).map_err(db_err)?;
        conn.busy_timeout(std::time::Duration::from_secs(10))
            .map_err(db_err)?;
        // A newer format is refused before anything is written to the file.
        check_format(&conn, &path)?;
        conn.pragma_update(None, "journal_mode", "WAL")
            .map_err(db_err)?;
        conn.pragma_update(
            None,
            "synchronous",
            match sync {
                Synchronous::Full => "FULL",
                Synchronous::Normal => "NORMAL",
            },
        )
        .map_err(db_err)?;
        // Checked and stamped in one write transaction (rolled back when dropped on an
        // error): two processes opening a new file at once see one format.
        let tx = conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(db_err)?;
        let found = check_format(&tx, &path)?;
        tx.execute_batch(SCHEMA).map_err(db_err)?;
        if found < SQLITE_FORMAT {
            tx.pragma_update(None, "user_version", SQLITE_FORMAT)
                .map_err(db_err)?;
        }
        tx.commit().map_err(db_err)?;
        let version = data_version(&conn)?;
        Ok(SqliteStore {
            conn: Mutex::new(conn),
            path,
            data_version: AtomicI64::new(version),
        })
    }

    fn table(t: Table) -> &'static str {
        match t {
            Table::Lease => "leases",
            Table::Approval => "approvals",
            Table::Idem => "idem",
            Table::Rate => "rate",
            Table::Scope => "scopes",
            Table::Policy => "policies",
        }
    }

    /// The upsert of a row of table `t` (a constant: the statement cache finds it without
    /// building its text).
    fn upsert_sql(t: Table) -> &'static str {
        match t {
            Table::Lease => {
                "INSERT INTO leases (id, body) VALUES (?1, ?2) ON CONFLICT(id) DO UPDATE SET body = excluded.body"
            }
            Table::Approval => {
                "INSERT INTO approvals (id, body) VALUES (?1, ?2) ON CONFLICT(id) DO UPDATE SET body = excluded.body"
            }
            Table::Idem => {
                "INSERT INTO idem (id, body) VALUES (?1, ?2) ON CONFLICT(id) DO UPDATE SET body = excluded.body"
            }
            Table::Rate => {
                "INSERT INTO rate (id, body) VALUES (?1, ?2) ON CONFLICT(id) DO UPDATE SET body = excluded.body"
            }
            Table::Scope => {
                "INSERT INTO scopes (id, body) VALUES (?1, ?2) ON CONFLICT(id) DO UPDATE SET body = excluded.body"
            }
            Table::Policy => {
                "INSERT INTO policies (id, body) VALUES (?1, ?2) ON CONFLICT(id) DO UPDATE SET body = excluded.body"
            }
        }
    }

    /// The delete of a row of table `t`.
    fn delete_sql(t: Table) -> &'static str {
        match t {
            Table::Lease => "DELETE FROM leases WHERE id = ?1",
            Table::Approval => "DELETE FROM approvals WHERE id = ?1",
            Table::Idem => "DELETE FROM idem WHERE id = ?1",
            Table::Rate => "DELETE FROM rate WHERE id = ?1",
            Table::Scope => "DELETE FROM scopes WHERE id = ?1",
            Table::Policy => "DELETE FROM policies WHERE id = ?1",
        }
    }
}

impl Store for SqliteStore {
    fn wants_rows(&self) -> bool {
        true
    }

    fn keeps_meta_parts_as_rows(&self) -> bool {
        true
    }

    fn load(&self) -> crate::Result<Option<Snapshot>> {
        let conn = self.conn.lock().unwrap_or_else(|p| p.into_inner());
        let meta: Option<String> = conn
            .query_row("SELECT body FROM meta WHERE id = 1", [], |r| r.get(0))
            .optional()
            .map_err(db_err)?;
        let Some(meta) = meta else { return Ok(None) };
        let mut rows = Vec::new();
        for t in [
            Table::Lease,
            Table::Approval,
            Table::Idem,
            Table::Rate,
            Table::Scope,
            Table::Policy,
        ] {
            let mut st = conn
                .prepare(&format!(
                    "SELECT id, body FROM {} ORDER BY id",
                    Self::table(t)
                ))
                .map_err(db_err)?;
            let it = st
                .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))
                .map_err(db_err)?;
            for row in it {
                let (id, body) = row.map_err(db_err)?;
                rows.push((t, id, body));
            }
        }
        Ok(Some(Snapshot { meta, rows }))
    }

    fn commit(&self, batch: Batch) -> crate::Result<()> {
        if batch.is_empty() {
            return Ok(());
        }
        let mut conn = self.conn.lock().unwrap_or_else(|p| p.into_inner());
        let tx = conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(db_err)?;
        // Inside the write lock: has another governor committed to this file since we
        // loaded it? Then our image of the pools is stale; refuse (nothing is written).
        if data_version(&tx)? != self.data_version.load(Ordering::Acquire) {
            return Err(Error::new(
                ErrorCode::InternalError,
                format!(
                    "another governor has written the SQLite store {} since this one opened it; \
                     a SQLite store serves one governor (share it through `leasekit serve`, or \
                     use PostgreSQL for a fleet)",
                    self.path.display()
                ),
            )
            .with_detail("reason", "store_shared"));
        }
        for ((t, id), body) in &batch.rows {
            match body {
                Some(b) => tx
                    .prepare_cached(Self::upsert_sql(*t))
                    .and_then(|mut s| s.execute(params![id, b]))
                    .map_err(db_err)?,
                None => tx
                    .prepare_cached(Self::delete_sql(*t))
                    .and_then(|mut s| s.execute(params![id]))
                    .map_err(db_err)?,
            };
        }
        if !batch.audit.is_empty() {
            let mut st = tx
                .prepare_cached("INSERT INTO audit (body) VALUES (?1)")
                .map_err(db_err)?;
            for line in &batch.audit {
                st.execute(params![line]).map_err(db_err)?;
            }
        }
        if let Some(m) = &batch.meta {
            tx.prepare_cached(
                "INSERT INTO meta (id, body) VALUES (1, ?1) ON CONFLICT(id) DO UPDATE SET body = excluded.body",
            )
            .and_then(|mut s| s.execute(params![m]))
            .map_err(db_err)?;
        }
        tx.commit().map_err(db_err)
    }

    fn read_audit(&self, from: u64, to: u64) -> crate::Result<Vec<String>> {
        let conn = self.conn.lock().unwrap_or_else(|p| p.into_inner());
        let mut st = conn
            .prepare_cached("SELECT body FROM audit WHERE line >= ?1 AND line <= ?2 ORDER BY line")
            .map_err(db_err)?;
        let to = to.min(i64::MAX as u64) as i64;
        let it = st
            .query_map(params![from.max(1) as i64, to], |r| r.get::<_, String>(0))
            .map_err(db_err)?;
        it.collect::<Result<Vec<_>, _>>().map_err(db_err)
    }

    fn audit_snapshot(&self) -> crate::Result<Box<dyn AuditSnapshot + '_>> {
        // Its own read-only connection: never the one commits take.
        Ok(Box::new(SqliteAuditSnapshot::open_with(&self.path, true)?))
    }

    fn durable(&self) -> bool {
        true
    }

    fn path(&self) -> String {
        self.path.display().to_string()
    }
}

/// A read-only snapshot of a SQLite store's audit chain ([`AuditSnapshot`]): its own
/// connection, opened `SQLITE_OPEN_READ_ONLY` (it never writes the database and never takes its
/// write lock), and one read transaction, so every page and the recorded head are as of the
/// open. In WAL mode a reader does not block the writer: it is safe while a daemon runs on the
/// file, and after a crash it reads every committed transaction (the WAL included).
#[derive(Debug)]
pub struct SqliteAuditSnapshot {
    conn: Connection,
    recorded: (String, u64),
}

impl SqliteAuditSnapshot {
    /// Opens the store file at `path` read-only.
    pub fn open(path: impl AsRef<Path>) -> crate::Result<SqliteAuditSnapshot> {
        SqliteAuditSnapshot::open_with(path.as_ref(), false)
    }

    fn open_with(path: &Path, nofollow: bool) -> crate::Result<SqliteAuditSnapshot> {
        let shown = path.display();
        let mut flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        if nofollow {
            flags |= OpenFlags::SQLITE_OPEN_NOFOLLOW;
        }
        let io = |e: rusqlite::Error| Error::invalid(format!("{shown}: sqlite: {e}"));
        let conn = Connection::open_with_flags(path, flags).map_err(io)?;
        conn.busy_timeout(std::time::Duration::from_secs(10))
            .map_err(io)?;
        // One read transaction: the snapshot starts at its first read.
        conn.execute_batch("BEGIN DEFERRED").map_err(io)?;
        check_format(&conn, path)?;
        let tables: i64 = conn
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN ('meta', 'audit')",
                [],
                |r| r.get(0),
            )
            .map_err(io)?;
        if tables != 2 {
            return Err(Error::invalid(format!(
                "{shown}: not a leasekit governor store (no meta and audit tables)"
            )));
        }
        let meta: Option<String> = conn
            .query_row("SELECT body FROM meta WHERE id = 1", [], |r| r.get(0))
            .optional()
            .map_err(io)?;
        let recorded = match meta {
            None => (GENESIS_HASH.to_string(), 0),
            Some(body) => recorded_head(&body).ok_or_else(|| {
                Error::new(
                    ErrorCode::InternalError,
                    format!("{shown}: the store's meta row records no audit head and count"),
                )
            })?,
        };
        Ok(SqliteAuditSnapshot { conn, recorded })
    }
}

/// The audit head and count the meta row records (`{"audit": {"head", "count"}}`).
fn recorded_head(meta: &str) -> Option<(String, u64)> {
    let v: serde_json::Value = serde_json::from_str(meta).ok()?;
    let a = v.get("audit")?;
    Some((
        a.get("head")?.as_str()?.to_string(),
        a.get("count")?.as_u64()?,
    ))
}

impl AuditSnapshot for SqliteAuditSnapshot {
    fn recorded(&self) -> Option<(String, u64)> {
        Some(self.recorded.clone())
    }

    fn page(&mut self, after: u64, max: usize) -> crate::Result<Vec<(u64, String)>> {
        let mut st = self
            .conn
            .prepare_cached("SELECT line, body FROM audit WHERE line > ?1 ORDER BY line LIMIT ?2")
            .map_err(db_err)?;
        let after = after.min(i64::MAX as u64) as i64;
        let max = max.min(i64::MAX as usize) as i64;
        let rows = st
            .query_map(params![after, max], |r| {
                Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?))
            })
            .map_err(db_err)?;
        rows.map(|r| r.map(|(n, b)| (n.max(0) as u64, b)))
            .collect::<Result<Vec<_>, _>>()
            .map_err(db_err)
    }
}
