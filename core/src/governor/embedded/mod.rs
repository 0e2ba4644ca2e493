//! [`Governor`]: the engine behind a lock, a store, group commit, the wire dispatcher and
//! typed methods. With a durable store every command's changes are committed before its
//! answer; commands that arrive while a commit is in flight (or within the group window)
//! share the next transaction, each answered only after it.
//!
//! A caller that can wait asynchronously (the daemon) takes the answer before the commit and
//! a [`CommitWait`] to await ([`Governor::handle_as_deferred`], module `deferred`): its thread
//! is free at once and a committer thread writes the batches nobody is blocked on.
//!
//! Failures (SEMANTICS 13.16): when a commit fails (or its outcome is unknown), a command
//! panics, or the store panics, the engine's image holds changes the store may not: it is
//! marked broken, every command decided on it and not yet committed answers
//! `store_unavailable`, and before the next command runs the image is rebuilt from what the
//! store holds (no sweep is run and nothing is discarded there: the next command sweeps and
//! commits as usual). A store that keeps no rows (the plain in-memory store) cannot be
//! reloaded: its governor then refuses every later command.

mod deferred;
mod trace;

pub use deferred::{CommitWait, decides_without_blocking};

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock};
use std::task::Waker;
use std::time::{Duration, Instant};

use trace::{CommitTrace, sched_times};

use serde::Serialize;
use serde::de::DeserializeOwned;

use super::engine::gauges::GovernorGauges;
use super::engine::{Engine, IdSource};
use super::fleet::Fleet;
use super::observe::GovernorObserver;
use super::policy::{GovernorOptions, Policy};
use super::store::{MemoryStore, SqliteStore, Store, Synchronous};
use super::wire::num;
use super::wire::*;
use crate::{Clock, Error, ErrorCode, SystemClock};

struct CommitState {
    pending_count: u64,
    next_seq: u64,
    /// The highest command (by seq) whose changes left the engine: taken into a batch, or
    /// failed by a break (then discarded by the rebuild).
    taken: u64,
    /// The highest command of a batch that committed.
    committed: u64,
    /// Batches taken so far: the batch in flight (or the last one) is number `batches`, the
    /// one being gathered `batches + 1`. Its parity picks the condition variable its commands
    /// wait on, so the end of a commit wakes only the commands it answers.
    batches: u64,
    leader: bool,
    /// The leader is waiting for the commands of its batch to arrive.
    gathering: bool,
    /// A taken batch is being written (its outcome is not known yet).
    in_flight: bool,
    /// Commands under way: inside [`Governor::run`] (deciding, queued or waiting for their
    /// commit), except deferred ones once queued (their callers are away until the commit).
    active: u64,
    /// Why the engine's image must be rebuilt from the store before the next command.
    broken: Option<String>,
    /// Commands that failed: ranges of seqs, the waiters still to collect it, the reason.
    failed: Vec<Failed>,
    /// Group-commit figures (`LEASEKIT_COMMIT_TRACE=1`), printed to stderr every 2 s.
    trace: Option<CommitTrace>,
    /// Deferred commands' wakers, by the last seq of their [`CommitWait`]: woken when a batch
    /// ends or the image breaks (a poll then checks whether theirs is decided).
    wakers: Vec<(u64, Waker)>,
    /// The committer thread of deferred commands: started (once, on the first one)?
    committer_started: bool,
    /// The committer thread waits on [`Shared::work`] (a deferred command must wake it).
    committer_idle: bool,
}

struct Failed {
    lo: u64,
    hi: u64,
    left: u64,
    msg: String,
}

impl CommitState {
    /// True when the batch being gathered holds every command under way.
    fn gathered(&self) -> bool {
        self.pending_count >= self.active
    }

    /// Fails commands `lo..=hi` (each waiter collects the failure once).
    fn fail(&mut self, lo: u64, hi: u64, msg: &str) {
        if lo <= hi {
            self.failed.push(Failed {
                lo,
                hi,
                left: hi - lo + 1,
                msg: msg.to_string(),
            });
        }
    }

    /// The failure of command `seq`, if it failed (collected: removed once every command of
    /// its range has collected it).
    fn take_failed(&mut self, seq: u64) -> Option<String> {
        let i = self
            .failed
            .iter()
            .position(|f| (f.lo..=f.hi).contains(&seq))?;
        let f = &mut self.failed[i];
        f.left -= 1;
        let msg = f.msg.clone();
        if f.left == 0 {
            self.failed.swap_remove(i);
        }
        Some(msg)
    }

    /// Marks the image broken: every command decided on it and not yet taken fails.
    fn break_image(&mut self, why: &str) {
        let (lo, hi) = (self.taken + 1, self.next_seq);
        self.fail(lo, hi, why);
        self.taken = self.next_seq;
        self.pending_count = 0;
        if self.broken.is_none() {
            self.broken = Some(why.to_string());
        }
        self.wake_ready();
    }

    /// A command left the count of those under way: wakes a gathering leader whose batch is
    /// complete.
    fn leave(&mut self, arrive: &Condvar) {
        self.active = self.active.saturating_sub(1);
        if self.gathering && self.gathered() {
            arrive.notify_one();
        }
    }

    /// True when command `seq` has its outcome: committed, or failed (not yet collected).
    fn resolved(&self, seq: u64) -> bool {
        self.committed >= seq || self.failed.iter().any(|f| (f.lo..=f.hi).contains(&seq))
    }

    /// Wakes the deferred commands whose last command has its outcome.
    fn wake_ready(&mut self) {
        let mut i = 0;
        while i < self.wakers.len() {
            if self.resolved(self.wakers[i].0) {
                self.wakers.swap_remove(i).1.wake();
            } else {
                i += 1;
            }
        }
    }
}

struct Shared {
    engine: Mutex<Engine>,
    store: Arc<dyn Store>,
    commit: Mutex<CommitState>,
    /// Commands waiting for their batch, by the parity of its number
    /// ([`CommitState::batches`]): at most one batch is in flight and one gathering.
    done: [Condvar; 2],
    /// Wakes a gathering leader when the batch it waits for is complete.
    arrive: Condvar,
    /// Wakes the idle committer thread: a deferred command is queued.
    work: Condvar,
    window: Duration,
    group: bool,
    /// Commits are traced: leaders read their scheduler figures around commits (kept out of
    /// the commit lock's state, which the leader does not hold then).
    trace_sched: bool,
    started: i64,
    /// Rebuilds the engine's image from what the store holds (no sweep, no changes).
    reload: Box<dyn Fn() -> crate::Result<Engine> + Send + Sync>,
    /// A shared store (PostgreSQL): every batch is decided inside the store's transaction.
    fleet: Option<Fleet>,
    /// Receives commit times and release outcomes (a metrics exporter), once set.
    observer: OnceLock<Arc<dyn GovernorObserver>>,
    /// Commands under way on threads that may block (every caller but
    /// [`Governor::handle_as_nonblocking`]'s): while there is one, nonblocking callers do not
    /// decide (it may hold the engine for long).
    blocking_calls: AtomicUsize,
}

/// One command of a caller that may block, counted in [`Shared::blocking_calls`] while under
/// way.
struct BlockingCall<'a>(&'a Shared);

impl<'a> BlockingCall<'a> {
    fn enter(s: &'a Shared) -> BlockingCall<'a> {
        s.blocking_calls.fetch_add(1, Ordering::AcqRel);
        BlockingCall(s)
    }
}

impl Drop for BlockingCall<'_> {
    fn drop(&mut self) {
        self.0.blocking_calls.fetch_sub(1, Ordering::AcqRel);
    }
}

impl Shared {
    /// Wakes every command waiting for a batch (after a failure: each collects its answer or
    /// becomes the next leader).
    fn wake_all(&self) {
        for cv in &self.done {
            cv.notify_all();
        }
    }
}

/// One command under way, counted in [`CommitState::active`] from before the engine lock
/// until its answer, or, deferred, until it is queued ([`Active::leave`]).
struct Active<'a>(Option<&'a Shared>);

impl<'a> Active<'a> {
    fn enter(s: &'a Shared) -> Active<'a> {
        lock(&s.commit).active += 1;
        Active(Some(s))
    }

    /// Leaves the count now (the caller holds the commit lock `c`).
    fn leave(&mut self, c: &mut CommitState) {
        if let Some(s) = self.0.take() {
            c.leave(&s.arrive);
        }
    }
}

impl Drop for Active<'_> {
    fn drop(&mut self) {
        if let Some(s) = self.0.take() {
            lock(&s.commit).leave(&s.arrive);
        }
    }
}

/// An embedded governor (SEMANTICS 13). Cheap to clone; share it across threads.
#[derive(Clone)]
pub struct Governor {
    inner: Arc<Shared>,
}

impl std::fmt::Debug for Governor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Governor")
            .field("store", &self.inner.store.path())
            .finish()
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

fn internal(msg: impl Into<String>) -> Error {
    Error::new(ErrorCode::InternalError, msg)
}

/// A message without its `store_unavailable: ` prefix and ` (retryable)` suffix.
fn bare(msg: &str) -> &str {
    let m = msg.strip_prefix("store_unavailable: ").unwrap_or(msg);
    m.strip_suffix(" (retryable)").unwrap_or(m)
}

/// A retryable `store_unavailable` error (SEMANTICS 13.16).
fn unavailable(msg: &str) -> Error {
    internal(format!("store_unavailable: {} (retryable)", bare(msg)))
}

/// The answer of a command decided on an image that broke before its changes were committed:
/// not committed, or its outcome unknown; a retry with the same key is right either way.
fn not_committed(why: &str) -> Error {
    unavailable(&format!(
        "{}; the command may not have been committed: retry with the same idempotencyKey",
        bare(why)
    ))
}

/// Why an image broke after a store call failed.
fn commit_failed(e: &Error) -> String {
    format!(
        "the store's commit failed, its outcome is unknown ({})",
        bare(e.message())
    )
}

/// Refuses a cents amount beyond the wire's bound ([`num::MAX_CENTS`], far below where the
/// day's sums could overflow): typed requests are held to what a payload may carry
/// (`success: false` naming the field, nothing changed; SEMANTICS 13.16 Arithmetic).
fn check_cents(field: &str, cents: u64) -> crate::Result<()> {
    if cents > num::MAX_CENTS {
        return Err(Error::invalid(format!(
            "invalid payload: {field} {cents} exceeds the maximum {}; nothing was changed",
            num::MAX_CENTS
        )));
    }
    Ok(())
}

/// A store call or engine step that panicked, as an error.
fn caught<R>(what: &str, f: impl FnOnce() -> crate::Result<R>) -> crate::Result<R> {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|_| Err(internal(format!("{what} panicked"))))
}

impl Governor {
    /// A governor on `store` with `policy` (recorded as the first activation of a fresh
    /// store; a reopened store keeps its last activated policy), construction `options`, a
    /// clock and an id source.
    pub fn new(
        policy: Policy,
        options: GovernorOptions,
        store: Arc<dyn Store>,
        clock: Arc<dyn Clock>,
        ids: IdSource,
    ) -> crate::Result<Governor> {
        let started = clock.now()?.unix_millis();
        let window = Duration::from_millis(1);
        let (fleet, shared_engine) = if store.shared() {
            let (engine, fleet) = Fleet::open(
                &*store,
                policy.clone(),
                options.clone(),
                clock.clone(),
                ids,
                window,
            )?;
            (Some(fleet), Some(engine))
        } else {
            (None, None)
        };
        let open = {
            let (store, policy, options, clock) = (
                store.clone(),
                policy.clone(),
                options.clone(),
                clock.clone(),
            );
            move |restart: bool| {
                let snapshot = store.load()?;
                let (policy, options, clock) = (policy.clone(), options.clone(), clock.clone());
                let track = store.wants_rows();
                let mut engine = if restart {
                    Engine::open(snapshot, policy, options, clock, ids, track)
                } else {
                    Engine::open_image(snapshot, policy, options, clock, ids, track)
                }?;
                if store.keeps_meta_parts_as_rows() {
                    engine.keep_meta_parts_as_rows();
                }
                Ok(engine)
            }
        };
        let engine = match shared_engine {
            Some(e) => e,
            None => {
                let mut engine = open(true)?;
                // The first open of a store records the construction policy (and a reopen's
                // sweep).
                let first = engine.take_changes();
                store.commit(first)?;
                engine
            }
        };
        let group = store.durable();
        let trace = CommitTrace::from_env();
        let trace_sched = trace.is_some();
        Ok(Governor {
            inner: Arc::new(Shared {
                engine: Mutex::new(engine),
                store,
                commit: Mutex::new(CommitState {
                    pending_count: 0,
                    next_seq: 0,
                    taken: 0,
                    committed: 0,
                    batches: 0,
                    leader: false,
                    gathering: false,
                    in_flight: false,
                    active: 0,
                    broken: None,
                    failed: Vec::new(),
                    trace,
                    wakers: Vec::new(),
                    committer_started: false,
                    committer_idle: false,
                }),
                done: [Condvar::new(), Condvar::new()],
                arrive: Condvar::new(),
                work: Condvar::new(),
                window,
                group,
                trace_sched,
                started,
                reload: Box::new(move || open(false)),
                fleet,
                observer: OnceLock::new(),
                blocking_calls: AtomicUsize::new(0),
            }),
        })
    }

    /// An in-memory governor with the system clock and random ids.
    pub fn in_memory(policy: Policy, options: GovernorOptions) -> crate::Result<Governor> {
        Governor::new(
            policy,
            options,
            Arc::new(MemoryStore::new()),
            Arc::new(SystemClock),
            IdSource::Random,
        )
    }

    /// A governor on the store `location` names ([`super::store::open_location`], the
    /// bindings' store strings: `memory`, `sqlite:PATH` or a SQLite file path, `postgres://...`
    /// for a fleet on PostgreSQL), system clock, random ids.
    pub fn open(
        location: &str,
        policy: Policy,
        options: GovernorOptions,
    ) -> crate::Result<Governor> {
        Governor::new(
            policy,
            options,
            super::store::open_location(location)?,
            Arc::new(SystemClock),
            IdSource::Random,
        )
    }

    /// A governor on a SQLite file (`synchronous=FULL`), system clock, random ids.
    pub fn open_sqlite(
        path: impl AsRef<std::path::Path>,
        policy: Policy,
        options: GovernorOptions,
    ) -> crate::Result<Governor> {
        Governor::open_sqlite_with(path, policy, options, Synchronous::Full)
    }

    /// As [`Governor::open_sqlite`] with a durability level.
    pub fn open_sqlite_with(
        path: impl AsRef<std::path::Path>,
        policy: Policy,
        options: GovernorOptions,
        sync: Synchronous,
    ) -> crate::Result<Governor> {
        let store = Arc::new(SqliteStore::open_with(path, sync)?);
        Governor::new(
            policy,
            options,
            store,
            Arc::new(SystemClock),
            IdSource::Random,
        )
    }

    /// Runs `f` on the engine as one command and returns once its changes are committed;
    /// then hands the budget alerts it raised to the observer (never those of a command that
    /// failed: its records were not committed).
    pub(super) fn run<R: Send + 'static>(
        &self,
        f: impl FnOnce(&mut Engine) -> crate::Result<R> + Send + 'static,
    ) -> crate::Result<R> {
        let (out, alerts) = self.run_committed(move |e: &mut Engine| {
            let out = f(e)?;
            Ok((out, e.take_alerts()))
        })?;
        if let Some(o) = self.inner.observer.get()
            && !alerts.is_empty()
        {
            let o = o.clone();
            self.after_commit(move |committed| {
                for a in alerts.iter().filter(|_| committed) {
                    o.budget_threshold_crossed(a);
                }
            });
        }
        Ok(out)
    }

    fn run_committed<R: Send + 'static>(
        &self,
        f: impl FnOnce(&mut Engine) -> crate::Result<R> + Send + 'static,
    ) -> crate::Result<R> {
        let s = &*self.inner;
        // The peer the command is decided for (13.14, 13.16), read on the caller's thread: a
        // batch may run on another caller's.
        let caller = super::access::current_caller();
        if let Some(fleet) = &s.fleet {
            return fleet.run(
                &s.engine,
                &*s.store,
                s.observer.get(),
                move |e: &mut Engine| {
                    e.set_caller(caller);
                    f(e)
                },
            );
        }
        // A caller that may block is counted while under way: nonblocking callers then leave
        // the engine to it (`handle_as_nonblocking`).
        let nonblocking = self.nonblocking_caller();
        let _blocking = (!nonblocking).then(|| BlockingCall::enter(s));
        // Counted from before the engine lock until the answer: a gathering leader waits for
        // the commands it knows are on their way (durable stores only). A deferred command
        // leaves the count once queued: its caller is away until the commit.
        let mut active = s.group.then(|| Active::enter(s));
        let mut eng = lock(&s.engine);
        self.repair(&mut eng)?;
        let audit_ok = s.store.audit_writable();
        let out = catch_unwind(AssertUnwindSafe(|| {
            eng.begin(audit_ok)?;
            eng.set_caller(caller);
            f(&mut eng)
        }));
        let Ok(out) = out else {
            // The image holds whatever the command changed before it panicked.
            lock(&s.commit).break_image("a command panicked while this one was pending");
            s.wake_all();
            let _ = self.repair(&mut eng);
            return Err(internal(
                "the command panicked; nothing of it was committed",
            ));
        };
        if !s.group {
            let batch = eng.take_changes();
            if batch.is_empty() {
                return out;
            }
            let t_write = Instant::now();
            let committed = caught("the store's commit", || s.store.commit(batch));
            if let Some(o) = s.observer.get() {
                o.store_commit(t_write.elapsed(), committed.is_ok());
            }
            return match committed {
                Ok(()) => out,
                Err(e) => {
                    let why = commit_failed(&e);
                    lock(&s.commit).break_image(&why);
                    let _ = self.repair(&mut eng);
                    Err(not_committed(&why))
                }
            };
        }
        // Durable store: the changes stay in the engine until a leader takes them for the next
        // transaction (rows are serialized once per batch, not once per command).
        let mut defer = self.defers();
        let may_lead = !nonblocking;
        let (seq, spawn, lead_now) = {
            let mut c = lock(&s.commit);
            if let Some(why) = &c.broken {
                // A batch failed while this command was deciding on the image that held it:
                // its changes go with the rebuild.
                return Err(not_committed(why));
            }
            c.next_seq += 1;
            c.pending_count += 1;
            match active.as_mut().filter(|_| defer) {
                // Leaving wakes a gathering leader whose batch is now complete.
                Some(a) => a.leave(&mut c),
                None => {
                    if c.gathering && c.gathered() {
                        s.arrive.notify_one();
                    }
                }
            }
            // Deferred with nobody leading: this thread leads the batch holding its command
            // (a lone caller then costs no hand-off); commands queued meanwhile go to the
            // committer thread.
            let lead_now = defer && may_lead && !c.leader;
            let spawn = defer && c.kick_committer(&s.work, lead_now);
            (c.next_seq, spawn, lead_now)
        };
        drop(eng);
        if spawn && !self.spawn_committer() {
            // No thread for the committer: this command waits (and leads) itself.
            defer = false;
        }
        if defer {
            if lead_now {
                let c = lock(&s.commit);
                if !c.leader {
                    drop(self.lead(c));
                }
            }
            // Answered before its commit: the caller awaits the commit (`CommitWait`).
            self.defer(seq);
            return out;
        }
        self.wait_commit(seq)?;
        out
    }

    /// Rebuilds a broken image from the store (after any batch being written has its
    /// outcome). A store that keeps no rows cannot be reloaded: the error then stays.
    fn repair(&self, eng: &mut Engine) -> crate::Result<()> {
        let s = &*self.inner;
        let mut c = lock(&s.commit);
        if c.broken.is_none() {
            return Ok(());
        }
        // The leader of a batch in flight needs only the commit lock to finish.
        while c.in_flight {
            let batch = (c.batches % 2) as usize;
            c = s.done[batch].wait(c).unwrap_or_else(|p| p.into_inner());
        }
        let Some(why) = c.broken.clone() else {
            return Ok(());
        };
        drop(c);
        if !s.store.wants_rows() {
            return Err(unavailable(&format!(
                "{why}; this in-memory store keeps no state to reload, so the governor refuses \
                 every command: open a new one"
            )));
        }
        match caught("reloading the store", || (s.reload)()) {
            Ok(fresh) => {
                *eng = fresh;
                lock(&s.commit).broken = None;
                Ok(())
            }
            Err(e) => Err(unavailable(&format!(
                "{why}; reloading the store failed: {}",
                e.message()
            ))),
        }
    }

    fn wait_commit(&self, seq: u64) -> crate::Result<()> {
        let s = &*self.inner;
        let mut c = lock(&s.commit);
        loop {
            if let Some(m) = c.take_failed(seq) {
                return Err(not_committed(&m));
            }
            if c.committed >= seq {
                return Ok(());
            }
            if !c.leader {
                c = self.lead(c);
                continue;
            }
            // The batch this command is in: the one in flight, or the one being gathered.
            let batch = if seq <= c.taken {
                c.batches
            } else {
                c.batches + 1
            };
            c = s.done[(batch % 2) as usize]
                .wait(c)
                .unwrap_or_else(|p| p.into_inner());
        }
    }

    /// Leads one batch (the caller holds the commit lock and no one else leads): gathers for
    /// up to the window, takes the changes of every command queued so far, commits them and
    /// answers their waiters (or fails them all). Called by a waiting command or by the
    /// committer thread.
    fn lead<'a>(&'a self, mut c: MutexGuard<'a, CommitState>) -> MutexGuard<'a, CommitState> {
        let s = &*self.inner;
        c.leader = true;
        let t_gather = Instant::now();
        if !c.gathered() && !s.window.is_zero() {
            // Gather for up to the window, but commit as soon as every command under
            // way is queued (one caller alone commits at once; sleeping the window out
            // would idle the disk, and cutting at the last batch's size can lock into
            // alternating half batches).
            let deadline = Instant::now() + s.window;
            c.gathering = true;
            while !c.gathered() {
                let now = Instant::now();
                if now >= deadline {
                    break;
                }
                c = s
                    .arrive
                    .wait_timeout(c, deadline - now)
                    .map(|(g, _)| g)
                    .unwrap_or_else(|p| p.into_inner().0);
            }
            c.gathering = false;
        }
        drop(c);
        // Take the changes of every command so far (engine lock, then commit lock: the
        // order commands use).
        let mut eng = lock(&s.engine);
        c = lock(&s.commit);
        if c.broken.is_some() || c.taken >= c.next_seq {
            // Everything pending failed with the image (or another leader took it).
            c.leader = false;
            s.wake_all();
            c.wake_ready();
            return c;
        }
        let t_take = Instant::now();
        let batch = caught("serializing the changes", || Ok(eng.take_changes()));
        let t_write = Instant::now();
        let (lo, hi) = (c.taken + 1, c.next_seq);
        c.taken = hi;
        c.batches += 1;
        let number = c.batches;
        c.pending_count = 0;
        c.in_flight = true;
        drop(c);
        drop(eng);
        let mut wrote = false;
        let sched = s.trace_sched.then(sched_times).flatten();
        let r = batch.and_then(|b| {
            if b.is_empty() {
                Ok(())
            } else {
                wrote = true;
                caught("the store's commit", || s.store.commit(b))
            }
        });
        let t_end = Instant::now();
        if wrote && let Some(o) = s.observer.get() {
            o.store_commit(t_end - t_write, r.is_ok());
        }
        c = lock(&s.commit);
        c.leader = false;
        c.in_flight = false;
        if let Some(tr) = &mut c.trace {
            tr.add_sched(sched);
            tr.add(hi - lo + 1, t_gather, t_take, t_write, t_end);
        }
        match r {
            Ok(()) => {
                c.committed = hi;
                // Wake the commands of this batch, and one of the next (its leader).
                s.done[(number % 2) as usize].notify_all();
                if c.next_seq > c.taken {
                    s.done[((number + 1) % 2) as usize].notify_one();
                }
            }
            Err(e) => {
                // Everything decided since was decided on state that is not stored:
                // it all fails, and the image is rebuilt from the store at once (or,
                // when that fails, before the next command).
                let why = commit_failed(&e);
                c.fail(lo, hi, &why);
                c.break_image(&why);
                s.wake_all();
                drop(c);
                let mut eng = lock(&s.engine);
                let _ = self.repair(&mut eng);
                drop(eng);
                c = lock(&s.commit);
                s.wake_all();
            }
        }
        c.wake_ready();
        if c.next_seq > c.taken && c.committer_idle {
            // Deferred commands queued during this commit: the committer leads their batch.
            s.work.notify_one();
        }
        c
    }

    /// Runs `f` on the engine as one command, committed like any other (a test tool: fault
    /// injection and simulations use it, e.g. to make a command panic half-way). Not for
    /// production: `f` can break the engine's invariants.
    #[doc(hidden)]
    pub fn run_command<R: Send + 'static>(
        &self,
        f: impl FnOnce(&mut Engine) -> crate::Result<R> + Send + 'static,
    ) -> crate::Result<R> {
        self.run(f)
    }

    /// Sets the observer of commit times and release outcomes (a metrics exporter). Only the
    /// first call takes effect: false when one was set already.
    pub fn set_observer(&self, observer: Arc<dyn GovernorObserver>) -> bool {
        self.inner.observer.set(observer).is_ok()
    }

    /// The pools and counters now, read without running a command (nothing is swept,
    /// committed or audited): what a metrics exporter scrapes. A fleet member's view is its
    /// image of the shared store as of its last command.
    pub fn gauges(&self) -> GovernorGauges {
        self.with_engine(|e| e.gauges())
    }

    /// Runs `f` with read access to the engine (tests, invariants).
    pub fn with_engine<R>(&self, f: impl FnOnce(&Engine) -> R) -> R {
        f(&lock(&self.inner.engine))
    }

    /// `Acquire`.
    pub fn acquire(&self, req: AcquireRequest) -> crate::Result<AcquireResponse> {
        check_cents("estimatedCostCents", req.estimated_cost_cents)?;
        self.run(|e| Ok(e.acquire(req)))
    }

    /// `Release`.
    pub fn release(&self, req: ReleaseRequest) -> crate::Result<ReleaseResponse> {
        let r = check_cents("actualCostCents", req.actual_cost_cents)
            .and_then(|()| self.run(|e| e.release(req)));
        if let Some(o) = self.inner.observer.get() {
            match &r {
                Ok(resp) => {
                    let (o, outcome) = (o.clone(), resp.classification.as_str());
                    self.after_commit(move |committed| {
                        o.release(if committed { outcome } else { "error" })
                    });
                }
                Err(_) => o.release("error"),
            }
        }
        r
    }

    /// `RequestApproval`.
    pub fn request_approval(&self, req: ApprovalRequest) -> crate::Result<ApprovalRequestResponse> {
        self.run(|e| e.request_approval(req))
    }

    /// `GrantApproval`.
    pub fn grant_approval(
        &self,
        req: GrantApprovalRequest,
    ) -> crate::Result<GrantApprovalResponse> {
        self.run(|e| e.grant_approval(req))
    }

    /// `DenyApproval`.
    pub fn deny_approval(&self, req: DenyApprovalRequest) -> crate::Result<DenyApprovalResponse> {
        self.run(|e| e.deny_approval(req))
    }

    /// `ReviewApproval`.
    pub fn review_approval(
        &self,
        req: ReviewApprovalRequest,
    ) -> crate::Result<ReviewApprovalResponse> {
        self.run(|e| e.review_approval(req))
    }

    /// `ListPendingApprovals`.
    pub fn list_pending_approvals(
        &self,
        req: ApprovalQueueRequest,
    ) -> crate::Result<ApprovalQueueResponse> {
        self.run(move |e| e.list_pending(&req))
    }

    /// `GetMetrics`.
    pub fn metrics(&self) -> crate::Result<MetricsSnapshot> {
        self.run(|e| Ok(e.metrics()))
    }

    /// `GetStatus`.
    pub fn status(&self) -> crate::Result<StatusResponse> {
        let (started, durable, path) = (
            self.inner.started,
            self.inner.store.durable(),
            self.inner.store.path(),
        );
        let mut status = self.run(move |e| Ok(e.status(started, durable, path)))?;
        status.connected_governors = self.inner.store.connected_governors()?;
        Ok(status)
    }

    /// `ExportDiagnostics` (the document inline; nothing is written to disk).
    pub fn export_diagnostics(
        &self,
        req: ExportDiagnosticsRequest,
    ) -> crate::Result<ExportDiagnosticsResponse> {
        let (started, durable, path) = (
            self.inner.started,
            self.inner.store.durable(),
            self.inner.store.path(),
        );
        self.run(move |e| {
            Ok(ExportDiagnosticsResponse {
                exported: true,
                output_path: String::new(),
                message: "diagnostics exported".into(),
                diagnostics: e.diagnostics(started, durable, path),
                idempotency_key: req.idempotency_key,
            })
        })
    }

    /// `ExportRunawayReport` (inline).
    pub fn export_runaway_report(
        &self,
        req: ExportRunawayReportRequest,
    ) -> crate::Result<ExportRunawayReportResponse> {
        self.run(|e| {
            Ok(ExportRunawayReportResponse {
                exported: true,
                output_path: String::new(),
                message: "runaway report exported".into(),
                report: e.runaway_report(),
                idempotency_key: req.idempotency_key,
            })
        })
    }

    /// `StagePolicyBundle`.
    pub fn stage_policy_bundle(&self, b: PolicyBundle) -> crate::Result<StagePolicyBundleResponse> {
        self.run(|e| Ok(e.stage_policy(b)))
    }

    /// `ActivatePolicy`.
    pub fn activate_policy(
        &self,
        req: ActivatePolicyRequest,
    ) -> crate::Result<ActivatePolicyResponse> {
        self.run(|e| Ok(e.activate_policy(req)))
    }

    /// `RollbackPolicy`.
    pub fn rollback_policy(
        &self,
        req: RollbackPolicyRequest,
    ) -> crate::Result<ActivatePolicyResponse> {
        self.run(|e| Ok(e.rollback_policy(req)))
    }

    /// `RequestToolSubLease`.
    pub fn request_tool_sub_lease(
        &self,
        req: ToolSubLeaseRequest,
    ) -> crate::Result<ToolSubLeaseResponse> {
        self.run(|e| Ok(e.request_tool_sub_lease(req)))
    }

    /// `ExecuteToolCall`.
    pub fn execute_tool_call(
        &self,
        req: ToolExecutionRequest,
    ) -> crate::Result<ToolExecutionResponse> {
        self.run(|e| Ok(e.execute_tool_call(req)))
    }

    /// `Authorize`.
    pub fn authorize(&self, req: AuthorizeRequest) -> crate::Result<AuthorizeResponse> {
        self.run(move |e| Ok(e.authorize(&req)))
    }

    /// `RecordDecision`: appends a guard's decision to the audit chain.
    pub fn record_decision(
        &self,
        req: RecordDecisionRequest,
    ) -> crate::Result<RecordDecisionResponse> {
        req.check_limits().map_err(Error::invalid)?;
        self.run(move |e| Ok(e.record_decision(req)))
    }

    /// The store (the audit commands read it through their own snapshot).
    pub(super) fn store(&self) -> &dyn Store {
        &*self.inner.store
    }

    /// The wire dispatcher: runs `command` with `payload_json` and answers the response
    /// envelope as JSON (`{"protocolVersion","success","payloadJson","error"}`).
    pub fn handle(&self, command: &str, payload_json: &str) -> String {
        serde_json::to_string(&self.handle_envelope(command, payload_json))
            .expect("envelope serializes")
    }

    /// As [`Governor::handle`], answering the envelope value.
    pub fn handle_envelope(&self, command: &str, payload_json: &str) -> ResponseEnvelope {
        match self.dispatch(command, payload_json) {
            Ok(p) => ResponseEnvelope::ok(p),
            Err(e) => ResponseEnvelope::fail(e),
        }
    }

    /// Decodes a request frame, dispatches it and encodes the response frame.
    pub fn handle_frame(&self, frame: &[u8]) -> Vec<u8> {
        let env = match decode_request_frame(frame) {
            Ok(req) => self.handle_envelope(&req.command, &req.payload_json),
            Err(e) => ResponseEnvelope::fail(e.message().to_string()),
        };
        let body = serde_json::to_vec(&env).expect("envelope serializes");
        encode_frame(&body).unwrap_or_else(|_| {
            let small = serde_json::to_vec(&ResponseEnvelope::fail(
                "response exceeds maximum frame size",
            ))
            .expect("envelope serializes");
            encode_frame(&small).expect("small frame")
        })
    }

    fn dispatch(&self, command: &str, payload: &str) -> Result<String, String> {
        let Some(cmd) = Command::parse(command) else {
            return Err("unknown_command".into());
        };
        fn parse<T: DeserializeOwned + WireLimits>(payload: &str) -> Result<T, String> {
            let text = payload.trim();
            let text = if text.is_empty() { "{}" } else { text };
            if !text.starts_with('{') {
                return Err("invalid payload: expected a JSON object".into());
            }
            let value: T =
                serde_json::from_str(text).map_err(|e| format!("invalid payload: {e}"))?;
            value.check_limits()?;
            Ok(value)
        }
        fn out<T: Serialize>(r: crate::Result<T>) -> Result<String, String> {
            r.map_err(|e| e.message().to_string())
                .map(|v| serde_json::to_string(&v).expect("response serializes"))
        }
        match cmd {
            Command::Acquire => out(self.acquire(parse(payload)?)),
            Command::Release => out(self.release(parse(payload)?)),
            Command::RequestApproval => out(self.request_approval(parse(payload)?)),
            Command::GrantApproval => out(self.grant_approval(parse(payload)?)),
            Command::DenyApproval => out(self.deny_approval(parse(payload)?)),
            Command::ListPendingApprovals => out(self.list_pending_approvals(parse(payload)?)),
            Command::ReviewApproval => out(self.review_approval(parse(payload)?)),
            Command::GetMetrics => {
                parse::<serde_json::Value>(payload)?;
                out(self.metrics())
            }
            Command::GetStatus => {
                parse::<serde_json::Value>(payload)?;
                out(self.status())
            }
            Command::ExportDiagnostics => out(self.export_diagnostics(parse(payload)?)),
            Command::ExportRunawayReport => out(self.export_runaway_report(parse(payload)?)),
            Command::StagePolicyBundle => out(self.stage_policy_bundle(parse(payload)?)),
            Command::ActivatePolicy => out(self.activate_policy(parse(payload)?)),
            Command::RequestToolSubLease => out(self.request_tool_sub_lease(parse(payload)?)),
            Command::ExecuteToolCall => out(self.execute_tool_call(parse(payload)?)),
            Command::Authorize => out(self.authorize(parse(payload)?)),
            Command::ExportAudit => out(self.export_audit(parse(payload)?)),
            Command::VerifyAudit => out(self.verify_audit_request(parse(payload)?)),
            Command::RollbackPolicy => out(self.rollback_policy(parse(payload)?)),
            Command::RecordDecision => out(self.record_decision(parse(payload)?)),
        }
    }
}
