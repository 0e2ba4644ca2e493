//! python binding (in progress).
