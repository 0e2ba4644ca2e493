//! Deferred commits: the answer before the commit, and a [`CommitWait`] to await.
//!
//! A daemon thread that blocks until its command's batch is committed costs a sleep, a wake
//! and a fight for the commit lock per command, on top of the hand-off back to the async
//! runtime. [`Governor::handle_as_deferred`] decides the command at once (the same engine
//! step, queued into the same group commit) and answers its envelope together with a
//! [`CommitWait`]: a future (or a blocking [`CommitWait::wait`]) that completes when the
//! command's batch is committed, or fails with the command's `store_unavailable` error. The
//! caller sends the answer only after that: SEMANTICS 13.11 holds as before (an answer is
//! sent only after its commit), and a failed commit replaces the answer with the error.
//!
//! Nobody is blocked on a deferred command. A deferred command that finds no leader leads the
//! batch holding it on its own thread (a lone caller costs no hand-off); the commands queued
//! while a batch is written are led by a committer thread (started with the first deferred
//! command, exiting once the governor is dropped), which gathers, takes the changes and
//! commits exactly as a waiting command would ([`Governor::lead`]). Blocking callers still
//! lead their own batches; one leader at a time.

use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Condvar, Weak};
use std::task::{Context, Poll, Wake, Waker};
use std::time::Duration;

use super::{CommitState, Governor, Shared, lock, not_committed};
use crate::governor::access::Peer;
use crate::governor::wire::{Command, ResponseEnvelope};

/// How long the idle committer sleeps before it checks that its governor still exists.
const IDLE: Duration = Duration::from_millis(200);

/// What one deferred call collected: the commands it queued and what runs after their commit.
struct Deferred {
    /// The governor deferring (its `Shared`), so another governor on the thread never defers.
    owner: usize,
    /// May the deciding thread lead the batch holding its command (false: never block it).
    lead: bool,
    seqs: Vec<u64>,
    after: Vec<Box<dyn FnOnce(bool) + Send>>,
}

thread_local! {
    /// Set while [`Governor::handle_as_deferred`] runs on this thread.
    static DEFERRED: RefCell<Option<Deferred>> = const { RefCell::new(None) };
}

/// Sets the deferral for one call and always clears it (a panic included).
struct Scope {
    prev: Option<Deferred>,
    done: bool,
}

impl Scope {
    fn enter(owner: usize, lead: bool) -> Scope {
        let d = Deferred {
            owner,
            lead,
            seqs: Vec::new(),
            after: Vec::new(),
        };
        Scope {
            prev: DEFERRED.with(|t| t.replace(Some(d))),
            done: false,
        }
    }

    fn finish(mut self) -> Option<Deferred> {
        self.done = true;
        DEFERRED.with(|t| t.replace(self.prev.take()))
    }
}

impl Drop for Scope {
    fn drop(&mut self) {
        if !self.done {
            DEFERRED.with(|t| t.replace(self.prev.take()));
        }
    }
}

impl CommitState {
    /// A deferred command was queued: true when the committer thread must be started (the
    /// caller starts it); wakes it when it idles, unless the caller leads the batch itself.
    pub(super) fn kick_committer(&mut self, work: &Condvar, leading: bool) -> bool {
        if !self.committer_started {
            self.committer_started = true;
            return true;
        }
        if self.committer_idle && !leading {
            work.notify_one();
        }
        false
    }
}

impl Governor {
    fn owner(&self) -> usize {
        Arc::as_ptr(&self.inner) as usize
    }

    /// As [`Governor::handle_as`], but a command of a durable store is answered as soon as it
    /// is decided, with the [`CommitWait`] of its commit: send the answer only once that
    /// completes, and send its error instead when it fails. `None`: nothing to wait for (a
    /// store that is not durable, a fleet member, a command that changed nothing, or an audit
    /// export or verification, which read the store after their own commit and so always
    /// wait).
    pub fn handle_as_deferred(
        &self,
        peer: Peer,
        command: &str,
        payload_json: &str,
    ) -> (ResponseEnvelope, Option<CommitWait>) {
        let s = &*self.inner;
        let reads_store = matches!(
            Command::parse(command),
            Some(Command::ExportAudit | Command::VerifyAudit)
        );
        if !s.group || s.fleet.is_some() || reads_store {
            return (self.handle_as(peer, command, payload_json), None);
        }
        self.deferred_call(peer, command, payload_json, true)
    }

    /// As [`Governor::handle_as_deferred`], for a caller that must not block (an async
    /// runtime's thread): decides the command at once when that takes no I/O and no wait,
    /// else answers `None` (decide it on a blocking thread instead). Only the per-call
    /// commands ([`decides_without_blocking`]) of a governor on its own store (memory or
    /// SQLite, not a fleet's) are decided, and only while nothing else holds the engine (a
    /// sweep, an admin command, a rebuild after a failed commit). A durable command's commit is
    /// always led by the committer thread, never by the caller: the answer comes with its
    /// [`CommitWait`] as from [`Governor::handle_as_deferred`].
    pub fn handle_as_nonblocking(
        &self,
        peer: Peer,
        command: &str,
        payload_json: &str,
    ) -> Option<(ResponseEnvelope, Option<CommitWait>)> {
        let s = &*self.inner;
        let quick = Command::parse(command).is_some_and(decides_without_blocking);
        if !quick || s.fleet.is_some() || self.engine_busy() {
            return None;
        }
        Some(self.deferred_call(peer, command, payload_json, false))
    }

    /// True while a command decided on a thread that may block is under way (a sweep, an
    /// admin command, a large request: it may hold the engine for long), or a failed commit
    /// left the image to be rebuilt (the next command rebuilds it: a store read).
    fn engine_busy(&self) -> bool {
        let s = &*self.inner;
        s.blocking_calls.load(Ordering::Acquire) > 0 || lock(&s.commit).broken.is_some()
    }

    /// True when this thread decides through [`Governor::handle_as_nonblocking`].
    pub(super) fn nonblocking_caller(&self) -> bool {
        let me = self.owner();
        DEFERRED.with(|t| {
            t.borrow()
                .as_ref()
                .is_some_and(|d| d.owner == me && !d.lead)
        })
    }

    fn deferred_call(
        &self,
        peer: Peer,
        command: &str,
        payload_json: &str,
        lead: bool,
    ) -> (ResponseEnvelope, Option<CommitWait>) {
        let scope = Scope::enter(self.owner(), lead);
        let answer = self.handle_as(peer, command, payload_json);
        let Some(d) = scope.finish() else {
            return (answer, None);
        };
        if d.seqs.is_empty() {
            for f in d.after {
                f(true);
            }
            return (answer, None);
        }
        let wait = CommitWait {
            inner: self.inner.clone(),
            key: *d.seqs.iter().max().expect("seqs"),
            seqs: d.seqs,
            after: d.after,
            finished: false,
        };
        (answer, Some(wait))
    }

    /// True when this thread defers this governor's commits.
    pub(super) fn defers(&self) -> bool {
        let me = self.owner();
        DEFERRED.with(|t| t.borrow().as_ref().is_some_and(|d| d.owner == me))
    }

    /// Records command `seq` (queued, not committed) in this thread's deferral.
    pub(super) fn defer(&self, seq: u64) {
        DEFERRED.with(|t| {
            if let Some(d) = t.borrow_mut().as_mut() {
                d.seqs.push(seq);
            }
        });
    }

    /// Runs `f` once the commands this thread deferred are committed (`true`) or failed
    /// (`false`); at once with `true` when nothing is deferred (the caller's command is
    /// committed already).
    pub(super) fn after_commit(&self, f: impl FnOnce(bool) + Send + 'static) {
        let me = self.owner();
        let mut f = Some(f);
        DEFERRED.with(|t| {
            if let Some(d) = t.borrow_mut().as_mut()
                && d.owner == me
                && !d.seqs.is_empty()
                && let Some(f) = f.take()
            {
                // Boxed only when it must wait: the answer-at-once path allocates nothing.
                d.after.push(Box::new(f));
            }
        });
        if let Some(f) = f {
            f(true);
        }
    }

    /// Starts the committer thread; false when no thread could be started (the caller then
    /// waits itself, and the next deferred command tries again).
    pub(super) fn spawn_committer(&self) -> bool {
        let weak = Arc::downgrade(&self.inner);
        let started = std::thread::Builder::new()
            .name("leasekit-commit".into())
            .spawn(move || committer(weak))
            .is_ok();
        if !started {
            lock(&self.inner.commit).committer_started = false;
        }
        started
    }
}

/// The commands [`Governor::handle_as_nonblocking`] decides: the per-call ones, whose work is
/// bounded by their own payload and the image (no store read, no policy to compile, no
/// export). Every other command is decided on a blocking thread.
pub fn decides_without_blocking(command: Command) -> bool {
    matches!(
        command,
        Command::Acquire
            | Command::Release
            | Command::RequestToolSubLease
            | Command::ExecuteToolCall
            | Command::Authorize
            | Command::RecordDecision
    )
}

/// The committer thread: leads every batch with commands queued and no leader, idles on
/// [`Shared::work`] otherwise, and exits once the governor is gone.
fn committer(weak: Weak<Shared>) {
    loop {
        let Some(inner) = weak.upgrade() else { return };
        let gov = Governor { inner };
        let s = &*gov.inner;
        let mut c = lock(&s.commit);
        if !c.leader && c.next_seq > c.taken {
            drop(gov.lead(c));
            continue;
        }
        c.committer_idle = true;
        let mut c = s
            .work
            .wait_timeout(c, IDLE)
            .map(|(g, _)| g)
            .unwrap_or_else(|p| p.into_inner().0);
        c.committer_idle = false;
    }
}

/// The commit of a deferred call's commands ([`Governor::handle_as_deferred`]): a future that
/// completes when they are committed (`Ok`), or with the `store_unavailable` error their
/// answer must be replaced by (not committed, or outcome unknown: retry with the same
/// idempotency key). [`CommitWait::wait`] blocks instead.
#[must_use = "the answer may be sent only once its commit is awaited"]
pub struct CommitWait {
    inner: Arc<Shared>,
    /// The last command (its waker's key).
    key: u64,
    seqs: Vec<u64>,
    after: Vec<Box<dyn FnOnce(bool) + Send>>,
    finished: bool,
}

impl std::fmt::Debug for CommitWait {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CommitWait")
            .field("commands", &self.seqs)
            .finish()
    }
}

impl CommitWait {
    /// The outcome once every command has one (its failure collected), else `None`.
    fn outcome(&self, c: &mut CommitState) -> Option<Result<(), String>> {
        if !self.seqs.iter().all(|&s| c.resolved(s)) {
            return None;
        }
        let mut failed = None;
        for &s in &self.seqs {
            if let Some(m) = c.take_failed(s) {
                failed.get_or_insert(m);
            }
        }
        Some(failed.map_or(Ok(()), Err))
    }

    /// Ends the wait: what waited for the outcome runs (outside the commit lock).
    fn finish(&mut self, committed: bool) {
        self.finished = true;
        for f in self.after.drain(..) {
            f(committed);
        }
    }

    /// Blocks until the commit (the outcome as the future's).
    pub fn wait(mut self) -> crate::Result<()> {
        struct Unpark(std::thread::Thread);
        impl Wake for Unpark {
            fn wake(self: Arc<Self>) {
                self.0.unpark();
            }
        }
        let waker = Waker::from(Arc::new(Unpark(std::thread::current())));
        let mut cx = Context::from_waker(&waker);
        loop {
            if let Poll::Ready(r) = Pin::new(&mut self).poll(&mut cx) {
                return r;
            }
            std::thread::park();
        }
    }
}

impl Future for CommitWait {
    type Output = crate::Result<()>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<crate::Result<()>> {
        let this = self.get_mut();
        if this.finished {
            return Poll::Ready(Ok(()));
        }
        let inner = this.inner.clone();
        let mut c = lock(&inner.commit);
        let key = this.key;
        c.wakers.retain(|(k, _)| *k != key);
        match this.outcome(&mut c) {
            Some(r) => {
                drop(c);
                this.finish(r.is_ok());
                Poll::Ready(r.map_err(|m| not_committed(&m)))
            }
            None => {
                c.wakers.push((key, cx.waker().clone()));
                Poll::Pending
            }
        }
    }
}

impl Drop for CommitWait {
    fn drop(&mut self) {
        if self.finished {
            return;
        }
        // Abandoned (the caller went away): collect the outcome if there is one, so a
        // failure's record does not wait for it forever, and forget the waker.
        let inner = self.inner.clone();
        let mut c = lock(&inner.commit);
        let key = self.key;
        c.wakers.retain(|(k, _)| *k != key);
        let outcome = self.outcome(&mut c);
        drop(c);
        if let Some(r) = outcome {
            self.finish(r.is_ok());
        }
    }
}
