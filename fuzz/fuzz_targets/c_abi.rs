//! cargo-fuzz target `c_abi`: see `leasekit_fuzz::targets` for what it checks.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| leasekit_fuzz::targets::c_abi(data));
