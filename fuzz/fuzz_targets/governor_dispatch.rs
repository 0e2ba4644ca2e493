//! cargo-fuzz target `governor_dispatch`: see `leasekit_fuzz::targets` for what it checks.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| leasekit_fuzz::targets::governor_dispatch(data));
