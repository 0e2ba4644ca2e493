//! cargo-fuzz target `canonical_fast_path`: see `leasekit_fuzz::targets` for what it checks.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| leasekit_fuzz::targets::canonical_fast_path(data));
