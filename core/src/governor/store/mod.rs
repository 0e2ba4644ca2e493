//! Stores behind one trait (SEMANTICS 13.11). The engine never knows which it has: it hands
//! each command's changes over as a [`Batch`] of touched rows (leases, approvals,
//! idempotency records, the meta row) plus the audit lines, and a store commits a batch in
//! one transaction. A PostgreSQL store fits the same trait: a batch names exactly the rows a
//! command touched, so its transaction can lock only those.

pub mod memory;
pub mod sqlite;

use std::collections::BTreeMap;

pub use memory::MemoryStore;
pub use sqlite::{SqliteStore, Synchronous};

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

/// A place the governor's state lives.
pub trait Store: Send + Sync {
    /// False for a store that keeps no rows (memory): the engine then skips serializing them.
    fn wants_rows(&self) -> bool;
    /// The stored state, or `None` for a fresh store.
    fn load(&self) -> crate::Result<Option<Snapshot>>;
    /// Commits a batch atomically (all of it or none).
    fn commit(&self, batch: Batch) -> crate::Result<()>;
    /// Audit lines `from..=to` (1-based; clamped to what exists).
    fn read_audit(&self, from: u64, to: u64) -> crate::Result<Vec<String>>;
    /// False when audit records cannot be written now (then effects are refused).
    fn audit_writable(&self) -> bool {
        true
    }
    /// Durable?
    fn durable(&self) -> bool;
    /// Path, for status.
    fn path(&self) -> String;
}
