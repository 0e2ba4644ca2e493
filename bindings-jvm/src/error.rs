//! Errors of native calls and how they reach Java.
//!
//! A native call fails with a [`BindError`]: a core [`leasekit::Error`] or a JNI failure
//! (reported as `INTERNAL_ERROR`). [`ThrowLeaseException`] resolves every call: it hands the
//! error's JSON (`{"code","message","retryable","details"}`) to the Java factory
//! `dev.leasekit.LeaseException.fromNative(String)`, which builds the subclass for the code,
//! and throws it. A panic becomes `INTERNAL_ERROR` the same way, never a JVM crash.

use std::any::Any;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};

use jni::errors::ErrorPolicy;
use jni::jni_mangle;
use jni::objects::{JClass, JString, JThrowable, JValue};
use jni::{Env, EnvUnowned, jni_sig, jni_str};
use leasekit::{Error, ErrorCode};

/// The error of a native call.
#[derive(Debug)]
pub enum BindError {
    /// An error reported by the core (or by argument conversion), thrown with its own code.
    Core(Error),
    /// A JNI failure; thrown as `INTERNAL_ERROR` unless a Java exception is already pending.
    Jni(jni::errors::Error),
}

/// The result of a native call body.
pub type BindResult<T> = Result<T, BindError>;

impl From<Error> for BindError {
    fn from(e: Error) -> Self {
        BindError::Core(e)
    }
}

impl From<jni::errors::Error> for BindError {
    fn from(e: jni::errors::Error) -> Self {
        BindError::Jni(e)
    }
}

/// Shorthand for an `INVALID_REQUEST` error.
pub fn invalid(message: impl Into<String>) -> BindError {
    BindError::Core(Error::new(ErrorCode::InvalidRequest, message))
}

/// The [`ErrorPolicy`] of every native method: throw the matching `LeaseException` subclass
/// and return the default value (`null`, `0`, `false`), which Java never sees.
#[derive(Debug, Default)]
pub struct ThrowLeaseException;

impl<T: Default> ErrorPolicy<T, BindError> for ThrowLeaseException {
    type Captures<'unowned_env_local: 'native_method, 'native_method> = ();

    fn on_error<'unowned_env_local: 'native_method, 'native_method>(
        env: &mut Env<'unowned_env_local>,
        _cap: &mut Self::Captures<'unowned_env_local, 'native_method>,
        err: BindError,
    ) -> jni::errors::Result<T> {
        if env.exception_check() {
            // A Java exception (e.g. OutOfMemoryError) is already on its way: keep it.
            return Ok(T::default());
        }
        let error = match err {
            BindError::Core(e) => e,
            BindError::Jni(e) => Error::new(ErrorCode::InternalError, format!("JNI error: {e}")),
        };
        throw_lease_error(env, &error);
        Ok(T::default())
    }

    fn on_panic<'unowned_env_local: 'native_method, 'native_method>(
        env: &mut Env<'unowned_env_local>,
        _cap: &mut Self::Captures<'unowned_env_local, 'native_method>,
        payload: Box<dyn Any + Send + 'static>,
    ) -> jni::errors::Result<T> {
        let error = Error::internal_from_panic(payload.as_ref());
        // Dropping a payload may itself panic; leak it rather than unwind into the JVM.
        if let Err(again) = catch_unwind(AssertUnwindSafe(|| drop(payload))) {
            std::mem::forget(again);
        }
        if env.exception_check() {
            env.exception_clear();
        }
        throw_lease_error(env, &error);
        Ok(T::default())
    }
}

/// Throws `error` as the `dev.leasekit.LeaseException` subclass of its code.
///
/// If the Java factory cannot be reached, a `java.lang.RuntimeException` carrying the error
/// JSON is thrown instead, so the call still fails loudly.
pub fn throw_lease_error(env: &mut Env<'_>, error: &Error) {
    let json = error.to_json().to_string();
    let thrown = throw_via_factory(env, &json);
    if !matches!(thrown, Err(jni::errors::Error::JavaException)) || !env.exception_check() {
        if env.exception_check() {
            env.exception_clear();
        }
        let _ = env.throw(format!("leasekit native error: {json}"));
    }
}

/// Builds the exception with `LeaseException.fromNative(json)` and throws it. On success this
/// returns `Err(JavaException)` with the exception pending, as [`Env::throw`] does.
fn throw_via_factory(env: &mut Env<'_>, json: &str) -> jni::errors::Result<()> {
    let text = JString::from_str(env, json)?;
    let built = env
        .call_static_method(
            jni_str!("dev/leasekit/LeaseException"),
            jni_str!("fromNative"),
            jni_sig!("(Ljava/lang/String;)Ldev/leasekit/LeaseException;"),
            &[JValue::from(&text)],
        )?
        .l()?;
    let throwable = env.cast_local::<JThrowable>(built)?;
    env.throw(throwable)
}

/// Runs the body of a native method: catches panics, and throws errors as `LeaseException`s
/// (returning the type's default value, which Java never observes).
pub fn run<'local, T: Default>(
    mut env: EnvUnowned<'local>,
    body: impl FnOnce(&mut Env<'local>) -> BindResult<T>,
) -> T {
    env.with_env(body).resolve::<ThrowLeaseException>()
}

/// As [`run`], for the hot natives (`guardAuthorize`, `guardAuthorizeModel`): the body gets
/// the raw `JNIEnv` and only a failure goes through jni's [`EnvUnowned::with_env`] machinery.
///
/// `with_env` costs tens of nanoseconds per call even when nothing fails (it maintains jni's
/// thread-local attachment bookkeeping twice and builds an `EnvOutcome`). Here the body runs
/// under a plain `catch_unwind`; an error is handed to [`run`] as the result of an empty body
/// and a panic is re-raised inside one (`resume_unwind`, which `with_env` catches), so both
/// reach [`ThrowLeaseException`] exactly as in every other native call.
pub fn run_raw<'local, T: Default>(
    env: EnvUnowned<'local>,
    body: impl FnOnce(*mut jni::sys::JNIEnv) -> BindResult<T>,
) -> T {
    let raw = env.as_raw();
    match catch_unwind(AssertUnwindSafe(|| body(raw))) {
        Ok(Ok(value)) => value,
        Ok(Err(error)) => run(env, |_| Err(error)),
        Err(payload) => run(env, |_| resume_unwind(payload)),
    }
}

/// Defines native methods of `dev.leasekit.Native`. Each
/// `#[jni_mangle(..)] pub fn name(env, arg: Type, ..) -> Ret { body }` becomes the exported
/// function with JNI's leading `(EnvUnowned, JClass)` parameters, whose `body` (a
/// [`BindResult<Ret>`], with `env` bound to the call's `&mut Env`) runs under [`run`].
macro_rules! natives {
    ($(
        $(#[$attr:meta])*
        pub fn $name:ident($env:pat $(, $arg:ident: $ty:ty)* $(,)?) $(-> $ret:ty)? $body:block
    )*) => {$(
        $(#[$attr])*
        pub fn $name<'local>(
            env: ::jni::EnvUnowned<'local>,
            _class: ::jni::objects::JClass<'local>,
            $($arg: $ty),*
        ) $(-> $ret)? {
            $crate::error::run(env, |$env| $body)
        }
    )*};
}
pub(crate) use natives;

// ---- deliberate panics for the binding's own boundary tests ----

natives! {
    /// `Native.panicForTest()`: panics inside the native code on purpose, so the binding's own
    /// tests can prove that a Rust panic reaches Java as an `InternalErrorException` (never a
    /// JVM crash). It touches no state.
    #[jni_mangle("dev.leasekit.Native")]
    pub fn panic_for_test(_) {
        panic!("deliberate panic from Native.panicForTest")
    }
}

/// `Native.panicForTestRaw()`: as `panicForTest`, through [`run_raw`], the wrapper of the hot
/// natives (`guardAuthorize`, `guardAuthorizeModel`).
#[jni_mangle("dev.leasekit.Native")]
pub fn panic_for_test_raw<'local>(env: EnvUnowned<'local>, _class: JClass<'local>) {
    run_raw(env, |_env| -> BindResult<()> {
        panic!("deliberate panic from Native.panicForTestRaw");
    })
}
