//! The `LkAgentfile` handle (agentrc Agentfile draft 0.1.0-draft.4): parse, lint, derived
//! lease, lockfile, inheritance and Cedar policy evaluation.

use std::ffi::c_char;

use leasekit::agentfile::{self, Agentfile, ParseOptions};
use leasekit::wire;
use serde_json::Value;

use crate::boundary::ffi;
use crate::convert;
use crate::error::LkStatus;
use crate::lease::LkLease;
use crate::text::{free_handle, put_handle, put_json, put_string};

/// An opaque parsed Agentfile. Create it with `lk_agentfile_parse`, free it with
/// `lk_agentfile_free`. Secret values never appear in anything read from it.
pub struct LkAgentfile {
    inner: Agentfile,
}

/// Parses an Agentfile (strict, or compat mode when `compat` is true). Parsing never
/// fails on content: problems are diagnostics (`lk_agentfile_lint`). Writes a new
/// handle to `*out`.
///
/// # Safety
/// `text` is a NUL-terminated string; `out` points to a writable `LkAgentfile *`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lk_agentfile_parse(
    text: *const c_char,
    compat: bool,
    out: *mut *mut LkAgentfile,
) -> LkStatus {
    // SAFETY: pointer contracts documented above.
    ffi!(out: out, text: str => {
        let inner = agentfile::parse_agentfile(text, &ParseOptions { compat });
        put_handle(out, LkAgentfile { inner });
        Ok(())
    })
}

/// Frees an Agentfile. NULL is ignored.
///
/// # Safety
/// `af` is NULL or a handle from this library not freed before.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lk_agentfile_free(af: *mut LkAgentfile) {
    // SAFETY: forwarded contract.
    unsafe { free_handle(af) }
}

/// Writes the parsed Agentfile (directives, credentials by reference only, syntax
/// marker, source digest) as JSON to `*out_json`.
///
/// # Safety
/// `af` is a live handle; `out_json` points to a writable `char *`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lk_agentfile_to_json(
    af: *const LkAgentfile,
    out_json: *mut *mut c_char,
) -> LkStatus {
    // SAFETY: pointer contracts documented above.
    ffi!(out_json: out, af: handle => put_json(out_json, &convert::to_value(&af.inner)?))
}

/// Writes the package digest of the Agentfile (`sha256:<hex>`) to `*out`.
///
/// # Safety
/// `af` is a live handle; `out` points to a writable `char *`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lk_agentfile_package_digest(
    af: *const LkAgentfile,
    out: *mut *mut c_char,
) -> LkStatus {
    // SAFETY: pointer contracts documented above.
    ffi!(out: out, af: handle => put_string(out, agentfile::package_digest(&af.inner)))
}

/// Lints the Agentfile: writes parse diagnostics plus every lint rule, sorted by
/// position, as a JSON array
/// `[{"code", "severity": "error"|"warning"|"info", "line", "column", "message", "hint"}]`
/// to `*out_json`. The file is valid when no diagnostic has severity `error`.
///
/// # Safety
/// `af` is a live handle; `out_json` points to a writable `char *`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lk_agentfile_lint(
    af: *const LkAgentfile,
    out_json: *mut *mut c_char,
) -> LkStatus {
    // SAFETY: pointer contracts documented above.
    ffi!(out_json: out, af: handle => {
        put_json(out_json, &convert::to_value(&agentfile::lint(&af.inner))?)
    })
}

/// Derives the lease the Agentfile requests (`TOOL`, `URL`, `SERVER`, `MOUNT`) and
/// writes a new lease handle to `*out` (`LK_INVALID_REQUEST` when it cannot be derived).
///
/// # Safety
/// `af` is a live handle; `out` points to a writable `LkLease *`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lk_agentfile_lease(
    af: *const LkAgentfile,
    out: *mut *mut LkLease,
) -> LkStatus {
    // SAFETY: pointer contracts documented above.
    ffi!(out: out, af: handle => {
        let inner = agentfile::agentfile_lease(&af.inner)?;
        put_handle(out, LkLease { inner });
        Ok(())
    })
}

/// Writes the lockfile of the Agentfile (pretty, deterministic JSON with a trailing
/// newline) to `*out_json`.
///
/// # Safety
/// `af` is a live handle; `out_json` points to a writable `char *`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lk_agentfile_lock(
    af: *const LkAgentfile,
    out_json: *mut *mut c_char,
) -> LkStatus {
    // SAFETY: pointer contracts documented above.
    ffi!(out_json: out, af: handle => {
        put_string(out_json, agentfile::lockfile_json(&agentfile::lock(&af.inner)?))
    })
}

/// Checks that `child` only narrows `parent`: its derived lease is a subset of the
/// parent's and it does not lower `AUDIT`. `LK_OK`, `LK_LEASE_SUBSET_VIOLATION` (details
/// in the last error) or `LK_INVALID_REQUEST`.
///
/// # Safety
/// `parent` and `child` are live handles.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lk_agentfile_check_inheritance(
    parent: *const LkAgentfile,
    child: *const LkAgentfile,
) -> LkStatus {
    // SAFETY: pointer contracts documented above.
    ffi!(parent: handle, child: handle => agentfile::check_inheritance(&parent.inner, &child.inner))
}

/// Evaluates a Cedar request against the Agentfile's policy (POLICY blocks plus lowered
/// `ALLOW`/`DENY`/`RATELIMIT`). `principal`, `action` and `resource` are Cedar entity
/// uids such as `AgentRC::Tool::"file_read"`; `context_json` is NULL or a JSON object.
/// Writes `{"allowed": bool, "determining": [...], "errors": [...]}` to `*out_json`;
/// any parse or evaluation error means `"allowed": false` (the call itself succeeds).
///
/// # Safety
/// `af` is a live handle; `principal`, `action` and `resource` are NUL-terminated
/// strings; `context_json` is NULL or a NUL-terminated string; `out_json` points to a
/// writable `char *`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lk_agentfile_evaluate_policy(
    af: *const LkAgentfile,
    principal: *const c_char,
    action: *const c_char,
    resource: *const c_char,
    context_json: *const c_char,
    out_json: *mut *mut c_char,
) -> LkStatus {
    // SAFETY: pointer contracts documented above.
    ffi!(out_json: out, af: handle, principal: str, action: str, resource: str,
        context_json: opt_str => {
        let context = context_json.map_or(Ok(Value::Null), |t| convert::parse(t, "context_json"))?;
        let decision = agentfile::evaluate_policy(&af.inner, principal, action, resource, &context);
        put_json(out_json, &convert::to_value(&decision)?)
    })
}

/// Parses (strict unless `compat`), lints and derives the lease in one call, as every
/// conformance runner does: writes
/// `{"ok": bool, "diagnostics": [...], "lease": {...} | null}` to `*out_json`, where
/// `ok` means no error diagnostic and `lease` is present exactly when `ok`.
///
/// # Safety
/// `text` is a NUL-terminated string; `out_json` points to a writable `char *`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lk_agentfile_check(
    text: *const c_char,
    compat: bool,
    out_json: *mut *mut c_char,
) -> LkStatus {
    // SAFETY: pointer contracts documented above.
    ffi!(out_json: out, text: str => {
        let report = agentfile::check_agentfile(text, compat);
        put_json(out_json, &wire::agentfile_report_value(&report)?)
    })
}
