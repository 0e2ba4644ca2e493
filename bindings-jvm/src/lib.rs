//! jvm binding (in progress).
