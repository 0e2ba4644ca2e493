//! The clock seen by guards created through the JVM binding.
//!
//! Java owns time (`java.time.Clock`, injectable). Each guard call passes the Java clock's
//! current instant; [`with_now`] makes it visible to [`CallerClock`] for the duration of that
//! one call on the calling thread only, so concurrent calls on one guard from several Java
//! threads each see their own time and no lock is needed.
//!
//! A guard whose Java clock is the system clock (`Clock.systemUTC()`, the default) is built
//! on the core's [`leasekit::SystemClock`] instead: its calls pass no instant
//! ([`with_optional_now`] with `None`) and the core reads the system clock itself, only when
//! the lease has a deadline.

use std::cell::Cell;

use leasekit::{Clock, Error, ErrorCode, Timestamp};

thread_local! {
    static NOW: Cell<Option<Timestamp>> = const { Cell::new(None) };
}

/// A [`Clock`] that answers the instant supplied by the current native call.
///
/// Outside [`with_now`] it has no time and fails closed with `INTERNAL_ERROR`.
#[derive(Debug, Default, Clone, Copy)]
pub struct CallerClock;

impl Clock for CallerClock {
    fn now(&self) -> leasekit::Result<Timestamp> {
        NOW.with(Cell::get).ok_or_else(|| {
            Error::new(
                ErrorCode::InternalError,
                "no current time was supplied to this native call",
            )
        })
    }
}

/// Runs `f` with `now` as the time of [`CallerClock`] on this thread, restoring the previous
/// value afterwards (also when `f` panics).
pub fn with_now<R>(now: Timestamp, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<Timestamp>);
    impl Drop for Restore {
        fn drop(&mut self) {
            NOW.with(|n| n.set(self.0));
        }
    }
    let _restore = Restore(NOW.with(|n| n.replace(Some(now))));
    f()
}

/// As [`with_now`] when `now` is given; otherwise runs `f` without touching this thread's
/// time (a [`CallerClock`] then fails closed, a guard on the system clock reads it itself).
pub fn with_optional_now<R>(now: Option<Timestamp>, f: impl FnOnce() -> R) -> R {
    match now {
        Some(now) => with_now(now, f),
        None => f(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_only_inside_with_now() {
        assert!(CallerClock.now().is_err());
        let t = Timestamp::from_unix_millis(1_000);
        let seen = with_now(t, || CallerClock.now().map(Timestamp::unix_millis));
        assert_eq!(seen.ok(), Some(1_000));
        assert!(CallerClock.now().is_err());
    }

    #[test]
    fn nested_calls_restore_the_outer_time() {
        let outer = Timestamp::from_unix_millis(1);
        let inner = Timestamp::from_unix_millis(2);
        with_now(outer, || {
            with_now(inner, || {
                assert_eq!(CallerClock.now().map(Timestamp::unix_millis).ok(), Some(2));
            });
            assert_eq!(CallerClock.now().map(Timestamp::unix_millis).ok(), Some(1));
        });
    }

    #[test]
    fn other_threads_do_not_see_the_time() {
        with_now(Timestamp::from_unix_millis(5), || {
            let other = std::thread::spawn(|| CallerClock.now().is_err()).join();
            assert_eq!(other.ok(), Some(true));
        });
    }
}
