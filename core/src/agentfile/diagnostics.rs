//! Diagnostics: the stable codes, severities and positions every Agentfile check reports.
//!
//! Messages never contain a credential value: a `CRED` line is only ever described by its
//! name and its source reference.

use serde::Serialize;

/// How serious a diagnostic is. Serializes as `"error"`, `"warning"` or `"info"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// The Agentfile is invalid (fail closed).
    Error,
    /// Accepted, but a reviewer should look at it.
    Warning,
    /// Informational only.
    Info,
}

impl Severity {
    /// The lower-case name used in JSON: `error`, `warning` or `info`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
        }
    }
}

/// One finding about an Agentfile: a stable `code`, a severity and a 1-based position.
///
/// A diagnostic never quotes a credential value: for `CRED` it names at most the
/// credential's name and its source reference.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    /// Stable machine code (see [`codes`]), e.g. `unknown-directive`.
    pub code: String,
    /// Error, warning or info.
    pub severity: Severity,
    /// 1-based line (0 = the file as a whole).
    pub line: usize,
    /// 1-based column in characters (0 = the file as a whole).
    pub column: usize,
    /// Human-readable explanation (not compared by tests; wording may change).
    pub message: String,
    /// Optional suggestion for a fix.
    pub hint: Option<String>,
}

impl Diagnostic {
    /// A diagnostic without a hint.
    pub fn new(
        code: &str,
        severity: Severity,
        line: usize,
        column: usize,
        message: impl Into<String>,
    ) -> Diagnostic {
        Diagnostic {
            code: code.to_string(),
            severity,
            line,
            column,
            message: message.into(),
            hint: None,
        }
    }

    /// Adds a hint.
    pub fn with_hint(mut self, hint: impl Into<String>) -> Diagnostic {
        self.hint = Some(hint.into());
        self
    }

    /// True for error-severity diagnostics.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// Sorts diagnostics by position (line, then column), keeping the order of equal positions.
pub(crate) fn sort_by_position(diags: &mut [Diagnostic]) {
    diags.sort_by_key(|d| (d.line, d.column));
}

/// Every diagnostic code this module emits. The strings are stable API; see docs/agentfile.md.
pub mod codes {
    // Structure.
    /// The first word of a line is not a draft.4 directive (nor an `X-` extension).
    pub const UNKNOWN_DIRECTIVE: &str = "unknown-directive";
    /// A known directive written in lower or mixed case.
    pub const LOWERCASE_DIRECTIVE: &str = "lowercase-directive";
    /// An `X-` extension directive (kept, not interpreted).
    pub const EXTENSION_DIRECTIVE: &str = "extension-directive";
    /// A `POLICY` or `SOP <name>` block without its `END` (reported at the opening line).
    pub const UNTERMINATED_BLOCK: &str = "unterminated-block";
    /// An `END` line outside any block.
    pub const STRAY_END: &str = "stray-end";
    /// Wrong number of arguments.
    pub const ARITY: &str = "arity";
    /// A directive allowed at most once given again.
    pub const DUPLICATE_DIRECTIVE: &str = "duplicate-directive";
    /// A Dockerfile-shaped (draft.5+ / v1) file.
    pub const NEWER_GRAMMAR: &str = "newer-grammar";
    /// A `# syntax=` marker that is unknown, repeated or misplaced.
    pub const SYNTAX_MARKER: &str = "syntax-marker";
    // Arguments.
    /// The `AGENT` name is not a lower-case DNS label.
    pub const AGENT_NAME: &str = "agent-name";
    /// A `CRED` holding what looks like a literal secret value.
    pub const CRED_LITERAL_SECRET: &str = "cred-literal-secret";
    /// A `CRED` source that is not `env:`, `vault://...#key` or `keyring:`.
    pub const CRED_SOURCE: &str = "cred-source";
    /// An invalid `CRED` name.
    pub const CRED_NAME: &str = "cred-name";
    /// An invalid `host:` pattern.
    pub const CRED_HOST: &str = "cred-host";
    /// A `CRED` without any `host:`.
    pub const CRED_HOST_MISSING: &str = "cred-host-missing";
    /// An `inject:` value other than `header` or `query`.
    pub const CRED_INJECT: &str = "cred-inject";
    /// An invalid `BIND` mode.
    pub const BIND_MODE: &str = "bind-mode";
    /// A two-argument `BIND`.
    pub const BIND_MODE_MISSING: &str = "bind-mode-missing";
    /// A missing or invalid `MOUNT` mode.
    pub const MOUNT_MODE: &str = "mount-mode";
    /// An invalid `MOUNT` path.
    pub const MOUNT_PATH: &str = "mount-path";
    /// An address that is not an absolute `scheme://host[:port][/path]` URL.
    pub const URL_FORMAT: &str = "url-format";
    /// A `TOOL` without a namespace.
    pub const TOOL_NAMESPACE: &str = "tool-namespace";
    /// An `ALLOW`/`DENY` verb other than `invoke`.
    pub const POLICY_VERB: &str = "policy-verb";
    /// A malformed `RATELIMIT` rate.
    pub const RATE_FORMAT: &str = "rate-format";
    /// A malformed `TIMEOUT`.
    pub const TIMEOUT_FORMAT: &str = "timeout-format";
    /// A malformed `LIMIT`.
    pub const LIMIT_FORMAT: &str = "limit-format";
    /// A malformed `SLICE` entry.
    pub const SLICE_FORMAT: &str = "slice-format";
    /// A malformed `HEALTHCHECK`.
    pub const HEALTHCHECK_FORMAT: &str = "healthcheck-format";
    /// An unknown `AUDIT` value.
    pub const AUDIT_VALUE: &str = "audit-value";
    /// An invalid `TRACE` value.
    pub const TRACE_VALUE: &str = "trace-value";
    /// A malformed `MEMORY` line.
    pub const MEMORY_FORMAT: &str = "memory-format";
    /// A `POLICY` block for a profile other than `cedar`.
    pub const POLICY_PROFILE: &str = "policy-profile";
    // Lint.
    /// A derived lease pattern the lease engine rejects.
    pub const LEASE_PATTERN: &str = "lease-pattern";
    /// No `AGENT`.
    pub const AGENT_MISSING: &str = "agent-missing";
    /// No `AUDIT`.
    pub const AUDIT_MISSING: &str = "audit-missing";
    /// Capabilities declared without any policy.
    pub const BOUNDARIES_IMPLICIT: &str = "boundaries-implicit";
    /// A placement directive (belongs in a run manifest).
    pub const PLACEMENT_DIRECTIVE: &str = "placement-directive";
    /// `FROM` with a mutable tag.
    pub const FROM_MUTABLE_TAG: &str = "from-mutable-tag";
    /// A high-risk tool (shell, exec, browser).
    pub const HIGH_RISK_TOOL: &str = "high-risk-tool";
    /// A `POLICY` block that does not parse as Cedar.
    pub const CEDAR_PARSE: &str = "cedar-parse";
    /// Built without the `cedar` feature.
    pub const CEDAR_UNAVAILABLE: &str = "cedar-unavailable";

    /// Every code, for documentation and tests.
    pub const ALL: &[&str] = &[
        UNKNOWN_DIRECTIVE,
        LOWERCASE_DIRECTIVE,
        EXTENSION_DIRECTIVE,
        UNTERMINATED_BLOCK,
        STRAY_END,
        ARITY,
        DUPLICATE_DIRECTIVE,
        NEWER_GRAMMAR,
        SYNTAX_MARKER,
        AGENT_NAME,
        CRED_LITERAL_SECRET,
        CRED_SOURCE,
        CRED_NAME,
        CRED_HOST,
        CRED_HOST_MISSING,
        CRED_INJECT,
        BIND_MODE,
        BIND_MODE_MISSING,
        MOUNT_MODE,
        MOUNT_PATH,
        URL_FORMAT,
        TOOL_NAMESPACE,
        POLICY_VERB,
        RATE_FORMAT,
        TIMEOUT_FORMAT,
        LIMIT_FORMAT,
        SLICE_FORMAT,
        HEALTHCHECK_FORMAT,
        AUDIT_VALUE,
        TRACE_VALUE,
        MEMORY_FORMAT,
        POLICY_PROFILE,
        LEASE_PATTERN,
        AGENT_MISSING,
        AUDIT_MISSING,
        BOUNDARIES_IMPLICIT,
        PLACEMENT_DIRECTIVE,
        FROM_MUTABLE_TAG,
        HIGH_RISK_TOOL,
        CEDAR_PARSE,
        CEDAR_UNAVAILABLE,
    ];
}
