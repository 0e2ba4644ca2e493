//! Stores behind one trait (SEMANTICS 13.11). The engine never knows which it has: it hands
//! each command's changes over as a [`Batch`] of touched rows (leases, approvals,
//! idempotency records, the meta row) plus the audit lines, and a store commits a batch in
//! one transaction. A PostgreSQL store fits the same trait: a batch names exactly the rows a
//! command touched, so its transaction can lock only those.
//!
//! A *shared* store (PostgreSQL, a fleet: SEMANTICS 13.12) is written by several governors:
//! there the governor decides each batch inside [`Store::transact`], after the store has
//! locked its meta row and handed over what the others committed ([`Refresh`]).

pub mod faulty;
pub mod memory;
#[cfg(feature = "postgres")]
pub mod postgres;
#[cfg(feature = "postgres")]
mod postgres_schema;
#[cfg(feature = "postgres")]
mod postgres_tls;
pub mod sqlite;

use std::collections::BTreeMap;

pub use faulty::{Fault, FaultyStore, Injected, StoreOp};
pub use memory::MemoryStore;
#[cfg(feature = "postgres")]
pub use postgres::{PgAuditSnapshot, PostgresStore, SchemaMigration};
pub use sqlite::{SQLITE_FORMAT, SqliteAuditSnapshot, SqliteStore, Synchronous};

/// Opens the store a location names, read as every binding's `Governor.open` reads it
/// ([`crate::governor::open::StoreSpec::parse`]): `memory` or `:memory:`, `sqlite:PATH` or a
/// SQLite file path, `postgres://...` or `postgresql://...` (a PostgreSQL database shared by a
/// fleet; feature `postgres`). An empty location is refused.
pub fn open_location(location: &str) -> crate::Result<std::sync::Arc<dyn Store>> {
    use crate::governor::open::StoreSpec;
    match StoreSpec::parse(location)? {
        StoreSpec::Memory => Ok(std::sync::Arc::new(MemoryStore::new())),
        StoreSpec::Sqlite(path) => Ok(std::sync::Arc::new(SqliteStore::open(path)?)),
        #[cfg(feature = "postgres")]
        StoreSpec::Postgres(url) => Ok(std::sync::Arc::new(PostgresStore::open(&url)?)),
        #[cfg(not(feature = "postgres"))]
        StoreSpec::Postgres(_) => Err(crate::Error::new(
            crate::ErrorCode::InvalidRequest,
            "this leasekit was built without PostgreSQL support (feature `postgres`)",
        )),
    }
}

/// A read-only [`AuditSnapshot`] of the store a location names, and the location as shown
/// (no password): `postgres://...` or `postgresql://...` (feature `postgres`), `sqlite:PATH`,
/// or else the path of a SQLite store file. Nothing is created, migrated or written: it is
/// safe on the store of a running daemon, and on one left by a crash.
pub fn open_audit_snapshot(location: &str) -> crate::Result<(Box<dyn AuditSnapshot>, String)> {
    let lower = location.get(..13).unwrap_or(location).to_ascii_lowercase();
    if lower.starts_with("postgres://") || lower.starts_with("postgresql://") {
        #[cfg(feature = "postgres")]
        {
            let snap = PgAuditSnapshot::open(location)?;
            let shown = snap.shown().to_string();
            return Ok((Box::new(snap), shown));
        }
        #[cfg(not(feature = "postgres"))]
        return Err(crate::Error::new(
            crate::ErrorCode::InvalidRequest,
            "this leasekit was built without PostgreSQL support (feature `postgres`)",
        ));
    }
    let path = location.strip_prefix("sqlite:").unwrap_or(location);
    Ok((Box::new(SqliteAuditSnapshot::open(path)?), path.to_string()))
}

/// Row tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Table {
    /// Leases.
    Lease,
    /// Approvals.
    Approval,
    /// Idempotency records.
    Idem,
    /// Rate-window events.
    Rate,
    /// Scoped daily budget counters (`org:<id>`, `ws:<id>`, `actor:<id>`), in a store that keeps
    /// them as rows of their own ([`Store::keeps_meta_parts_as_rows`]).
    Scope,
    /// Policy contents, in a store that keeps them as rows of their own: the content of each
    /// policy in the history by its hash, and the staged bundle's by `staged:<hash>`.
    Policy,
}

/// The changes of one or more commands, committed together.
#[derive(Debug, Clone, Default)]
pub struct Batch {
    /// Touched rows: `Some(json)` upserts, `None` deletes (the latest value per key wins).
    pub rows: BTreeMap<(Table, String), Option<String>>,
    /// The meta row, when it changed.
    pub meta: Option<String>,
    /// Audit lines to append, in chain order.
    pub audit: Vec<String>,
}

impl Batch {
    /// True when there is nothing to write.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty() && self.meta.is_none() && self.audit.is_empty()
    }

    /// Appends a later batch (later values win).
    pub fn merge(&mut self, later: Batch) {
        self.rows.extend(later.rows);
        if later.meta.is_some() {
            self.meta = later.meta;
        }
        self.audit.extend(later.audit);
    }
}

/// What a durable store holds, for a restart.
#[derive(Debug, Clone, Default)]
pub struct Snapshot {
    /// The meta row.
    pub meta: String,
    /// Rows by table.
    pub rows: Vec<(Table, String, String)>,
}

/// What a shared store hands the engine at the start of a batch transaction, with the meta
/// row locked.
#[derive(Debug, Clone)]
pub enum Refresh {
    /// Nothing was committed since the version the engine last saw.
    Unchanged,
    /// The meta row and the rows written since that version (`None` body: deleted).
    Changes {
        /// The meta row.
        meta: String,
        /// Changed rows.
        rows: Vec<(Table, String, Option<String>)>,
    },
    /// The whole state (`None`: a fresh store): the engine rebuilds its image.
    Full(Option<Snapshot>),
}

/// The decision step of a shared-store transaction: brings the image up to date, decides
/// the queued commands and answers their changes.
pub type Decide<'a> = dyn FnMut(Refresh) -> crate::Result<Batch> + 'a;

/// A read-only view of a store's audit chain as of one moment, read in pages (SEMANTICS
/// 13.16): `VerifyAudit`, `ExportAudit` and `leasekit audit verify|export` read through it, so
/// their memory does not grow with the chain. A durable store serves it from its own read-only
/// connection and snapshot, outside the lock its commits take: a long read never holds up a
/// command.
pub trait AuditSnapshot: Send {
    /// The chain head (`entryHash` of the last line) and line count the store records, as of
    /// the snapshot; `None` when the store keeps no separate record of them.
    fn recorded(&self) -> Option<(String, u64)>;
    /// Up to `max` lines after line `after` (0: from the first), in chain order, each with its
    /// line number as stored.
    fn page(&mut self, after: u64, max: usize) -> crate::Result<Vec<(u64, String)>>;
}

/// The [`AuditSnapshot`] of a store that has no snapshot reader of its own: pages through
/// [`Store::read_audit`], nothing recorded to compare with.
struct ReadAuditPages<'a, S: ?Sized>(&'a S);

impl<S: Store + ?Sized> AuditSnapshot for ReadAuditPages<'_, S> {
    fn recorded(&self) -> Option<(String, u64)> {
        None
    }

    fn page(&mut self, after: u64, max: usize) -> crate::Result<Vec<(u64, String)>> {
        let from = after.saturating_add(1);
        let to = from.saturating_add(max.max(1) as u64 - 1);
        let lines = self.0.read_audit(from, to)?;
        Ok((from..).zip(lines).collect())
    }
}

/// A place the governor's state lives.
pub trait Store: Send + Sync {
    /// False for a store that keeps no rows (memory): the engine then skips serializing them.
    fn wants_rows(&self) -> bool;
    /// True for a store that keeps the scoped daily budget counters ([`Table::Scope`]) and the
    /// policy contents ([`Table::Policy`]) as rows of their own: a command then writes the
    /// counters it changed, and a policy's content is written once, not with every meta row.
    /// False (the default): they are part of the meta row.
    fn keeps_meta_parts_as_rows(&self) -> bool {
        false
    }
    /// The stored state, or `None` for a fresh store.
    fn load(&self) -> crate::Result<Option<Snapshot>>;
    /// Commits a batch atomically (all of it or none).
    fn commit(&self, batch: Batch) -> crate::Result<()>;
    /// Audit lines `from..=to` (1-based; clamped to what exists).
    fn read_audit(&self, from: u64, to: u64) -> crate::Result<Vec<String>>;
    /// A read-only snapshot of the audit chain, read in pages ([`AuditSnapshot`]). The default
    /// pages through [`Store::read_audit`] with nothing recorded to compare with; the stores
    /// here answer their own snapshot with the head and count they record.
    fn audit_snapshot(&self) -> crate::Result<Box<dyn AuditSnapshot + '_>> {
        Ok(Box::new(ReadAuditPages(self)))
    }
    /// False when audit records cannot be written now (then effects are refused).
    fn audit_writable(&self) -> bool {
        true
    }
    /// Durable?
    fn durable(&self) -> bool;
    /// Path, for status.
    fn path(&self) -> String;
    /// True for a store that other governors write too (SEMANTICS 13.12): the governor then
    /// decides inside [`Store::transact`] and never calls [`Store::commit`].
    fn shared(&self) -> bool {
        false
    }
    /// The governors connected to a shared store now (`GetStatus`); `None` for a store of
    /// one governor.
    fn connected_governors(
        &self,
    ) -> crate::Result<Option<Vec<crate::governor::wire::ConnectedGovernor>>> {
        Ok(None)
    }
    /// Waits until every transaction [`Store::transact`] ended before this call is durable.
    /// A shared store may commit without waiting for the flush (so its locks are released
    /// sooner); no command of a batch is answered before this returns. An error means the
    /// outcome is unknown.
    fn settle(&self) -> crate::Result<()> {
        Ok(())
    }
    /// One batch transaction of a shared store: lock the meta row, call `decide` once with
    /// what changed since version `seen` (everything when `None`), write the batch it answers,
    /// commit. Answers the version now current. An error means nothing was written, except
    /// when the commit itself was cut off (then the outcome is unknown and the error says so).
    fn transact(&self, seen: Option<u64>, decide: &mut Decide<'_>) -> crate::Result<u64> {
        let _ = (seen, decide);
        Err(crate::Error::new(
            crate::ErrorCode::InternalError,
            "this store is not shared",
        ))
    }
}
