//! The in-memory store (tests, throwaway governors). By default it keeps the audit lines only
//! (the engine holds the state, and skips serializing rows). [`MemoryStore::reloadable`]
//! keeps every committed row as well, so a governor can be rebuilt from it after a failure or
//! reopened on it after a simulated crash (fault injection, simulations).

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard};

use super::{AuditSnapshot, Batch, Snapshot, Store, Table};

#[derive(Debug, Default)]
struct Held {
    audit: Vec<String>,
    meta: Option<String>,
    rows: BTreeMap<(Table, String), String>,
}

/// In-memory store.
#[derive(Debug, Default)]
pub struct MemoryStore {
    held: Mutex<Held>,
    audit_down: AtomicBool,
    keep_rows: bool,
}

impl MemoryStore {
    /// A fresh store that keeps the audit lines only: the fastest, but a governor on it
    /// cannot be rebuilt after a failed commit or a panic inside a command (it then refuses
    /// every later command, `store_unavailable`).
    pub fn new() -> MemoryStore {
        MemoryStore::default()
    }

    /// A fresh store that keeps every committed row too (each commit serializes the rows it
    /// touched): a governor on it recovers from a failure by reloading what was committed,
    /// and a new governor can be opened on it as after a restart.
    pub fn reloadable() -> MemoryStore {
        MemoryStore {
            keep_rows: true,
            ..MemoryStore::default()
        }
    }

    fn held(&self) -> MutexGuard<'_, Held> {
        self.held.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Makes audit writes fail (true) or succeed again (false): for testing "no effect
    /// without audit".
    pub fn set_audit_unavailable(&self, down: bool) {
        self.audit_down.store(down, Ordering::SeqCst);
    }
}

impl Store for MemoryStore {
    fn wants_rows(&self) -> bool {
        self.keep_rows
    }

    fn load(&self) -> crate::Result<Option<Snapshot>> {
        let h = self.held();
        Ok(h.meta.as_ref().map(|meta| Snapshot {
            meta: meta.clone(),
            rows: h
                .rows
                .iter()
                .map(|((t, id), body)| (*t, id.clone(), body.clone()))
                .collect(),
        }))
    }

    fn commit(&self, batch: Batch) -> crate::Result<()> {
        if batch.is_empty() {
            return Ok(());
        }
        let mut h = self.held();
        h.audit.extend(batch.audit);
        if self.keep_rows {
            for (key, body) in batch.rows {
                match body {
                    Some(b) => h.rows.insert(key, b),
                    None => h.rows.remove(&key),
                };
            }
            if batch.meta.is_some() {
                h.meta = batch.meta;
            }
        }
        Ok(())
    }

    fn read_audit(&self, from: u64, to: u64) -> crate::Result<Vec<String>> {
        let h = self.held();
        let lines = &h.audit;
        let from = from.max(1) as usize;
        let to = (to.min(usize::MAX as u64) as usize).min(lines.len());
        Ok(if from > to {
            Vec::new()
        } else {
            lines[from - 1..to].to_vec()
        })
    }

    fn audit_snapshot(&self) -> crate::Result<Box<dyn AuditSnapshot + '_>> {
        // The lines as of now: later ones are not part of this snapshot. (A memory store keeps
        // no head apart from its lines: nothing else to compare with.)
        let end = self.held().audit.len() as u64;
        Ok(Box::new(MemorySnapshot { store: self, end }))
    }

    fn audit_writable(&self) -> bool {
        !self.audit_down.load(Ordering::SeqCst)
    }

    fn durable(&self) -> bool {
        false
    }

    fn path(&self) -> String {
        String::new()
    }
}

/// The audit lines of a [`MemoryStore`] up to the count it had when the snapshot was taken.
struct MemorySnapshot<'a> {
    store: &'a MemoryStore,
    end: u64,
}

impl AuditSnapshot for MemorySnapshot<'_> {
    fn recorded(&self) -> Option<(String, u64)> {
        None
    }

    fn page(&mut self, after: u64, max: usize) -> crate::Result<Vec<(u64, String)>> {
        let h = self.store.held();
        let from = after.min(self.end) as usize;
        let to = (from + max).min(self.end as usize);
        Ok((from as u64 + 1..)
            .zip(h.audit[from..to].iter().cloned())
            .collect())
    }
}
