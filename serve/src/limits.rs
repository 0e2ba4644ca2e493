//! The daemon's shared resource caps (SEMANTICS 13.16 "Daemon resources"): one byte budget for
//! the request bytes buffered across all connections, and a count of connections per uid.
//!
//! The byte budget is reserved as bytes arrive (a connection asks for room before each read
//! and gives back what the read did not use), never at the length a frame announces, so a
//! peer that announces 16 MiB and sends little holds little. The last eighth of the budget
//! is kept for connections that buffer at most [`SMALL_REQUEST`] bytes: a peer that fills the
//! budget with large partial frames cannot starve ordinary commands of other peers.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

/// A connection that buffers at most this many bytes may use the whole budget; beyond it,
/// only the budget less its reserve for small requests.
pub const SMALL_REQUEST: usize = 64 * 1024;

/// The byte budget shared by every connection of a daemon.
#[derive(Debug)]
pub struct ByteBudget {
    limit: usize,
    /// What connections buffering more than [`SMALL_REQUEST`] bytes may fill it up to.
    large_limit: usize,
    used: AtomicUsize,
}

impl ByteBudget {
    /// A budget of `limit` bytes.
    pub fn new(limit: usize) -> Arc<ByteBudget> {
        Arc::new(ByteBudget {
            limit,
            large_limit: limit - limit / 8,
            used: AtomicUsize::new(0),
        })
    }

    /// The configured cap.
    pub fn limit(&self) -> usize {
        self.limit
    }

    /// Bytes reserved right now.
    pub fn used(&self) -> usize {
        self.used.load(Ordering::Relaxed)
    }

    /// Reserves up to `want` bytes for a connection that already holds `held`: as many as
    /// fit, possibly 0. The part that keeps the connection within [`SMALL_REQUEST`] may use
    /// the whole budget; the rest only its large share.
    fn reserve(&self, held: usize, want: usize) -> usize {
        let small = want.min(SMALL_REQUEST.saturating_sub(held));
        let mut used = self.used.load(Ordering::Relaxed);
        loop {
            let grant = small
                .min(self.limit.saturating_sub(used))
                .max(want.min(self.large_limit.saturating_sub(used)));
            if grant == 0 {
                return 0;
            }
            match self.used.compare_exchange_weak(
                used,
                used + grant,
                Ordering::AcqRel,
                Ordering::Relaxed,
            ) {
                Ok(_) => return grant,
                Err(now) => used = now,
            }
        }
    }

    fn release(&self, n: usize) {
        self.used.fetch_sub(n, Ordering::AcqRel);
    }
}

/// One connection's share of the budget: what it has reserved, released when dropped.
#[derive(Debug)]
pub struct BufferHold {
    budget: Arc<ByteBudget>,
    held: usize,
}

impl BufferHold {
    /// A connection's (empty) share of `budget`.
    pub fn new(budget: Arc<ByteBudget>) -> BufferHold {
        BufferHold { budget, held: 0 }
    }

    /// Reserves room for up to `want` more bytes; returns how many were granted (0 when the
    /// budget is full).
    pub fn grow(&mut self, want: usize) -> usize {
        let grant = self.budget.reserve(self.held, want);
        self.held += grant;
        grant
    }

    /// Gives back all but `keep` bytes (what the connection still buffers).
    pub fn shrink_to(&mut self, keep: usize) {
        if keep < self.held {
            self.budget.release(self.held - keep);
            self.held = keep;
        }
    }

    /// Bytes this connection holds.
    pub fn held(&self) -> usize {
        self.held
    }
}

impl Drop for BufferHold {
    fn drop(&mut self) {
        self.budget.release(self.held);
    }
}

/// Connections per uid, capped.
#[derive(Debug)]
pub struct UidConnections {
    limit: usize,
    counts: Mutex<HashMap<u32, usize>>,
}

impl UidConnections {
    /// At most `limit` connections per uid.
    pub fn new(limit: usize) -> Arc<UidConnections> {
        Arc::new(UidConnections {
            limit,
            counts: Mutex::new(HashMap::new()),
        })
    }

    /// The configured cap.
    pub fn limit(&self) -> usize {
        self.limit
    }

    /// Distinct uids holding a connection now (a count: the uids themselves stay inside).
    pub fn distinct(&self) -> usize {
        self.counts
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }

    /// A slot for one more connection of `uid`, or None when it holds `limit` already.
    pub fn try_take(self: &Arc<Self>, uid: u32) -> Option<UidSlot> {
        let mut counts = self.counts.lock().unwrap_or_else(PoisonError::into_inner);
        let n = counts.entry(uid).or_insert(0);
        if *n >= self.limit {
            return None;
        }
        *n += 1;
        Some(UidSlot {
            owner: self.clone(),
            uid,
        })
    }

    fn give_back(&self, uid: u32) {
        let mut counts = self.counts.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(n) = counts.get_mut(&uid) {
            *n -= 1;
            if *n == 0 {
                counts.remove(&uid);
            }
        }
    }
}

/// One connection of a uid; given back when dropped.
#[derive(Debug)]
pub struct UidSlot {
    owner: Arc<UidConnections>,
    uid: u32,
}

impl Drop for UidSlot {
    fn drop(&mut self) {
        self.owner.give_back(self.uid);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grants_fit_under_the_cap_and_come_back() {
        let b = ByteBudget::new(800_000);
        let mut a = BufferHold::new(b.clone());
        // Large holders stop at 7/8 of the budget.
        assert_eq!(a.grow(500_000), 500_000);
        assert_eq!(a.grow(500_000), 200_000);
        assert_eq!(a.grow(1), 0);
        // A small request still fits in the reserve.
        let mut s = BufferHold::new(b.clone());
        assert_eq!(s.grow(1000), 1000);
        a.shrink_to(100);
        assert_eq!(b.used(), 1100);
        drop(a);
        drop(s);
        assert_eq!(b.used(), 0);
    }

    #[test]
    fn the_reserve_is_for_small_requests_only() {
        let b = ByteBudget::new(1 << 20);
        let mut big = BufferHold::new(b.clone());
        assert_eq!(big.grow(1 << 20), (1 << 20) - (1 << 17));
        let mut small = BufferHold::new(b.clone());
        assert_eq!(small.grow(SMALL_REQUEST), SMALL_REQUEST);
        // Past SMALL_REQUEST a connection is a large one again: no more room.
        assert_eq!(small.grow(1), 0);
        assert!(b.used() <= b.limit());
        // A request that arrives in pieces stays small up to SMALL_REQUEST in all.
        let mut pieces = BufferHold::new(b.clone());
        small.shrink_to(0);
        assert_eq!(pieces.grow(3), 3);
        assert_eq!(pieces.grow(SMALL_REQUEST), SMALL_REQUEST - 3);
    }

    #[test]
    fn uid_slots_are_capped_per_uid() {
        let u = UidConnections::new(2);
        let a = u.try_take(7).unwrap();
        let b = u.try_take(7).unwrap();
        assert!(u.try_take(7).is_none());
        let _other = u.try_take(8).unwrap();
        drop(a);
        assert!(u.try_take(7).is_some());
        assert_eq!(u.counts.lock().unwrap().get(&7), Some(&1));
        drop(b);
        assert!(
            !u.counts.lock().unwrap().contains_key(&7),
            "an idle uid leaves no entry"
        );
    }
}
