//! JNI library behind the leasekit Java API (`dev.leasekit`, see `../README.md`).
//!
//! Every exported function is a `static native` method of the package-private Java class
//! `dev.leasekit.Native`. This crate only converts: Java strings to Rust strings, JSON text to
//! core values and back, `(epochSecond, nano)` pairs to [`leasekit::Timestamp`], core errors and
//! panics to typed Java exceptions. All lease logic lives in the `leasekit` core.
//!
//! * [`error`]: the error type of every native call and the policy that throws
//!   `dev.leasekit.LeaseException` subclasses (panics become `INTERNAL_ERROR`).
//! * [`convert`]: string, JSON, decimal and time conversions.
//! * [`text`]: the hot-path string conversions of the authorize calls (UTF-16 in and out).
//! * [`clock`]: the per-call clock through which Java's `java.time.Clock` reaches the core.
//! * [`names`]: capability names, canonical targets, patterns.
//! * [`lease`]: lease validation, budget, subset, lint.
//! * [`budget`]: budget entries, sums, AMOUNT text.
//! * [`expiry`]: `expires_at` and constraints.
//! * [`narrow`]: narrowing a lease or constraints to a ceiling.
//! * [`guard`]: the `LeaseGuard` handle calls.
//! * [`agentfile`]: the Agentfile check (parse, lint, derived lease).
//! * [`governor`]: the embedded governor handle calls and frame decoding.
//! * [`client`]: the daemon client (`GovernorClient`) handle calls.

pub mod agentfile;
pub mod budget;
pub mod client;
pub mod clock;
pub mod convert;
pub mod error;
pub mod expiry;
pub mod governor;
pub mod guard;
pub mod lease;
pub mod names;
pub mod narrow;
pub mod text;

use jni::jni_mangle;
use jni::objects::JString;

error::natives! {
    /// `NativeLibrary.nativeVersion()`: the version this library was built as (the workspace
    /// version), which `NativeLibrary` compares with the jar's so that a jar never runs on a
    /// library of another release.
    #[jni_mangle("dev.leasekit.NativeLibrary")]
    pub fn native_version(env) -> JString<'local> {
        convert::new_string(env, env!("CARGO_PKG_VERSION"))
    }
}
