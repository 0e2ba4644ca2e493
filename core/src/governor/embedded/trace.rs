//! Group-commit figures for diagnostics (`LEASEKIT_COMMIT_TRACE=1`): every 2 s to stderr, the
//! batches, commands per batch and where a batch's time goes (gathering, taking the engine's
//! changes, the store's commit, and of the commit the leader's time on a CPU and waiting for
//! one). Counts and times only: nothing of a request.

use std::time::{Duration, Instant};

/// Where the time of group commits goes (`LEASEKIT_COMMIT_TRACE=1`).
pub(super) struct CommitTrace {
    since: Instant,
    batches: u64,
    commands: u64,
    gather: Duration,
    take: Duration,
    write: Duration,
    /// Of `write`: the committing thread on a CPU, and waiting in the run queue for one.
    write_cpu: Duration,
    write_queued: Duration,
}

/// The calling thread's scheduler figures (Linux `/proc/thread-self/schedstat`): time on a
/// CPU and time runnable but waiting for one. `None` where the kernel does not keep them. The
/// kernel brings a running thread's figures up to date at scheduler ticks and switches, so one
/// reading can lag by a tick; the trace sums thousands of commits (each blocks on its write).
pub(super) fn sched_times() -> Option<(Duration, Duration)> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let mut it = text.split_whitespace().map(|n| n.parse::<u64>().ok());
    Some((
        Duration::from_nanos(it.next()??),
        Duration::from_nanos(it.next()??),
    ))
}

impl CommitTrace {
    pub(super) fn from_env() -> Option<CommitTrace> {
        std::env::var_os("LEASEKIT_COMMIT_TRACE").map(|_| CommitTrace::fresh())
    }

    /// Empty counters from now.
    fn fresh() -> CommitTrace {
        CommitTrace {
            since: Instant::now(),
            batches: 0,
            commands: 0,
            gather: Duration::ZERO,
            take: Duration::ZERO,
            write: Duration::ZERO,
            write_cpu: Duration::ZERO,
            write_queued: Duration::ZERO,
        }
    }

    /// Adds the scheduler figures of one commit (its thread's, before and after).
    pub(super) fn add_sched(&mut self, before: Option<(Duration, Duration)>) {
        self.add_sched_between(before, sched_times());
    }

    /// Adds the difference of two scheduler readings; nothing when either is missing.
    fn add_sched_between(
        &mut self,
        before: Option<(Duration, Duration)>,
        after: Option<(Duration, Duration)>,
    ) {
        if let (Some((cpu0, q0)), Some((cpu1, q1))) = (before, after) {
            self.write_cpu += cpu1.saturating_sub(cpu0);
            self.write_queued += q1.saturating_sub(q0);
        }
    }

    pub(super) fn add(
        &mut self,
        commands: u64,
        gather: Instant,
        take: Instant,
        write: Instant,
        end: Instant,
    ) {
        self.batches += 1;
        self.commands += commands;
        self.gather += take - gather;
        self.take += write - take;
        self.write += end - write;
        if self.since.elapsed() >= Duration::from_secs(2) {
            let n = self.batches.max(1) as f64;
            let us = |d: Duration| d.as_secs_f64() * 1e6 / n;
            eprintln!(
                "group commit: {} batches, {:.1} commands/batch; per batch: gather {:.0} us, \
                 take changes {:.0} us, store commit {:.0} us (on a CPU {:.0} us, waiting for \
                 one {:.0} us)",
                self.batches,
                self.commands as f64 / n,
                us(self.gather),
                us(self.take),
                us(self.write),
                us(self.write_cpu),
                us(self.write_queued)
            );
            *self = CommitTrace::fresh();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scheduler_figures_grow_with_work() {
        let Some((cpu0, _)) = sched_times() else {
            return; // not Linux, or no schedstat: the trace leaves the figures out
        };
        let t = Instant::now();
        let mut x = 0u64;
        while t.elapsed() < Duration::from_millis(20) {
            x = x.wrapping_mul(31).wrapping_add(7);
        }
        std::hint::black_box(x);
        // A read can fail (e.g. another test lowered the open-file limit): nothing to compare.
        let Some((cpu1, _)) = sched_times() else {
            return;
        };
        assert!(cpu1 > cpu0, "{cpu0:?} -> {cpu1:?}");
    }

    #[test]
    fn a_commit_adds_the_difference_of_its_readings() {
        let ms = Duration::from_millis;
        let mut tr = CommitTrace::fresh();
        tr.add_sched_between(Some((ms(1), ms(2))), Some((ms(5), ms(3))));
        assert_eq!((tr.write_cpu, tr.write_queued), (ms(4), ms(1)));
        // A missing reading adds nothing; a reading that went back adds zero.
        tr.add_sched_between(None, Some((ms(9), ms(9))));
        tr.add_sched_between(Some((ms(9), ms(9))), None);
        tr.add_sched_between(Some((ms(9), ms(9))), Some((ms(1), ms(1))));
        assert_eq!((tr.write_cpu, tr.write_queued), (ms(4), ms(1)));
    }
}
