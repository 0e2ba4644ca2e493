//! The lockfile (`agentrc.lock`, spec section 13) and the package digest.
//!
//! leasekit does not contact registries, so the lock records what the Agentfile itself
//! fixes: the digest of its exact bytes (`agentfile_hash`), of its policy set
//! (`policy_hash`), of every inline SOP, the declared references, and credential *names*
//! only. `timestamp` is fixed to the Unix epoch so the output is byte-reproducible; set the
//! field yourself to record build time.
//!
//! `policy_hash` = sha256 of the policy-set source: for each unit in file order (POLICY block
//! bodies byte-exact, lowered ALLOW/DENY/RATELIMIT text), `// <id>\n<text>\n`.
//!
//! `package_digest` = sha256 of the compact JSON array `[[name, [args...], body-or-null], ...]`
//! over every non-placement directive in file order: comments, whitespace and placement
//! directives (BIND SLICE IMAGE ISOLATION BROKER BACKEND PLUGIN) do not change it.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::ast::Agentfile;
use super::lint::lint;
use super::policy::policy_sources;
use crate::{Error, ErrorCode};

/// The lockfile format version written by [`lock`].
pub const LOCKFILE_VERSION: &str = "1";

/// The epoch timestamp [`lock`] writes.
pub const LOCK_TIMESTAMP: &str = "1970-01-01T00:00:00Z";

fn sha256(bytes: &[u8]) -> String {
    format!("sha256:{}", hex::encode(Sha256::digest(bytes)))
}

/// `base_image` (the schema allows no other keys).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BaseImage {
    /// Registry host, e.g. `ghcr.io`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub registry: Option<String>,
    /// Repository name, e.g. `org/base-agent`.
    pub name: String,
    /// Tag, e.g. `1.4`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tag: Option<String>,
    /// Digest, e.g. `sha256:...`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub digest: Option<String>,
}

/// One locked item of `tools`, `skills` or `sops` (keyed by `name`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LockItem {
    /// Tool reference, skill name/path, or SOP name/reference.
    pub name: String,
    /// Resolved version, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// Content hash (`sha256:<hex>`), when known (always for inline SOPs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hash: Option<String>,
    /// Where it comes from (`inline` for an inline SOP).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// Other keys (the schema allows them).
    #[serde(flatten)]
    pub extra: BTreeMap<String, serde_json::Value>,
}

/// One locked function (keyed by `path`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LockFunction {
    /// `./module.py:symbol` or a symbolic name.
    pub path: String,
    /// Content hash, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hash: Option<String>,
    /// Where it comes from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// Other keys (the schema allows them).
    #[serde(flatten)]
    pub extra: BTreeMap<String, serde_json::Value>,
}

/// `agentrc.lock` (draft.4 schema). Never contains a credential value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Lockfile {
    /// Format version (`"1"`).
    pub version: String,
    /// `sha256:<hex>` of the exact Agentfile bytes.
    pub agentfile_hash: String,
    /// Placement-free identity digest, see [`package_digest`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub package_digest: Option<String>,
    /// The first non-`scratch` `FROM`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_image: Option<BaseImage>,
    /// `TOOL` references, in file order.
    #[serde(default)]
    pub tools: Vec<LockItem>,
    /// `FUNCTION` references.
    #[serde(default)]
    pub functions: Vec<LockFunction>,
    /// `SKILL` references.
    #[serde(default)]
    pub skills: Vec<LockItem>,
    /// Inline SOPs (hashed) and SOP references.
    #[serde(default)]
    pub sops: Vec<LockItem>,
    /// Digest of the policy set (absent when there is no policy).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub policy_hash: Option<String>,
    /// Credential names, sorted and unique. Never values.
    #[serde(default)]
    pub credential_names: Vec<String>,
    /// RFC 3339 time ([`LOCK_TIMESTAMP`] unless set by the caller).
    pub timestamp: String,
    /// Other top-level keys (the schema allows them).
    #[serde(flatten)]
    pub extra: BTreeMap<String, serde_json::Value>,
}

fn item(name: &str, hash: Option<String>, source: Option<String>) -> LockItem {
    LockItem {
        name: name.to_string(),
        version: None,
        hash,
        source,
        extra: BTreeMap::new(),
    }
}

/// Splits `registry/name:tag@digest`; the first segment is a registry when it has `.` or `:`
/// or is `localhost`.
fn base_image(r: &str) -> BaseImage {
    let (rest, digest) = match r.split_once('@') {
        Some((a, d)) => (a, Some(d.to_string())),
        None => (r, None),
    };
    let (registry, path) = match rest.split_once('/') {
        Some((first, p)) if first.contains(['.', ':']) || first == "localhost" => {
            (Some(first.to_string()), p)
        }
        _ => (None, rest),
    };
    let (name, tag) = match path.rsplit_once(':') {
        Some((n, t)) if !t.contains('/') => (n.to_string(), Some(t.to_string())),
        _ => (path.to_string(), None),
    };
    BaseImage {
        registry,
        name,
        tag,
        digest,
    }
}

/// Builds the lockfile. Fails with `INVALID_REQUEST` when [`lint`] reports any error.
pub fn lock(af: &Agentfile) -> crate::Result<Lockfile> {
    if let Some(d) = lint(af).into_iter().find(|d| d.is_error()) {
        return Err(Error::new(
            ErrorCode::InvalidRequest,
            format!(
                "cannot lock an Agentfile with errors (first: `{}` at line {})",
                d.code, d.line
            ),
        ));
    }
    let mut lf = Lockfile {
        version: LOCKFILE_VERSION.to_string(),
        agentfile_hash: af.source_digest().to_string(),
        package_digest: Some(package_digest(af)),
        base_image: af
            .directives_named("FROM")
            .filter_map(|d| d.arg(0))
            .find(|r| *r != "scratch")
            .map(base_image),
        tools: Vec::new(),
        functions: Vec::new(),
        skills: Vec::new(),
        sops: Vec::new(),
        policy_hash: None,
        credential_names: Vec::new(),
        timestamp: LOCK_TIMESTAMP.to_string(),
        extra: BTreeMap::new(),
    };
    for d in af.directives() {
        let Some(a) = d.arg(0) else { continue };
        match d.name.as_ref() {
            "TOOL" => lf.tools.push(item(a, None, None)),
            "SKILL" => lf.skills.push(item(a, None, Some(a.to_string()))),
            "FUNCTION" => lf.functions.push(LockFunction {
                path: a.to_string(),
                hash: None,
                source: Some(if a.contains('/') { "local" } else { "symbolic" }.to_string()),
                extra: BTreeMap::new(),
            }),
            "SOP" => match &d.block {
                Some(b) => lf.sops.push(item(
                    a,
                    Some(sha256(b.body.as_bytes())),
                    Some("inline".into()),
                )),
                None => lf.sops.push(item(a, None, Some(a.to_string()))),
            },
            _ => {}
        }
    }
    let sources = policy_sources(af);
    if !sources.is_empty() {
        let mut text = String::new();
        for s in &sources {
            text.push_str("// ");
            text.push_str(&s.id);
            text.push('\n');
            text.push_str(&s.text);
            text.push('\n');
        }
        lf.policy_hash = Some(sha256(text.as_bytes()));
    }
    let mut names: Vec<String> = af.creds().iter().map(|c| c.name.clone()).collect();
    names.sort();
    names.dedup();
    lf.credential_names = names;
    Ok(lf)
}

/// Pretty, deterministic JSON with a trailing newline.
pub fn lockfile_json(lock: &Lockfile) -> String {
    let mut s = serde_json::to_string_pretty(lock).unwrap_or_else(|_| "{}".to_string());
    s.push('\n');
    s
}

/// `sha256:<hex>` identity of the package: non-placement directives only (see module docs).
pub fn package_digest(af: &Agentfile) -> String {
    let canonical: Vec<serde_json::Value> = af
        .directives()
        .iter()
        .filter(|d| !d.is_placement())
        .map(|d| {
            serde_json::json!([
                d.name,
                d.args().collect::<Vec<_>>(),
                d.block.as_ref().map(|b| &b.body)
            ])
        })
        .collect();
    let text = serde_json::Value::Array(canonical).to_string();
    sha256(text.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base_images() {
        let b = base_image("ghcr.io/org/base-agent:1.4");
        assert_eq!(b.registry.as_deref(), Some("ghcr.io"));
        assert_eq!(b.name, "org/base-agent");
        assert_eq!(b.tag.as_deref(), Some("1.4"));
        let b = base_image("python:3.11-slim");
        assert_eq!(
            (b.registry, b.name.as_str(), b.tag.as_deref()),
            (None, "python", Some("3.11-slim"))
        );
        let b = base_image("localhost:5000/a/b@sha256:00");
        assert_eq!(b.registry.as_deref(), Some("localhost:5000"));
        assert_eq!(b.digest.as_deref(), Some("sha256:00"));
    }
}
