//! The in-memory store (tests, throwaway governors): it keeps the audit lines only.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use super::{AuditSnapshot, Batch, Snapshot, Store};

/// In-memory store.
#[derive(Debug, Default)]
pub struct MemoryStore {
    audit: Mutex<Vec<String>>,
    audit_down: AtomicBool,
}

impl MemoryStore {
    /// A fresh store.
    pub fn new() -> MemoryStore {
        MemoryStore::default()
    }

    /// Makes audit writes fail (true) or succeed again (false): for testing "no effect
    /// without audit".
    pub fn set_audit_unavailable(&self, down: bool) {
        self.audit_down.store(down, Ordering::SeqCst);
    }
}

impl Store for MemoryStore {
    fn wants_rows(&self) -> bool {
        false
    }

    fn load(&self) -> crate::Result<Option<Snapshot>> {
        Ok(None)
    }

    fn commit(&self, batch: Batch) -> crate::Result<()> {
        if !batch.audit.is_empty() {
            self.audit
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .extend(batch.audit);
        }
        Ok(())
    }

    fn read_audit(&self, from: u64, to: u64) -> crate::Result<Vec<String>> {
        let lines = self.audit.lock().unwrap_or_else(|p| p.into_inner());
        let from = from.max(1) as usize;
        let to = (to as usize).min(lines.len());
        Ok(if from > to {
            Vec::new()
        } else {
            lines[from - 1..to].to_vec()
        })
    }

    fn audit_snapshot(&self) -> crate::Result<Box<dyn AuditSnapshot + '_>> {
        // The lines as of now: later ones are not part of this snapshot. (A memory store keeps
        // no head apart from its lines: nothing else to compare with.)
        let end = self.audit.lock().unwrap_or_else(|p| p.into_inner()).len() as u64;
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
        let lines = self.store.audit.lock().unwrap_or_else(|p| p.into_inner());
        let from = after.min(self.end) as usize;
        let to = (from + max).min(self.end as usize);
        Ok((from as u64 + 1..)
            .zip(lines[from..to].iter().cloned())
            .collect())
    }
}
