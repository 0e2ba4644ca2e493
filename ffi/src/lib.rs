//! C ABI for leasekit (in progress).
