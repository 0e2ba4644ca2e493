//! The in-memory store (tests, throwaway governors): it keeps the audit lines only.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use super::{Batch, Snapshot, Store};

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
