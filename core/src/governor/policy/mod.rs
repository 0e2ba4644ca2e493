//! Policies (SEMANTICS 13.9): LeaseGate's policy JSON plus leasekit's fields, lint, the
//! RFC 8785 hash, signed bundles, and `Policy::from_agentfile`.

pub mod agentfile;
pub mod bundle;
pub mod cedar;
pub mod doc;
pub mod lint;
pub mod settings;

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::Value;
use sha2::{Digest, Sha256};

pub use bundle::{
    BundleKey, KeyAlgorithm, PrivateKey, generate_key, sign_bundle, signed_text, verify_bundle,
};
pub use doc::{
    GovernorOptions, INVALID_BUDGET_ALERT_THRESHOLDS, Limits, MAX_BUDGET_ALERT_THRESHOLDS,
    PolicyDoc, ScopedLimit, ServiceAccount, ToolRateLimit, UidBinding,
};
pub use lint::{LintFinding, LintSeverity, lint_policy};
pub use settings::Settings;

use crate::governor::wire::{Role, ToolCategory};
use crate::{Error, Lease};

/// A loaded policy: the document as submitted, its hash and what the engine precomputes.
#[derive(Debug, Clone)]
pub struct Policy {
    doc: PolicyDoc,
    source: Value,
    hash: String,
    compiled: Arc<Compiled>,
}

/// Lookups precomputed once per policy (the hot path never re-parses or re-lowers).
#[derive(Debug, Default)]
pub(crate) struct Compiled {
    /// Lower-cased tool id -> category.
    pub registry: HashMap<String, ToolCategory>,
    /// Lease ceiling.
    pub ceiling: Option<Lease>,
    /// Lower-cased role -> ceiling.
    pub ceiling_by_role: Vec<(String, Lease)>,
    /// Cedar set, when `cedarPolicies` is non-empty.
    pub cedar: Option<cedar::CedarSet>,
    /// `allowedFileRoots` as fs patterns (`/r` -> `/r`, `/r/**`).
    pub file_patterns: Vec<String>,
    /// Lower-cased network host patterns, trailing dot removed.
    pub host_patterns: Vec<String>,
}

fn invalid(msg: impl Into<String>) -> Error {
    Error::invalid(msg)
}

/// SHA-256 hex of the RFC 8785 form of a JSON value.
pub fn policy_hash(value: &Value) -> crate::Result<String> {
    let canon = serde_json_canonicalizer::to_string(value)
        .map_err(|e| invalid(format!("policy cannot be canonicalized: {e}")))?;
    Ok(hex::encode(Sha256::digest(canon.as_bytes())))
}

impl Policy {
    /// Parses and checks a policy (refusals of SEMANTICS 13.15 Lint are `INVALID_REQUEST`).
    pub fn from_json(text: &str) -> crate::Result<Policy> {
        let value: Value = serde_json::from_str(text)
            .map_err(|e| invalid(format!("policy is not valid JSON: {e}")))?;
        Policy::from_value(value)
    }

    /// As [`Policy::from_json`], from a parsed value.
    pub fn from_value(value: Value) -> crate::Result<Policy> {
        let hash = policy_hash(&value)?;
        Policy::with_hash(value, hash)
    }

    /// The default policy (`{}`).
    pub fn default_policy() -> Policy {
        Policy::from_value(Value::Object(Default::default())).expect("{} is a valid policy")
    }

    pub(crate) fn with_hash(value: Value, hash: String) -> crate::Result<Policy> {
        if !value.is_object() {
            return Err(invalid("policy must be a JSON object"));
        }
        let doc: PolicyDoc = serde_json::from_value(value.clone())
            .map_err(|e| invalid(format!("invalid policy: {e}")))?;
        if let Some(msg) = lint::refusal(&doc) {
            return Err(invalid(msg));
        }
        let compiled = compile(&doc)?;
        Ok(Policy {
            doc,
            source: value,
            hash,
            compiled: Arc::new(compiled),
        })
    }

    /// The same policy with `policyVersion` replaced (a bundle's version); the hash stays the
    /// hash of the content as submitted.
    pub(crate) fn with_version(&self, version: &str) -> Policy {
        let mut p = self.clone();
        p.doc.policy_version = Some(version.to_string());
        if let Value::Object(m) = &mut p.source {
            m.insert("policyVersion".into(), Value::from(version));
        }
        p
    }

    /// The document.
    pub fn doc(&self) -> &PolicyDoc {
        &self.doc
    }

    /// The JSON as submitted (with a bundle's version).
    pub fn source(&self) -> &Value {
        &self.source
    }

    /// Lower-case hex SHA-256 of the RFC 8785 form of the policy as submitted.
    pub fn hash(&self) -> &str {
        &self.hash
    }

    /// `policyVersion` (LeaseGate's `local` when unset).
    pub fn version(&self) -> &str {
        self.doc.policy_version.as_deref().unwrap_or("local")
    }

    /// The policy JSON.
    pub fn to_json(&self) -> String {
        self.source.to_string()
    }

    /// Lint findings (warnings; refusals never get this far).
    pub fn lint(&self) -> Vec<LintFinding> {
        lint_policy(&self.doc, Some(&self.source))
    }

    pub(crate) fn compiled(&self) -> &Compiled {
        &self.compiled
    }

    /// The ceiling for `role` (role keys match case-insensitively).
    pub(crate) fn ceiling_for(&self, role: Role) -> Option<&Lease> {
        self.compiled
            .ceiling_by_role
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(role.as_str()))
            .map(|(_, l)| l)
            .or(self.compiled.ceiling.as_ref())
    }
}

fn compile(doc: &PolicyDoc) -> crate::Result<Compiled> {
    let mut c = Compiled::default();
    for t in &doc.tool_registry {
        c.registry
            .insert(t.tool_id.to_ascii_lowercase(), t.category);
    }
    if let Some(v) = &doc.lease_ceiling {
        c.ceiling = Some(
            Lease::from_value(v).map_err(|e| invalid(format!("leaseCeiling: {}", e.message())))?,
        );
    }
    for (role, v) in &doc.lease_ceiling_by_role {
        let l = Lease::from_value(v)
            .map_err(|e| invalid(format!("leaseCeilingByRole.{role}: {}", e.message())))?;
        c.ceiling_by_role.push((role.to_ascii_lowercase(), l));
    }
    if let Some(text) = doc
        .cedar_policies
        .as_deref()
        .filter(|t| !t.trim().is_empty())
    {
        c.cedar = Some(cedar::CedarSet::parse(text));
    }
    for root in &doc.allowed_file_roots {
        let trimmed = root.trim_end_matches('/');
        c.file_patterns.push(root.clone());
        c.file_patterns.push(format!("{trimmed}/**"));
    }
    for h in &doc.allowed_network_hosts {
        c.host_patterns
            .push(h.trim_end_matches('.').to_ascii_lowercase());
    }
    Ok(c)
}
