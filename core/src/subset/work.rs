//! The work bound of one subset or narrowing call (SEMANTICS 9): any call on leases within
//! SEMANTICS 2's bounds must answer within 100 ms on one core, and what cannot be decided
//! within the bound is "not a subset" (narrowing drops the pattern).
//!
//! Work is counted in units of about one 64-bit word operation of an automaton step (one
//! word of state stepped on one byte, hashed or stored), for every inclusion decision of the
//! call together. What is counted is the work the decision does as it goes (each step of
//! the exploration is charged as it is taken, each automaton run counts the words it really
//! stepped), never an estimate of the whole decision made in advance: a decision stops when
//! its exploration passes the bound, and one whose exploration fits is made.

/// The work units one subset or narrowing call may spend (see `docs/performance.md` for the
/// worst cases measured against it).
pub const MAX_WORK_UNITS: u64 = 8_000_000;

/// Stored product-state words one inclusion decision may hold (32 MiB).
pub(crate) const MAX_STORED_WORDS: u64 = 1 << 22;

/// The work budget of one call.
#[derive(Debug)]
pub(crate) struct Work {
    left: u64,
    #[cfg(test)]
    limit: u64,
}

impl Work {
    /// A budget of [`MAX_WORK_UNITS`].
    pub(crate) fn new() -> Work {
        Work::with_limit(MAX_WORK_UNITS)
    }

    /// A budget of `limit` units.
    pub(crate) fn with_limit(limit: u64) -> Work {
        Work {
            left: limit,
            #[cfg(test)]
            limit,
        }
    }

    /// Takes `units` from the budget; `false` (and an empty budget) when they are not there.
    #[inline]
    #[must_use]
    pub(crate) fn charge(&mut self, units: u64) -> bool {
        match self.left.checked_sub(units) {
            Some(left) => {
                self.left = left;
                true
            }
            None => {
                self.left = 0;
                false
            }
        }
    }

    /// Units left.
    pub(crate) fn left(&self) -> u64 {
        self.left
    }

    /// Spends what is left (a run stopped past it).
    pub(crate) fn exhaust(&mut self) {
        self.left = 0;
    }

    /// Whether the budget is spent.
    pub(crate) fn exhausted(&self) -> bool {
        self.left == 0
    }

    /// Units spent so far.
    #[cfg(test)]
    pub(crate) fn used(&self) -> u64 {
        self.limit - self.left
    }
}
