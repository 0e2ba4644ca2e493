//! Fault injection (a **test tool**, not for production): [`FaultyStore`] wraps any [`Store`]
//! (memory, SQLite, PostgreSQL) and fails, stalls, panics or "crashes" chosen calls, so tests
//! and simulations can check what SEMANTICS 13.16 promises after a store failure: the
//! governor's state is the store's committed state plus only changes committed with their
//! audit records, and an answer whose outcome is unknown is `store_unavailable`.
//!
//! Which calls fail is decided by a plan, never by the wall clock: rules name the *n*-th call
//! of an operation ([`FaultyStore::inject`], [`FaultyStore::inject_next`]), and a seeded
//! random plan ([`FaultyStore::random`]) draws from a SplitMix64 stream, one draw per call of
//! the operations it covers. The same sequence of calls with the same plan injects the same
//! faults. Every injected fault is logged ([`FaultyStore::injected`]).
//!
//! A crash ([`Fault::CrashBefore`], [`Fault::CrashAfter`]) models the governor's process
//! dying at that point: the store keeps exactly what was committed before it, this and every
//! later call fails, and the test drops the governor (no clean close) and opens a new one on
//! the same store after [`FaultyStore::restart`] (or on [`FaultyStore::inner`]).
//!
//! ```
//! use std::sync::Arc;
//! use leasekit::governor::store::{Fault, FaultyStore, MemoryStore, StoreOp};
//!
//! let store = Arc::new(FaultyStore::new(Arc::new(MemoryStore::reloadable())));
//! store.inject(StoreOp::Commit, 3, Fault::ErrorAfterCommit); // the 3rd commit: outcome unknown
//! store.inject_next(StoreOp::Load, Fault::Error); // the next reload fails
//! store.random(7, 50_000, &[(StoreOp::Commit, Fault::Error)]); // ~5% of commits, seed 7
//! ```

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use super::{Batch, Decide, Refresh, Snapshot, Store};
use crate::governor::wire::ConnectedGovernor;
use crate::{Error, ErrorCode};

/// An operation of the [`Store`] trait that faults can target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum StoreOp {
    /// [`Store::load`] (a governor opening or rebuilding its image).
    Load,
    /// [`Store::commit`] (a batch of a store of one governor: memory, SQLite).
    Commit,
    /// [`Store::transact`] (a batch transaction of a shared store: PostgreSQL).
    Transact,
    /// [`Store::settle`] (waiting for a shared store's commit to be durable).
    Settle,
    /// [`Store::read_audit`].
    ReadAudit,
}

impl StoreOp {
    const ALL: [StoreOp; 5] = [
        StoreOp::Load,
        StoreOp::Commit,
        StoreOp::Transact,
        StoreOp::Settle,
        StoreOp::ReadAudit,
    ];

    fn index(self) -> usize {
        self as usize
    }
}

/// What happens to a call a rule or the random plan picks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// The call fails and writes nothing. A [`Store::transact`] runs its decision first and
    /// then rolls back (the engine's image then holds changes the store does not).
    Error,
    /// The call fails at once: the store cannot be reached. A [`Store::transact`] fails
    /// before locking or deciding anything.
    Unreachable,
    /// The call completes (a commit or transaction is written), then reports an error: the
    /// caller cannot know the outcome.
    ErrorAfterCommit,
    /// Sleeps this long, then performs the call (a slow disk, a lock held elsewhere).
    Stall(Duration),
    /// The process dies before the call: nothing of it is written, and this and every later
    /// call fails until [`FaultyStore::restart`].
    CrashBefore,
    /// The call completes, then the process dies (the call reports an error, later calls
    /// fail until [`FaultyStore::restart`]).
    CrashAfter,
    /// The call panics before writing anything (a [`Store::transact`]: inside its
    /// transaction, after the decision, so the store's own rollback on unwind is exercised).
    Panic,
}

/// One fault that was injected: which operation, which call of it (1-based), what fault.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Injected {
    /// The operation.
    pub op: StoreOp,
    /// Its call number (1-based, counted since the store was wrapped).
    pub call: u64,
    /// The fault.
    pub fault: Fault,
}

/// A SplitMix64 stream (the seeded plan's only source of choices).
#[derive(Debug, Clone)]
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

#[derive(Debug, Clone)]
struct Random {
    rng: SplitMix64,
    per_million: u32,
    faults: Vec<(StoreOp, Fault)>,
}

#[derive(Debug, Default)]
struct Plan {
    calls: [u64; 5],
    rules: Vec<(StoreOp, u64, Fault)>,
    random: Option<Random>,
    log: Vec<Injected>,
}

impl Plan {
    /// Counts a call of `op`.
    fn count(&mut self, op: StoreOp) -> u64 {
        let i = op.index();
        self.calls[i] += 1;
        self.calls[i]
    }

    /// Picks the fault of call `call` of `op`, if any (a rule before the random plan).
    fn pick(&mut self, op: StoreOp, call: u64) -> Option<Fault> {
        let fault = match self.rules.iter().position(|r| r.0 == op && r.1 == call) {
            Some(at) => Some(self.rules.remove(at).2),
            None => self.random.as_mut().and_then(|r| {
                let options: Vec<Fault> = r
                    .faults
                    .iter()
                    .filter(|(o, _)| *o == op)
                    .map(|(_, f)| *f)
                    .collect();
                if options.is_empty() {
                    return None;
                }
                let draw = r.rng.next();
                ((draw % 1_000_000) < u64::from(r.per_million))
                    .then(|| options[((draw >> 32) % options.len() as u64) as usize])
            }),
        };
        if let Some(fault) = fault {
            self.log.push(Injected { op, call, fault });
        }
        fault
    }
}

/// A [`Store`] wrapper that injects faults by a deterministic plan (see the module
/// documentation). A test tool: every other call passes straight through to the wrapped
/// store, and the wrapper reports the inner store's kind (durable, shared, rows).
pub struct FaultyStore {
    inner: Arc<dyn Store>,
    plan: Mutex<Plan>,
    crashed: AtomicBool,
    unavailable: AtomicBool,
}

impl std::fmt::Debug for FaultyStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FaultyStore")
            .field("inner", &self.inner.path())
            .field("crashed", &self.crashed())
            .finish()
    }
}

fn injected_error(op: StoreOp, what: &str) -> Error {
    Error::new(
        ErrorCode::InternalError,
        format!("store_unavailable: injected fault: {op:?} {what} (retryable)"),
    )
}

impl FaultyStore {
    /// Wraps `inner`; no fault is planned yet.
    pub fn new(inner: Arc<dyn Store>) -> FaultyStore {
        FaultyStore {
            inner,
            plan: Mutex::new(Plan::default()),
            crashed: AtomicBool::new(false),
            unavailable: AtomicBool::new(false),
        }
    }

    /// The wrapped store (what a process started after a crash would open).
    pub fn inner(&self) -> Arc<dyn Store> {
        self.inner.clone()
    }

    fn plan(&self) -> MutexGuard<'_, Plan> {
        self.plan.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Injects `fault` at the `nth` call of `op` (1-based, counting every call of `op` since
    /// the store was wrapped, faulted or not). A rule fires once.
    pub fn inject(&self, op: StoreOp, nth: u64, fault: Fault) {
        self.plan().rules.push((op, nth, fault));
    }

    /// Injects `fault` at the next call of `op`.
    pub fn inject_next(&self, op: StoreOp, fault: Fault) {
        let mut p = self.plan();
        let nth = p.calls[op.index()] + 1;
        p.rules.push((op, nth, fault));
    }

    /// A seeded random plan: each call of an operation named in `faults` draws once from a
    /// SplitMix64 stream seeded with `seed`, and with probability `per_million` / 1 000 000
    /// fails with one of that operation's faults (chosen by the same draw). Rules win over
    /// the random plan. Replaces an earlier random plan.
    pub fn random(&self, seed: u64, per_million: u32, faults: &[(StoreOp, Fault)]) {
        self.plan().random = Some(Random {
            rng: SplitMix64(seed),
            per_million: per_million.min(1_000_000),
            faults: faults.to_vec(),
        });
    }

    /// Drops every pending rule and the random plan (counts and the log are kept).
    pub fn clear(&self) {
        let mut p = self.plan();
        p.rules.clear();
        p.random = None;
    }

    /// Makes every call fail at once (true: the store is unreachable) or pass again (false).
    /// Calls made while unavailable are counted but not logged as injected.
    pub fn set_unavailable(&self, down: bool) {
        self.unavailable.store(down, Ordering::SeqCst);
    }

    /// Calls of `op` so far.
    pub fn calls(&self, op: StoreOp) -> u64 {
        self.plan().calls[op.index()]
    }

    /// Calls of every operation so far, in [`StoreOp`] order.
    pub fn all_calls(&self) -> Vec<(StoreOp, u64)> {
        let p = self.plan();
        StoreOp::ALL
            .iter()
            .map(|o| (*o, p.calls[o.index()]))
            .collect()
    }

    /// The faults injected so far, in order.
    pub fn injected(&self) -> Vec<Injected> {
        self.plan().log.clone()
    }

    /// True after a crash fault, until [`FaultyStore::restart`].
    pub fn crashed(&self) -> bool {
        self.crashed.load(Ordering::SeqCst)
    }

    /// Ends a crash: the store serves calls again (open a new governor on it; the crashed
    /// one must be dropped, as its process would be gone).
    pub fn restart(&self) {
        self.crashed.store(false, Ordering::SeqCst);
    }

    /// Counts a call and answers the fault to apply (a crashed or unavailable store answers
    /// an error without counting a fault).
    fn enter(&self, op: StoreOp) -> Result<Option<Fault>, Error> {
        let mut plan = self.plan();
        let call = plan.count(op);
        if self.crashed() {
            return Err(injected_error(
                op,
                "after a crash: the governor process is gone",
            ));
        }
        if self.unavailable.load(Ordering::SeqCst) {
            return Err(injected_error(op, "while the store is unreachable"));
        }
        Ok(plan.pick(op, call))
    }

    /// Runs `call` under `fault`.
    fn apply<R>(
        &self,
        op: StoreOp,
        fault: Option<Fault>,
        call: impl FnOnce() -> crate::Result<R>,
    ) -> crate::Result<R> {
        match fault {
            None => call(),
            Some(Fault::Error) | Some(Fault::Unreachable) => Err(injected_error(op, "failed")),
            Some(Fault::ErrorAfterCommit) => {
                call()?;
                Err(injected_error(
                    op,
                    "completed, then failed: its outcome is unknown",
                ))
            }
            Some(Fault::Stall(d)) => {
                std::thread::sleep(d);
                call()
            }
            Some(Fault::CrashBefore) => {
                self.crashed.store(true, Ordering::SeqCst);
                Err(injected_error(op, "crashed before the call"))
            }
            Some(Fault::CrashAfter) => {
                let r = call();
                self.crashed.store(true, Ordering::SeqCst);
                r?;
                Err(injected_error(op, "crashed after the call"))
            }
            Some(Fault::Panic) => panic!("injected fault: {op:?} panicked"),
        }
    }
}

impl Store for FaultyStore {
    fn wants_rows(&self) -> bool {
        self.inner.wants_rows()
    }

    fn keeps_meta_parts_as_rows(&self) -> bool {
        self.inner.keeps_meta_parts_as_rows()
    }

    fn load(&self) -> crate::Result<Option<Snapshot>> {
        let fault = self.enter(StoreOp::Load)?;
        self.apply(StoreOp::Load, fault, || self.inner.load())
    }

    fn commit(&self, batch: Batch) -> crate::Result<()> {
        let fault = self.enter(StoreOp::Commit)?;
        self.apply(StoreOp::Commit, fault, || self.inner.commit(batch))
    }

    fn read_audit(&self, from: u64, to: u64) -> crate::Result<Vec<String>> {
        let fault = self.enter(StoreOp::ReadAudit)?;
        self.apply(StoreOp::ReadAudit, fault, || {
            self.inner.read_audit(from, to)
        })
    }

    fn audit_writable(&self) -> bool {
        self.inner.audit_writable()
    }

    fn durable(&self) -> bool {
        self.inner.durable()
    }

    fn path(&self) -> String {
        self.inner.path()
    }

    fn shared(&self) -> bool {
        self.inner.shared()
    }

    fn connected_governors(&self) -> crate::Result<Option<Vec<ConnectedGovernor>>> {
        self.inner.connected_governors()
    }

    fn settle(&self) -> crate::Result<()> {
        let fault = self.enter(StoreOp::Settle)?;
        self.apply(StoreOp::Settle, fault, || self.inner.settle())
    }

    fn transact(&self, seen: Option<u64>, decide: &mut Decide<'_>) -> crate::Result<u64> {
        let op = StoreOp::Transact;
        match self.enter(op)? {
            // The decision runs on what the store hands over; then the write is refused (or
            // the transaction panics) and the inner store rolls back.
            Some(Fault::Error) => {
                let mut refuse = |r: Refresh| -> crate::Result<Batch> {
                    decide(r)?;
                    Err(injected_error(op, "failed after the decision; rolled back"))
                };
                self.inner.transact(seen, &mut refuse)
            }
            Some(Fault::Panic) => {
                let mut boom = |r: Refresh| -> crate::Result<Batch> {
                    decide(r)?;
                    panic!("injected fault: {op:?} panicked after the decision")
                };
                self.inner.transact(seen, &mut boom)
            }
            fault => self.apply(op, fault, || self.inner.transact(seen, decide)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::governor::store::MemoryStore;

    fn batch(line: &str) -> Batch {
        Batch {
            meta: Some(format!("{{\"line\":\"{line}\"}}")),
            audit: vec![line.to_string()],
            ..Batch::default()
        }
    }

    fn lines(s: &dyn Store) -> Vec<String> {
        s.read_audit(1, u64::MAX).unwrap()
    }

    #[test]
    fn rules_fire_at_their_call_once_and_are_logged() {
        let s = FaultyStore::new(Arc::new(MemoryStore::reloadable()));
        s.inject(StoreOp::Commit, 2, Fault::Error);
        s.inject(StoreOp::Commit, 3, Fault::ErrorAfterCommit);
        s.commit(batch("a")).unwrap();
        let e = s.commit(batch("b")).unwrap_err();
        assert!(e.message().starts_with("store_unavailable"), "{e}");
        assert!(s.commit(batch("c")).is_err());
        s.commit(batch("d")).unwrap();
        // b was refused whole; c was written although it reported an error.
        assert_eq!(lines(&s), ["a", "c", "d"]);
        assert_eq!(s.calls(StoreOp::Commit), 4);
        let log = s.injected();
        assert_eq!(log.len(), 2);
        assert_eq!((log[0].call, log[0].fault), (2, Fault::Error));
        assert_eq!((log[1].call, log[1].fault), (3, Fault::ErrorAfterCommit));
        s.inject_next(StoreOp::Load, Fault::Error);
        assert!(s.load().is_err());
        let snap = s.load().unwrap().expect("rows kept");
        assert_eq!(snap.meta, "{\"line\":\"d\"}");
    }

    #[test]
    fn a_crash_keeps_only_what_was_committed_until_restart() {
        let inner = Arc::new(MemoryStore::reloadable());
        let s = FaultyStore::new(inner.clone());
        s.inject_next(StoreOp::Commit, Fault::CrashAfter);
        assert!(s.commit(batch("a")).is_err());
        assert!(s.crashed());
        assert!(s.commit(batch("b")).is_err());
        assert!(s.load().is_err());
        assert_eq!(lines(&*inner), ["a"]);
        s.restart();
        s.inject_next(StoreOp::Commit, Fault::CrashBefore);
        assert!(s.commit(batch("c")).is_err());
        assert_eq!(lines(&*inner), ["a"]);
        s.restart();
        s.commit(batch("e")).unwrap();
        assert_eq!(lines(&s), ["a", "e"]);
    }

    #[test]
    fn the_random_plan_is_a_function_of_its_seed() {
        let run = |seed: u64| {
            let s = FaultyStore::new(Arc::new(MemoryStore::new()));
            s.random(
                seed,
                300_000,
                &[
                    (StoreOp::Commit, Fault::Error),
                    (StoreOp::Commit, Fault::ErrorAfterCommit),
                ],
            );
            for i in 0..200 {
                let _ = s.commit(batch(&i.to_string()));
                let _ = s.read_audit(1, 1);
            }
            s.injected()
        };
        let (a, b, c) = (run(1), run(1), run(2));
        assert_eq!(a, b);
        assert_ne!(a, c);
        // About 30% of the 200 commits, both kinds, never a read.
        assert!((30..=90).contains(&a.len()), "{}", a.len());
        assert!(a.iter().all(|f| f.op == StoreOp::Commit));
        assert!(a.iter().any(|f| f.fault == Fault::Error));
        assert!(a.iter().any(|f| f.fault == Fault::ErrorAfterCommit));
    }

    #[test]
    fn unavailable_fails_every_call_and_a_panic_is_a_panic() {
        let s = FaultyStore::new(Arc::new(MemoryStore::reloadable()));
        s.set_unavailable(true);
        assert!(s.commit(batch("a")).is_err());
        assert!(s.read_audit(1, 9).is_err());
        s.set_unavailable(false);
        s.commit(batch("b")).unwrap();
        assert_eq!(lines(&s), ["b"]);
        s.inject_next(StoreOp::Commit, Fault::Panic);
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| s.commit(batch("c"))));
        assert!(r.is_err());
        assert_eq!(lines(&s), ["b"]);
        s.inject_next(StoreOp::Commit, Fault::Stall(Duration::from_millis(20)));
        let t = std::time::Instant::now();
        s.commit(batch("d")).unwrap();
        assert!(t.elapsed() >= Duration::from_millis(20));
    }
}
