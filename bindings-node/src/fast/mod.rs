//! The per-call hot path, `LeaseGuard.prototype.authorize` / `authorizeModel`, as plain
//! Node-API callbacks.
//!
//! Why not `#[napi]`: napi-rs 3.16 opens a native-borrow scope (a mutex-guarded registry,
//! several allocations) and checks class identity on every call, which cost ~600 ns of the
//! ~800 ns an authorize took. These callbacks do only conversions: read two strings into
//! buffers the guard reuses, call core's `LeaseGuard::authorize_kind_cow` (a reserved
//! capability, passed by index) or `authorize_cow` (a vendor name), and hand back the
//! caller's own string when core borrowed it (a new string only when canonicalization
//! changed it). A lone surrogate is refused (`INVALID_REQUEST`), never replaced.
//!
//! One native function serves every guard of a JavaScript thread (`__fastAuthorize`, created
//! once by `index.js`). Its first argument is the guard's handle, a number naming a clone of
//! the core guard and of its JavaScript clock in this thread's registry (`registry.rs`);
//! `index.js` asks for it once per guard (`__fastKey`) and keeps it under a symbol. A
//! number that names no live guard is refused. Errors are thrown as a plain `{code, message}`
//! (see `throw.rs`) that `index.js` converts like every other native error, and panics are
//! caught.

//!
//! Dependencies point one way: this module reads `LeaseGuard` (`guard.rs`) and the clock
//! (`clock.rs`); the guard knows nothing of it, and holds its registry slot only as an
//! opaque attachment dropped with the guard.

mod authorize;
pub(crate) mod registry;
mod throw;

use std::ffi::c_void;
use std::ptr;
use std::rc::Rc;

use leasekit::{Error, ErrorCode};
use napi::Env;
use napi::JsValue;
use napi::bindgen_prelude::{JsObjectValue, Object, Unknown};
use napi::sys::{self, Status};
use napi_derive::napi;

use crate::error::{Result, run};
use crate::guard::LeaseGuard;
use registry::{FastGuard, Registration, Registry};

/// The shared authorize function of this JavaScript thread, `authorize(key, target)` /
/// `authorize(key, target, capability)` (see [`authorize`]), for every guard (see
/// `registry.rs`). `index.js` creates it once. Internal.
#[napi(js_name = "__fastAuthorize", skip_typescript)]
pub fn fast_authorize(env: &Env) -> napi::Result<Unknown<'_>> {
    let registry = Registry::current();
    let data = Rc::as_ptr(&registry).cast_mut().cast::<c_void>();
    let mut f = ptr::null_mut();
    // SAFETY: a plain Node-API call on the current env. `data` points into the registry, which
    // the finalizer below keeps alive as long as the function (this thread's registry holds it
    // meanwhile).
    let made = unsafe {
        sys::napi_create_function(
            env.raw(),
            c"authorize".as_ptr(),
            -1,
            Some(authorize::authorize),
            data,
            &mut f,
        )
    };
    if made != Status::napi_ok {
        return Err(napi::Error::from_reason(
            "cannot create the authorize function",
        ));
    }
    let mut function = Object::from_raw(env.raw(), f);
    function.add_finalizer(registry, (), |_| {})?;
    Ok(function.to_unknown())
}

#[napi]
impl LeaseGuard {
    /// This guard's key for the shared authorize function (its handle times 8, see
    /// `fast/registry.rs`), registered on first use and released when the guard is
    /// collected. Internal.
    #[napi(js_name = "__fastKey", skip_typescript)]
    pub fn fast_key(&self) -> Result<i64> {
        run(|| {
            let mut attached = self.attachment.borrow_mut();
            if let Some(registration) = attached
                .as_ref()
                .and_then(|a| a.downcast_ref::<Registration>())
            {
                return Ok(registration.key() as i64);
            }
            let registration = Registration::new(FastGuard {
                guard: self.inner.clone(),
                clock: self.clock.clone(),
                scratch: Default::default(),
            })
            .ok_or_else(|| {
                Error::new(
                    ErrorCode::InternalError,
                    "too many live guards on this thread",
                )
            })?;
            let key = registration.key();
            *attached = Some(Box::new(registration));
            Ok(key as i64)
        })
    }
}
