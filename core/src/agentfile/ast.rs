//! The parsed Agentfile: directives in file order with positions, blocks and credentials.
//!
//! Nothing in these types ever holds a credential value: a `CRED` keeps its name and its
//! source *reference* only, and a token that looks like a literal secret is replaced by
//! [`REDACTED`] before it is stored.

use std::borrow::Cow;

use serde::Serialize;

use super::diagnostics::{Diagnostic, Severity};
use super::directives::DirectiveInfo;

/// What a redacted token is replaced with.
pub const REDACTED: &str = "<redacted>";

/// A byte range `[start, end)` in the source text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Span {
    /// First byte.
    pub start: usize,
    /// One past the last byte.
    pub end: usize,
}

/// A verbatim `POLICY` or `SOP` block body.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Block {
    /// The body, byte-exact (line endings included), between the opening line and `END`.
    pub body: String,
    /// Where the body lies in the source.
    pub body_span: Span,
    /// 1-based line of the closing `END`.
    pub end_line: usize,
}

/// One directive, in file order. Serializes with an `args` array as well.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Directive {
    /// The directive name as written (upper case, or `X-...` for extensions).
    pub name: Cow<'static, str>,
    /// The argument text after the name, inline comment removed. For `CRED`, every token that
    /// is not a valid name, source reference, `host:` or `inject:` is `<redacted>`.
    /// [`Directive::args`] splits it on spaces and tabs.
    pub text: String,
    /// 1-based line of the directive name.
    pub line: usize,
    /// 1-based column (in characters) of the directive name.
    pub column: usize,
    /// From the name to the end of the line (to the end of the `END` line for blocks).
    pub span: Span,
    /// The block body for `POLICY` and block-form `SOP` (omitted from JSON when absent).
    pub block: Option<Block>,
    /// Cached vocabulary entry (`None` for extensions).
    pub(crate) info: Option<&'static DirectiveInfo>,
}

impl Directive {
    /// Static facts about this directive (`None` for `X-` extensions).
    pub fn info(&self) -> Option<&'static DirectiveInfo> {
        self.info
    }

    /// True for placement directives (BIND SLICE IMAGE ISOLATION BROKER BACKEND PLUGIN).
    pub fn is_placement(&self) -> bool {
        self.info().is_some_and(DirectiveInfo::is_placement)
    }

    /// The whitespace-separated arguments.
    pub fn args(&self) -> impl Iterator<Item = &str> + '_ {
        self.text.split([' ', '\t']).filter(|s| !s.is_empty())
    }

    /// The `i`-th argument (0-based), if any.
    pub fn arg(&self, i: usize) -> Option<&str> {
        self.args().nth(i)
    }

    /// For `MOUNT path ro|rw`: the path and whether the agent may write there (`rw`);
    /// `None` for other directives and for a `MOUNT` without both arguments. This is the one
    /// reading of a mount: the derived lease (`fs.read`, plus `fs.write` when writable) and
    /// every summary use it.
    pub fn mount(&self) -> Option<Mount<'_>> {
        if self.name != "MOUNT" {
            return None;
        }
        let (path, mode) = (self.arg(0)?, self.arg(1)?);
        Some(Mount {
            path,
            writable: mode == "rw",
        })
    }

    /// For `SOP`: true when this is the single-line reference form.
    pub fn is_sop_reference(&self) -> bool {
        self.name == "SOP" && self.block.is_none() && self.args().count() == 1
    }
}

impl Serialize for Directive {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut st = s.serialize_struct("Directive", 7)?;
        st.serialize_field("name", &self.name)?;
        st.serialize_field("args", &self.args().collect::<Vec<_>>())?;
        st.serialize_field("text", &self.text)?;
        st.serialize_field("line", &self.line)?;
        st.serialize_field("column", &self.column)?;
        st.serialize_field("span", &self.span)?;
        match &self.block {
            Some(b) => st.serialize_field("block", b)?,
            None => st.skip_field("block")?,
        }
        st.end()
    }
}

/// A `MOUNT` read as a grant (see [`Directive::mount`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mount<'a> {
    /// The path the agent sees.
    pub path: &'a str,
    /// Mode `rw`: the agent may write (`fs.write`) as well as read.
    pub writable: bool,
}

/// Where a runner injects a credential on an allowed request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Inject {
    /// In a request header (the default).
    Header,
    /// In the query string.
    Query,
}

/// A credential reference: its name, source reference and allowed hosts. Never a value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Cred {
    /// Logical secret name.
    pub name: String,
    /// Source reference: `env:NAME`, `vault://path#key` or `keyring:NAME`.
    pub source: String,
    /// Allowed destination host patterns (without the `host:` prefix).
    pub hosts: Vec<String>,
    /// Injection point.
    pub inject: Inject,
    /// 1-based line of the `CRED` directive.
    pub line: usize,
}

/// `AUDIT` levels, ordered: off < basic < all < compliance (the order is an assumption the
/// spec does not state; it decides what "lowering" audit means for inheritance).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AuditLevel {
    /// No package-level audit requirement.
    Off,
    /// Invocation and lifecycle audit.
    Basic,
    /// Tool/function/policy/credential/rate-limit audit.
    All,
    /// Structured, exportable audit.
    Compliance,
}

impl AuditLevel {
    /// Parses `off`, `basic`, `all` or `compliance`.
    pub fn parse(s: &str) -> Option<AuditLevel> {
        match s {
            "off" => Some(AuditLevel::Off),
            "basic" => Some(AuditLevel::Basic),
            "all" => Some(AuditLevel::All),
            "compliance" => Some(AuditLevel::Compliance),
            _ => None,
        }
    }

    /// The keyword.
    pub fn as_str(self) -> &'static str {
        match self {
            AuditLevel::Off => "off",
            AuditLevel::Basic => "basic",
            AuditLevel::All => "all",
            AuditLevel::Compliance => "compliance",
        }
    }
}

/// The `# syntax=` marker comment, when present before the first directive.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SyntaxMarker {
    /// The value after `syntax=`.
    pub value: String,
    /// 1-based line.
    pub line: usize,
}

/// A parsed Agentfile. Build one with [`super::parse_agentfile`]; it never fails, problems
/// are in [`Agentfile::diagnostics`].
#[derive(Debug, Clone, Serialize)]
pub struct Agentfile {
    pub(crate) syntax: Option<SyntaxMarker>,
    pub(crate) directives: Vec<Directive>,
    pub(crate) creds: Vec<Cred>,
    pub(crate) diagnostics: Vec<Diagnostic>,
    pub(crate) compat: bool,
    pub(crate) source_sha256: SourceDigest,
    pub(crate) newer_grammar: bool,
}

/// The `sha256:<hex>` digest of the source, computed on first use: hashing a 1 MB file costs
/// milliseconds and parsing and linting never need it. `Debug` and `Serialize` show only the
/// digest, never the source (which may hold a secret a CRED line should not have).
#[derive(Clone)]
pub(crate) struct SourceDigest {
    source: std::sync::Arc<str>,
    digest: std::sync::Arc<std::sync::OnceLock<String>>,
}

impl SourceDigest {
    pub(crate) fn new(source: &str) -> SourceDigest {
        SourceDigest {
            source: source.into(),
            digest: Default::default(),
        }
    }

    pub(crate) fn get(&self) -> &str {
        self.digest.get_or_init(|| {
            use sha2::Digest;
            format!(
                "sha256:{}",
                hex::encode(sha2::Sha256::digest(self.source.as_bytes()))
            )
        })
    }
}

impl std::fmt::Debug for SourceDigest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.get())
    }
}

impl Serialize for SourceDigest {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.get())
    }
}

impl Agentfile {
    /// Parse diagnostics, sorted by position (lint adds more, see [`super::lint`]).
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }

    /// True when any parse diagnostic is an error.
    pub fn has_errors(&self) -> bool {
        self.diagnostics
            .iter()
            .any(|d| d.severity == Severity::Error)
    }

    /// Every directive, in file order.
    pub fn directives(&self) -> &[Directive] {
        &self.directives
    }

    /// The directives with a given name, in file order.
    pub fn directives_named<'a>(
        &'a self,
        name: &'a str,
    ) -> impl Iterator<Item = &'a Directive> + 'a {
        self.directives.iter().filter(move |d| d.name == name)
    }

    /// The well-formed credential references (name, source, hosts; never a value).
    pub fn creds(&self) -> &[Cred] {
        &self.creds
    }

    /// The `# syntax=` marker, if any.
    pub fn syntax_marker(&self) -> Option<&SyntaxMarker> {
        self.syntax.as_ref()
    }

    /// The `AGENT` identity, if declared.
    pub fn agent(&self) -> Option<&str> {
        self.directives_named("AGENT").next().and_then(|d| d.arg(0))
    }

    /// The declared `AUDIT` level (`None` when absent or invalid).
    pub fn audit(&self) -> Option<AuditLevel> {
        self.directives_named("AUDIT")
            .next()
            .and_then(|d| d.arg(0))
            .and_then(AuditLevel::parse)
    }

    /// Every `MOUNT`, in file order (see [`Directive::mount`]).
    pub fn mounts(&self) -> impl Iterator<Item = Mount<'_>> {
        self.directives.iter().filter_map(Directive::mount)
    }

    /// The `POLICY` directives that have a captured block.
    pub fn policy_blocks(&self) -> impl Iterator<Item = &Directive> {
        self.directives_named("POLICY")
            .filter(|d| d.block.is_some())
    }

    /// True when the file was parsed in compat mode.
    pub fn is_compat(&self) -> bool {
        self.compat
    }

    /// True when the file looks like the later Dockerfile-shaped grammar (draft.5+/v1).
    pub fn is_newer_grammar(&self) -> bool {
        self.newer_grammar
    }

    /// `sha256:<hex>` of the exact source bytes (the lockfile's `agentfile_hash`).
    pub fn source_digest(&self) -> &str {
        self.source_sha256.get()
    }
}
