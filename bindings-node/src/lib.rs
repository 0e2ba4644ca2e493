//! node binding (in progress).
