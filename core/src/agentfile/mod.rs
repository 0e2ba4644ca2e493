//! The agentrc Agentfile, draft 0.1.0-draft.4 (seed spec sections 7-13, docs/semantics.md 12).
//!
//! # Grammar (summary)
//! - Line oriented; `\n` or `\r\n`; a leading UTF-8 BOM is skipped. Blank lines and lines whose
//!   first non-blank character is `#` are ignored. An inline comment starts at whitespace
//!   followed by `#` (so `vault://path#key` keeps its `#`). No quoting, no continuation lines.
//! - `# syntax=agentrc.agentfile/v0.1` before the first directive is recorded as the syntax
//!   marker; another value is a `syntax-marker` warning.
//! - A directive line is `NAME arg arg ...`, split on spaces and tabs. Names are the 32
//!   upper-case words of section 9 ([`DIRECTIVES`]); a known name in another case is
//!   `lowercase-directive`, anything else `unknown-directive`, and `X-...` names are kept as
//!   extensions with a warning.
//! - `POLICY [cedar]` and `SOP <name>` open blocks captured byte-exact up to a line that is
//!   `END` (surrounding whitespace and a trailing `# comment` allowed). `SOP <arg>` whose
//!   argument contains `/`, `://` or ends in `.md` is a one-line reference instead.
//! - Files in the later Dockerfile-shaped grammar (draft.5+/v1: `IDENTITY`, `CAPABILITY`,
//!   `SOP <<EOF`, `POLICY key value`, `# syntax=agentrc.io/agentfile:v1`) get one
//!   `newer-grammar` error instead of a pile of unknown directives.
//!
//! Every diagnostic code is listed in [`codes`] and explained in `docs/agentfile.md`.
//!
//! # Secret safety
//! A `CRED` keeps only its name, source reference (`env:`, `vault://...#key`, `keyring:`) and
//! hosts. Any other token on a `CRED` line is replaced by `<redacted>` before it is stored and
//! never appears in a message, so the AST, its `Debug` and JSON forms, diagnostics, the lease
//! and the lockfile cannot carry a secret value. The raw source text is not kept (only its
//! sha256).

mod arg_context;
mod args;
mod ast;
mod cred;
mod diagnostics;
mod directives;
mod inherit;
mod lease;
mod lint;
mod lockfile;
mod parser;
mod policy;
mod refs;
mod values;

use serde::Serialize;

pub use ast::{
    Agentfile, AuditLevel, Block, Cred, Directive, Inject, Mount, REDACTED, Span, SyntaxMarker,
};
pub use diagnostics::{Diagnostic, Severity, codes};
pub use directives::{DIRECTIVES, DirectiveInfo, Profile, directive_info};
pub use inherit::check_inheritance;
pub use lease::agentfile_lease;
pub use lint::lint;
pub use lockfile::{
    BaseImage, LOCK_TIMESTAMP, LOCKFILE_VERSION, LockFunction, LockItem, Lockfile, lock,
    lockfile_json, package_digest,
};
pub use parser::SYNTAX_V01;
pub use policy::{PolicyDecision, evaluate_policy};
pub(crate) use policy::{cedar_string as cedar_literal, policy_sources};
pub use refs::{is_pinned_reference, unpinned_base};

/// Parser options. The default is strict mode.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ParseOptions {
    /// Compat mode: a two-argument `BIND` is a warning (read as `copy`) instead of an error.
    pub compat: bool,
}

/// Parses an Agentfile. Never fails and never panics: problems are in
/// [`Agentfile::diagnostics`]. Linear in the input size.
pub fn parse_agentfile(text: &str, opts: &ParseOptions) -> Agentfile {
    parser::parse(text, opts)
}

/// What every conformance runner checks for op `agentfile`.
#[derive(Debug, Clone, Serialize)]
pub struct AgentfileReport {
    /// No error-severity diagnostic after lint.
    pub ok: bool,
    /// Parse and lint diagnostics, sorted by position.
    pub diagnostics: Vec<Diagnostic>,
    /// The derived lease, present exactly when `ok`.
    pub lease: Option<crate::Lease>,
}

/// Parses (strict unless `compat`), lints and derives the lease.
pub fn check_agentfile(text: &str, compat: bool) -> AgentfileReport {
    let af = parse_agentfile(text, &ParseOptions { compat });
    let mut diagnostics = lint(&af);
    let mut lease = None;
    if !diagnostics.iter().any(Diagnostic::is_error) {
        match agentfile_lease(&af) {
            Ok(l) => lease = Some(l),
            // Per-pattern problems are caught by lint; what is left is lease-wide (bounds).
            Err(e) => diagnostics.push(Diagnostic::new(
                codes::LEASE_PATTERN,
                Severity::Error,
                0,
                0,
                format!("the derived lease is invalid: {}", e.message()),
            )),
        }
    }
    AgentfileReport {
        ok: lease.is_some(),
        diagnostics,
        lease,
    }
}
