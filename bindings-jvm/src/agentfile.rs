//! Agentfile native calls of `dev.leasekit.Native`: the one-call check, and the parsed
//! `Agentfile` handle (parse, lint, derived lease, lockfile, package digest, inheritance,
//! Cedar policy evaluation), core's `leasekit::agentfile` functions one to one.
//!
//! A parsed Agentfile lives in a `Box` whose address is the Java handle (`long`), as a guard
//! does (`guard.rs`): Java's `NativeHandle` frees it exactly once, by its `Cleaner`, so no call
//! can follow or overlap the free. The core keeps no secret value in a parsed Agentfile (a
//! token that may be one is stored as `<redacted>`), so nothing read from a handle carries one.

use jni::jni_mangle;
use jni::objects::JString;
use leasekit::agentfile::{self as af, Agentfile, ParseOptions};
use leasekit::{Error, ErrorCode, wire};
use serde::Serialize;

use crate::convert::{new_string, optional_string_arg, parse_json, string_arg};
use crate::error::{BindResult, invalid, natives};

/// The parsed Agentfile behind a handle.
fn agentfile<'a>(handle: i64) -> BindResult<&'a Agentfile> {
    if handle == 0 {
        return Err(invalid("no Agentfile handle"));
    }
    // SAFETY: non-zero handles come from `agentfile_parse` and Java never passes one after
    // `agentfileFree` (see the module documentation); the value is never mutated.
    Ok(unsafe { &*(handle as *const Agentfile) })
}

/// A core value as JSON text (its serde form).
fn json<T: Serialize>(value: &T) -> BindResult<String> {
    serde_json::to_string(value)
        .map_err(|e| Error::new(ErrorCode::InternalError, e.to_string()).into())
}

natives! {
    /// `Native.agentfileCheck(text, compat)`: parses (strict unless `compat`), lints and derives
    /// the lease; the core's report as JSON `{"ok", "diagnostics": [..], "lease": {..}|null}`.
    #[jni_mangle("dev.leasekit.Native")]
    pub fn agentfile_check(env, text: JString<'local>, compat: bool) -> JString<'local> {
        let report = af::check_agentfile(&string_arg(env, &text, "Agentfile text")?, compat);
        new_string(env, &wire::agentfile_report_value(&report)?.to_string())
    }

    /// `Native.agentfileParse(text, compat)`: parses (never fails on content: problems are
    /// diagnostics) and returns the new handle.
    #[jni_mangle("dev.leasekit.Native")]
    pub fn agentfile_parse(env, text: JString<'local>, compat: bool) -> i64 {
        let text = string_arg(env, &text, "Agentfile text")?;
        let parsed = af::parse_agentfile(&text, &ParseOptions { compat });
        Ok(Box::into_raw(Box::new(parsed)) as i64)
    }

    /// `Native.agentfileFree(handle)`: frees a handle (0 is ignored); called once, by the
    /// Cleaner.
    #[jni_mangle("dev.leasekit.Native")]
    pub fn agentfile_free(_, handle: i64) {
        if handle != 0 {
            // SAFETY: the handle came from `agentfile_parse` and is freed exactly once.
            drop(unsafe { Box::from_raw(handle as *mut Agentfile) });
        }
        Ok(())
    }

    /// `Native.agentfileToJson(handle)`: the parsed file (syntax marker, directives,
    /// credentials by reference only, parse diagnostics, compat, source digest) as JSON.
    #[jni_mangle("dev.leasekit.Native")]
    pub fn agentfile_to_json(env, handle: i64) -> JString<'local> {
        new_string(env, &json(agentfile(handle)?)?)
    }

    /// `Native.agentfileLint(handle)`: parse diagnostics plus every lint rule, by position, as a
    /// JSON array of `{code, severity, line, column, message, hint}`.
    #[jni_mangle("dev.leasekit.Native")]
    pub fn agentfile_lint(env, handle: i64) -> JString<'local> {
        new_string(env, &json(&af::lint(agentfile(handle)?))?)
    }

    /// `Native.agentfileLease(handle)`: the derived lease's canonical JSON (`INVALID_REQUEST`
    /// when it cannot be derived).
    #[jni_mangle("dev.leasekit.Native")]
    pub fn agentfile_lease(env, handle: i64) -> JString<'local> {
        new_string(env, &af::agentfile_lease(agentfile(handle)?)?.to_json())
    }

    /// `Native.agentfileLockfileJson(handle)`: the lockfile (`agentrc.lock` content: pretty,
    /// deterministic JSON with a trailing newline); `INVALID_REQUEST` when lint reports an
    /// error.
    #[jni_mangle("dev.leasekit.Native")]
    pub fn agentfile_lockfile_json(env, handle: i64) -> JString<'local> {
        new_string(env, &af::lockfile_json(&af::lock(agentfile(handle)?)?))
    }

    /// `Native.agentfilePackageDigest(handle)`: `sha256:<hex>` of the package.
    #[jni_mangle("dev.leasekit.Native")]
    pub fn agentfile_package_digest(env, handle: i64) -> JString<'local> {
        new_string(env, &af::package_digest(agentfile(handle)?))
    }

    /// `Native.agentfileCheckInheritance(parent, child)`: throws
    /// `LeaseSubsetViolationException` or `InvalidRequestException` unless the child only
    /// narrows the parent.
    #[jni_mangle("dev.leasekit.Native")]
    pub fn agentfile_check_inheritance(_, parent: i64, child: i64) {
        Ok(af::check_inheritance(agentfile(parent)?, agentfile(child)?)?)
    }

    /// `Native.agentfileEvaluatePolicy(handle, principal, action, resource, contextJson)`: the
    /// Cedar decision `{"allowed", "determining", "errors"}`; fails closed (any error: denied).
    #[jni_mangle("dev.leasekit.Native")]
    pub fn agentfile_evaluate_policy(
        env,
        handle: i64,
        principal: JString<'local>,
        action: JString<'local>,
        resource: JString<'local>,
        context_json: JString<'local>,
    ) -> JString<'local> {
        let principal = string_arg(env, &principal, "principal")?;
        let action = string_arg(env, &action, "action")?;
        let resource = string_arg(env, &resource, "resource")?;
        let context = match optional_string_arg(env, &context_json, "context_json")? {
            Some(text) => parse_json(&text, "context_json")?,
            None => serde_json::Value::Null,
        };
        let decision =
            af::evaluate_policy(agentfile(handle)?, &principal, &action, &resource, &context);
        new_string(env, &json(&decision)?)
    }
}
