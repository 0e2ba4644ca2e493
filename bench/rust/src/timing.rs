//! The timing rule shared (in spirit, one copy per language) by every harness: calibrate a
//! batch to about 10 ms, take 11 batches, report the median time per call.

use std::time::Instant;

/// Batches per measurement.
pub const SAMPLES: usize = 11;
/// Target wall time of one batch, in nanoseconds.
const BATCH_NS: u128 = 10_000_000;

/// Median nanoseconds per call of `f`, the batch size and the number of batches.
pub fn median_ns_per_call(mut f: impl FnMut()) -> (f64, u64, usize) {
    let mut iters: u64 = 1;
    loop {
        let t = Instant::now();
        for _ in 0..iters {
            f();
        }
        let el = t.elapsed().as_nanos();
        if el >= BATCH_NS / 4 || iters >= 1 << 30 {
            if el < BATCH_NS && el > 0 {
                iters = ((iters as u128 * BATCH_NS / el) as u64).max(1);
            }
            break;
        }
        iters *= 4;
    }
    let mut per_call: Vec<f64> = (0..SAMPLES)
        .map(|_| {
            let t = Instant::now();
            for _ in 0..iters {
                f();
            }
            t.elapsed().as_nanos() as f64 / iters as f64
        })
        .collect();
    per_call.sort_by(f64::total_cmp);
    (per_call[SAMPLES / 2], iters, SAMPLES)
}

/// Resets the process's peak RSS (Linux: `5` into /proc/self/clear_refs); best effort.
pub fn reset_peak_rss() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

/// Peak RSS in KiB since the last reset (VmHWM), or 0 when unavailable.
pub fn peak_rss_kb() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse().ok())
        })
        .unwrap_or(0)
}
