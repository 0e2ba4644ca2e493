//! Group commit on a shared store (SEMANTICS 13.12: N governors on one PostgreSQL database
//! behave as one). Commands queue up; one caller at a time leads a batch: it opens the
//! store's transaction (which locks the meta row), refreshes the engine's image with what
//! other governors committed, runs every queued command on it, writes their changes and
//! commits; each caller gets its answer only after that commit. A failed transaction fails
//! every command of its batch (a retryable `store_unavailable` error) and the next batch
//! rebuilds the image from the store.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use super::engine::{Engine, IdSource};
use super::observe::GovernorObserver;
use super::policy::{GovernorOptions, Policy};
use super::store::{Refresh, Store};
use crate::{Clock, Error, ErrorCode};

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

fn internal(msg: impl Into<String>) -> Error {
    Error::new(ErrorCode::InternalError, msg)
}

trait Job: Send {
    fn run(&mut self, e: &mut Engine);
    fn finish(self: Box<Self>, failed: Option<&Error>);
}

type Slot<R> = Arc<Mutex<Option<crate::Result<R>>>>;

struct Call<R, F> {
    f: Option<F>,
    out: Option<crate::Result<R>>,
    slot: Slot<R>,
}

impl<R, F> Job for Call<R, F>
where
    R: Send,
    F: FnOnce(&mut Engine) -> crate::Result<R> + Send,
{
    fn run(&mut self, e: &mut Engine) {
        if let Some(f) = self.f.take() {
            self.out = Some(e.begin(true).and_then(|()| f(e)));
        }
    }

    fn finish(self: Box<Self>, failed: Option<&Error>) {
        let r = match failed {
            Some(e) => Err(e.clone()),
            None => self
                .out
                .unwrap_or_else(|| Err(internal("command was not run"))),
        };
        *lock(&self.slot) = Some(r);
    }
}

struct Queue {
    jobs: Vec<Box<dyn Job>>,
    leader: bool,
    last_batch: usize,
}

/// What rebuilding the engine's image needs.
struct OpenArgs {
    policy: Policy,
    options: GovernorOptions,
    clock: Arc<dyn Clock>,
    ids: IdSource,
}

/// The shared-store side of a [`super::Governor`].
pub(super) struct Fleet {
    q: Mutex<Queue>,
    cv: Condvar,
    /// Signalled when a command is queued: a leader gathering its batch waits on it.
    arrivals: Condvar,
    seen: Mutex<Option<u64>>,
    args: OpenArgs,
    window: Duration,
}

impl Fleet {
    /// Opens the engine inside the store's first transaction (a fresh store records
    /// `policy`; a stored one keeps its own, and its expired leases are settled
    /// `lease_expired_by_restart`).
    pub(super) fn open(
        store: &dyn Store,
        policy: Policy,
        options: GovernorOptions,
        clock: Arc<dyn Clock>,
        ids: IdSource,
        window: Duration,
    ) -> crate::Result<(Engine, Fleet)> {
        let mut engine = None;
        let seen = store.transact(None, &mut |r| {
            let Refresh::Full(snapshot) = r else {
                return Err(internal("a first transaction must load everything"));
            };
            let mut e = Engine::open(
                snapshot,
                policy.clone(),
                options.clone(),
                clock.clone(),
                ids,
                true,
            )?;
            let batch = e.take_changes();
            engine = Some(e);
            Ok(batch)
        })?;
        store.settle()?;
        let engine = engine.ok_or_else(|| internal("the store did not open the engine"))?;
        Ok((
            engine,
            Fleet {
                q: Mutex::new(Queue {
                    jobs: Vec::new(),
                    leader: false,
                    last_batch: 0,
                }),
                cv: Condvar::new(),
                arrivals: Condvar::new(),
                seen: Mutex::new(Some(seen)),
                args: OpenArgs {
                    policy,
                    options,
                    clock,
                    ids,
                },
                window,
            },
        ))
    }

    /// Runs `f` as one command of the next batch; answers once that batch committed.
    pub(super) fn run<R, F>(
        &self,
        engine: &Mutex<Engine>,
        store: &dyn Store,
        observer: Option<&Arc<dyn GovernorObserver>>,
        f: F,
    ) -> crate::Result<R>
    where
        R: Send + 'static,
        F: FnOnce(&mut Engine) -> crate::Result<R> + Send + 'static,
    {
        let slot: Slot<R> = Arc::new(Mutex::new(None));
        let mut q = lock(&self.q);
        q.jobs.push(Box::new(Call {
            f: Some(f),
            out: None,
            slot: slot.clone(),
        }));
        self.arrivals.notify_one();
        loop {
            if let Some(r) = lock(&slot).take() {
                return r;
            }
            // A caller whose command is in a batch still waiting for durability has nothing
            // queued to lead.
            if !q.leader && !q.jobs.is_empty() {
                q.leader = true;
                // Gather: wait up to the window for as many commands as the last batch had
                // (the callers it answered come back one by one).
                if q.last_batch > 1 && !self.window.is_zero() {
                    let target = q.last_batch;
                    q = self
                        .arrivals
                        .wait_timeout_while(q, self.window, |q| q.jobs.len() < target)
                        .map(|(g, _)| g)
                        .unwrap_or_else(|p| p.into_inner().0);
                }
                let jobs = std::mem::take(&mut q.jobs);
                q.last_batch = jobs.len();
                drop(q);
                let t_commit = Instant::now();
                let (jobs, mut failed) = self.process(engine, store, jobs);
                if let Some(o) = observer {
                    o.store_commit(t_commit.elapsed(), failed.is_none());
                }
                // The next batch may start while this one waits for durability (the store
                // released its locks at the commit); its answers wait for the flush.
                q = lock(&self.q);
                q.leader = false;
                self.cv.notify_all();
                drop(q);
                let t_settle = Instant::now();
                let settled = failed.is_none().then(|| {
                    catch_unwind(AssertUnwindSafe(|| store.settle())).unwrap_or_else(|_| {
                        Err(internal(
                            "store_unavailable: waiting for the commit to be durable \
                             panicked; its outcome is unknown (retryable)",
                        ))
                    })
                });
                if let (Some(o), Some(r)) = (observer, &settled) {
                    o.fleet_settle(t_settle.elapsed(), r.is_ok());
                }
                if let Some(Err(e)) = settled {
                    // The commit may be lost: rebuild the image at the next batch.
                    *lock(&self.seen) = None;
                    failed = Some(e);
                }
                for j in jobs {
                    j.finish(failed.as_ref());
                }
                q = lock(&self.q);
                self.cv.notify_all();
                continue;
            }
            q = self.cv.wait(q).unwrap_or_else(|p| p.into_inner());
        }
    }

    /// Runs one batch in one store transaction; answers the jobs (not finished yet) and the
    /// batch's error, if any.
    fn process(
        &self,
        engine: &Mutex<Engine>,
        store: &dyn Store,
        mut jobs: Vec<Box<dyn Job>>,
    ) -> (Vec<Box<dyn Job>>, Option<Error>) {
        let mut eng = lock(engine);
        let mut seen = lock(&self.seen);
        let result = catch_unwind(AssertUnwindSafe(|| {
            store.transact(*seen, &mut |refresh| {
                self.apply(&mut eng, refresh)?;
                for j in jobs.iter_mut() {
                    j.run(&mut eng);
                }
                Ok(eng.take_changes())
            })
        }))
        .unwrap_or_else(|_| {
            Err(internal(
                "store_unavailable: a command of this batch (or the store) panicked; nothing of \
                 the batch was committed (retryable)",
            ))
        });
        let failed = match result {
            Ok(v) => {
                *seen = Some(v);
                None
            }
            Err(e) => {
                // The image holds what was not committed: rebuild it at the next batch.
                *seen = None;
                let _ = eng.take_changes();
                Some(e)
            }
        };
        drop(seen);
        drop(eng);
        (jobs, failed)
    }

    fn apply(&self, eng: &mut Engine, r: Refresh) -> crate::Result<()> {
        match r {
            Refresh::Unchanged => Ok(()),
            Refresh::Changes { meta, rows } => eng.refresh(&meta, rows),
            Refresh::Full(snapshot) => {
                let a = &self.args;
                *eng = Engine::open_image(
                    snapshot,
                    a.policy.clone(),
                    a.options.clone(),
                    a.clock.clone(),
                    a.ids,
                    true,
                )?;
                Ok(())
            }
        }
    }
}
