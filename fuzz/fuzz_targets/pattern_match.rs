//! cargo-fuzz target `pattern_match`: see `leasekit_fuzz::targets` for what it checks.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| leasekit_fuzz::targets::pattern_match(data));
