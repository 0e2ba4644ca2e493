//! Sizes on the wire (SEMANTICS 13.16): every id, key, name, version and reviewer field is at
//! most [`MAX_ID_BYTES`] of UTF-8, `reason`, `comment` and `commandText` (and the tokens and
//! signatures a request carries) at most [`MAX_TEXT_BYTES`], a path or host target at most
//! [`MAX_TARGET_BYTES`], a list at most [`MAX_LIST_ITEMS`] items. A payload over a limit is
//! invalid (`success: false`, the message names the field) and is refused before the engine
//! sees it, so nothing is stored.
//!
//! Each request type lists its fields once, in its [`WireLimits`] implementation below; the
//! payload readers of every dispatcher ([`crate::governor::Governor::handle`],
//! [`crate::governor::Governor::call_json`] and the client's strict check) run it right after
//! deserializing.

use serde_json::Value;

use super::acquire::{AcquireRequest, ContextContribution, ToolIntent};
use super::admin::{
    ActivatePolicyRequest, ExportAuditRequest, ExportDiagnosticsRequest,
    ExportRunawayReportRequest, PolicyBundle, RollbackPolicyRequest, VerifyAuditRequest,
};
use super::approval::{
    ApprovalQueueRequest, ApprovalRequest, DenyApprovalRequest, GrantApprovalRequest,
    ReviewApprovalRequest,
};
use super::decision::{MAX_DECISION_BYTES, RecordDecisionRequest};
use super::release::{ReleaseRequest, ToolCallUsage};
use super::tool::{AuthorizeRequest, ToolExecutionRequest, ToolSubLeaseRequest};

/// Bytes of an id, key, name, version or reviewer field.
pub const MAX_ID_BYTES: usize = 256;
/// Bytes of a `reason`, `comment` or `commandText` (and of a token or signature).
pub const MAX_TEXT_BYTES: usize = 4_096;
/// Bytes of a `targetPath`, `targetHost` or `Authorize` target (SEMANTICS 5).
pub const MAX_TARGET_BYTES: usize = 16_384;
/// Items of a list field (and capabilities of a `requestedLease`).
pub const MAX_LIST_ITEMS: usize = 1_024;

/// Walks a request's fields and keeps the first one over its limit.
#[derive(Debug, Default)]
pub struct Limits {
    prefix: String,
    error: Option<String>,
}

impl Limits {
    fn text(&mut self, field: &str, value: &str, max: usize) {
        if self.error.is_none() && value.len() > max {
            self.error = Some(format!(
                "{}{field} is {} bytes, over the limit of {max} bytes",
                self.prefix,
                value.len()
            ));
        }
    }

    /// An id, key, name, version or reviewer field ([`MAX_ID_BYTES`]).
    pub fn id(&mut self, field: &str, value: &str) -> &mut Self {
        self.text(field, value, MAX_ID_BYTES);
        self
    }

    /// A free text, token or signature field ([`MAX_TEXT_BYTES`]).
    pub fn long(&mut self, field: &str, value: &str) -> &mut Self {
        self.text(field, value, MAX_TEXT_BYTES);
        self
    }

    /// A path, host or other target field ([`MAX_TARGET_BYTES`]).
    pub fn target(&mut self, field: &str, value: &str) -> &mut Self {
        self.text(field, value, MAX_TARGET_BYTES);
        self
    }

    /// A list field: at most [`MAX_LIST_ITEMS`] items, each checked by `each`.
    pub fn list<T>(
        &mut self,
        field: &str,
        items: &[T],
        mut each: impl FnMut(&mut Limits, &T),
    ) -> &mut Self {
        if self.error.is_some() {
            return self;
        }
        if items.len() > MAX_LIST_ITEMS {
            self.error = Some(format!(
                "{}{field} has {} items, over the limit of {MAX_LIST_ITEMS} items",
                self.prefix,
                items.len()
            ));
            return self;
        }
        let outer = std::mem::take(&mut self.prefix);
        for (i, item) in items.iter().enumerate() {
            self.prefix = format!("{outer}{field}[{i}].");
            each(self, item);
            if self.error.is_some() {
                break;
            }
        }
        self.prefix = outer;
        self
    }

    /// A list of ids.
    pub fn ids(&mut self, field: &str, items: &[String]) -> &mut Self {
        if self.error.is_some() {
            return self;
        }
        if items.len() > MAX_LIST_ITEMS {
            return self.list(field, items, |_, _| {});
        }
        for (i, item) in items.iter().enumerate() {
            self.text(&format!("{field}[{i}]"), item, MAX_ID_BYTES);
        }
        self
    }

    /// The first field over its limit, as the message of an invalid payload.
    pub fn finish(self) -> Result<(), String> {
        match self.error {
            None => Ok(()),
            Some(e) => Err(format!("invalid payload: {e}")),
        }
    }
}

/// A request type whose fields have wire size limits.
pub trait WireLimits {
    /// Checks every field of `self` with `c`.
    fn limits(&self, c: &mut Limits);

    /// `Ok` when every field is within its limit, else the message naming the first field
    /// that is not.
    fn check_limits(&self) -> Result<(), String> {
        let mut c = Limits::default();
        self.limits(&mut c);
        c.finish()
    }
}

/// A field-less payload (`GetMetrics`, `GetStatus`): nothing to check.
impl WireLimits for Value {
    fn limits(&self, _: &mut Limits) {}
}

impl WireLimits for ToolIntent {
    fn limits(&self, c: &mut Limits) {
        c.id("toolId", &self.tool_id);
    }
}

impl WireLimits for ContextContribution {
    fn limits(&self, c: &mut Limits) {
        c.id("sourceId", &self.source_id);
    }
}

impl WireLimits for AcquireRequest {
    fn limits(&self, c: &mut Limits) {
        c.id("sessionId", &self.session_id)
            .id("clientInstanceId", &self.client_instance_id)
            .id("orgId", &self.org_id)
            .id("actorId", &self.actor_id)
            .id("workspaceId", &self.workspace_id)
            .long("authToken", &self.auth_token)
            .id("modelId", &self.model_id)
            .id("providerId", &self.provider_id)
            .list(
                "contextContributions",
                &self.context_contributions,
                |c, x| x.limits(c),
            )
            .ids("requestedCapabilities", &self.requested_capabilities)
            .list("requestedTools", &self.requested_tools, |c, x| x.limits(c))
            .ids("riskFlags", &self.risk_flags)
            .long("approvalToken", &self.approval_token)
            .id("idempotencyKey", &self.idempotency_key);
        // A requested ARCP lease: SEMANTICS 2 bounds each capability's patterns when it is
        // parsed; here its number of capabilities (vendor names are unlimited otherwise).
        if let Some(Value::Object(caps)) = &self.requested_lease
            && caps.len() > MAX_LIST_ITEMS
            && c.error.is_none()
        {
            c.error = Some(format!(
                "requestedLease has {} capabilities, over the limit of {MAX_LIST_ITEMS}",
                caps.len()
            ));
        }
    }
}

impl WireLimits for ToolCallUsage {
    fn limits(&self, c: &mut Limits) {
        c.id("toolId", &self.tool_id)
            .id("toolSubLeaseId", &self.tool_sub_lease_id);
    }
}

impl WireLimits for ReleaseRequest {
    fn limits(&self, c: &mut Limits) {
        c.id("leaseId", &self.lease_id)
            .list("toolCalls", &self.tool_calls, |c, x| x.limits(c))
            .id("idempotencyKey", &self.idempotency_key);
    }
}

impl WireLimits for ApprovalRequest {
    fn limits(&self, c: &mut Limits) {
        c.id("actorId", &self.actor_id)
            .id("workspaceId", &self.workspace_id)
            .long("reason", &self.reason)
            .id("requestedBy", &self.requested_by)
            .id("toolId", &self.tool_id)
            .id("idempotencyKey", &self.idempotency_key);
    }
}

impl WireLimits for GrantApprovalRequest {
    fn limits(&self, c: &mut Limits) {
        c.id("approvalId", &self.approval_id)
            .id("grantedBy", &self.granted_by)
            .long("comment", &self.comment)
            .id("idempotencyKey", &self.idempotency_key);
    }
}

impl WireLimits for DenyApprovalRequest {
    fn limits(&self, c: &mut Limits) {
        c.id("approvalId", &self.approval_id)
            .id("deniedBy", &self.denied_by)
            .long("comment", &self.comment)
            .id("idempotencyKey", &self.idempotency_key);
    }
}

impl WireLimits for ReviewApprovalRequest {
    fn limits(&self, c: &mut Limits) {
        c.id("approvalId", &self.approval_id)
            .id("reviewerId", &self.reviewer_id)
            .long("comment", &self.comment)
            .id("idempotencyKey", &self.idempotency_key);
    }
}

impl WireLimits for ApprovalQueueRequest {
    fn limits(&self, c: &mut Limits) {
        c.id("workspaceId", &self.workspace_id)
            .id("toolId", &self.tool_id)
            .id("riskFlag", &self.risk_flag);
    }
}

impl WireLimits for ExportDiagnosticsRequest {
    fn limits(&self, c: &mut Limits) {
        c.target("outputPath", &self.output_path)
            .id("idempotencyKey", &self.idempotency_key);
    }
}

impl WireLimits for ExportRunawayReportRequest {
    fn limits(&self, c: &mut Limits) {
        c.target("outputPath", &self.output_path)
            .id("idempotencyKey", &self.idempotency_key);
    }
}

/// `policyContentJson` is a whole policy document (admin-only, bounded by the frame).
impl WireLimits for PolicyBundle {
    fn limits(&self, c: &mut Limits) {
        c.id("version", &self.version)
            .id("createdAtUtc", &self.created_at_utc)
            .id("author", &self.author)
            .long("signatureBase64", &self.signature_base64);
    }
}

impl WireLimits for ActivatePolicyRequest {
    fn limits(&self, c: &mut Limits) {
        c.id("version", &self.version)
            .id("idempotencyKey", &self.idempotency_key);
    }
}

impl WireLimits for RollbackPolicyRequest {
    fn limits(&self, c: &mut Limits) {
        c.id("version", &self.version);
    }
}

impl WireLimits for ToolSubLeaseRequest {
    fn limits(&self, c: &mut Limits) {
        c.id("leaseId", &self.lease_id)
            .id("toolId", &self.tool_id)
            .long("approvalToken", &self.approval_token)
            .id("idempotencyKey", &self.idempotency_key);
    }
}

impl WireLimits for ToolExecutionRequest {
    fn limits(&self, c: &mut Limits) {
        c.id("leaseId", &self.lease_id)
            .id("toolSubLeaseId", &self.tool_sub_lease_id)
            .id("toolId", &self.tool_id)
            .target("targetPath", &self.target_path)
            .target("targetHost", &self.target_host)
            .long("commandText", &self.command_text)
            .id("idempotencyKey", &self.idempotency_key);
    }
}

impl WireLimits for AuthorizeRequest {
    fn limits(&self, c: &mut Limits) {
        c.id("leaseId", &self.lease_id)
            .id("capability", &self.capability)
            .target("target", &self.target);
    }
}

impl WireLimits for RecordDecisionRequest {
    fn limits(&self, c: &mut Limits) {
        c.id("orgId", &self.org_id)
            .id("actorId", &self.actor_id)
            .id("workspaceId", &self.workspace_id)
            .id("source", &self.source)
            .id("rule", &self.rule)
            .id("method", &self.method)
            .id("server", &self.server)
            .id("tool", &self.tool)
            .id("requestId", &self.request_id)
            .id("code", &self.code)
            .long("reason", &self.reason)
            .list("targets", &self.targets, |_, _| {})
            .id("leaseId", &self.lease_id);
        for (i, t) in self.targets.iter().enumerate() {
            c.text(&format!("targets[{i}]"), t, MAX_TARGET_BYTES);
        }
        if c.error.is_some() {
            return;
        }
        if self.decision.is_none() {
            c.error = Some("decision is missing".into());
        } else if !self.code.is_empty() && crate::ErrorCode::parse(&self.code).is_none() {
            c.error = Some(format!("code {:?} is not an ARCP error code", self.code));
        } else if self.text_bytes() > MAX_DECISION_BYTES {
            c.error = Some(format!(
                "the record's text is {} bytes, over the limit of {MAX_DECISION_BYTES} bytes",
                self.text_bytes()
            ));
        }
    }
}

impl WireLimits for ExportAuditRequest {
    fn limits(&self, _: &mut Limits) {}
}

/// The records are only verified, never stored; their number is a list field's.
impl WireLimits for VerifyAuditRequest {
    fn limits(&self, c: &mut Limits) {
        if let Some(records) = &self.records {
            c.list("records", records, |_, _| {});
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::de::DeserializeOwned;
    use serde_json::{Map, json};

    /// Every string field of `T` (as its default serializes, plus `extra`) set one byte over
    /// 16 384 is refused naming that field, and every list field with 1 025 items likewise.
    fn every_field_is_bounded<T>(extra: &[&str], unbounded: &[&str])
    where
        T: DeserializeOwned + serde::Serialize + Default + WireLimits,
    {
        let base = serde_json::to_value(T::default()).unwrap();
        let Value::Object(base) = base else { panic!() };
        let mut fields: Vec<(String, Value)> =
            base.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
        for e in extra {
            fields.push((e.to_string(), json!("")));
        }
        let mut checked = 0;
        for (name, value) in fields {
            if unbounded.contains(&name.as_str()) {
                continue;
            }
            let big = match value {
                Value::String(_) => json!("x".repeat(MAX_TARGET_BYTES + 1)),
                Value::Array(_) => Value::Array(vec![json!({}); MAX_LIST_ITEMS + 1]),
                _ => continue,
            };
            let list = big.is_array();
            let mut m = Map::new();
            m.insert(name.clone(), big);
            let parsed: T = match serde_json::from_value(Value::Object(m.clone())) {
                Ok(v) => v,
                // A list of strings takes strings.
                Err(_) if list => {
                    m.insert(
                        name.clone(),
                        Value::Array(vec![json!(""); MAX_LIST_ITEMS + 1]),
                    );
                    serde_json::from_value(Value::Object(m)).unwrap()
                }
                // An enum serialized as a string (`category`).
                Err(_) => continue,
            };
            let err = parsed.check_limits().expect_err(&name);
            assert!(err.contains(&name), "{err} names {name}");
            checked += 1;
        }
        assert!(checked > 0);
        assert!(T::default().check_limits().is_ok());
    }

    #[test]
    fn every_request_field_is_bounded() {
        every_field_is_bounded::<AcquireRequest>(&["authToken", "approvalToken"], &[]);
        every_field_is_bounded::<ReleaseRequest>(&[], &[]);
        every_field_is_bounded::<ApprovalRequest>(&[], &[]);
        every_field_is_bounded::<GrantApprovalRequest>(&[], &[]);
        every_field_is_bounded::<DenyApprovalRequest>(&[], &[]);
        every_field_is_bounded::<ReviewApprovalRequest>(&[], &[]);
        every_field_is_bounded::<ApprovalQueueRequest>(&[], &[]);
        every_field_is_bounded::<ExportDiagnosticsRequest>(&[], &[]);
        every_field_is_bounded::<ExportRunawayReportRequest>(&[], &[]);
        every_field_is_bounded::<PolicyBundle>(&[], &["policyContentJson"]);
        every_field_is_bounded::<ActivatePolicyRequest>(&[], &[]);
        every_field_is_bounded::<RollbackPolicyRequest>(&[], &[]);
        every_field_is_bounded::<ToolSubLeaseRequest>(&["approvalToken"], &[]);
        every_field_is_bounded::<ToolExecutionRequest>(&[], &[]);
        every_field_is_bounded::<AuthorizeRequest>(&[], &[]);
    }

    #[test]
    fn limits_are_inclusive_and_name_nested_fields() {
        let ok = AcquireRequest {
            actor_id: "a".repeat(MAX_ID_BYTES),
            ..AcquireRequest::default()
        };
        assert!(ok.check_limits().is_ok());
        let over = AcquireRequest {
            actor_id: "é".repeat(MAX_ID_BYTES / 2 + 1),
            ..AcquireRequest::default()
        };
        let e = over.check_limits().unwrap_err();
        assert!(e.contains("actorId is 258 bytes"), "{e}");
        let nested = AcquireRequest {
            requested_tools: vec![
                ToolIntent::default(),
                ToolIntent {
                    tool_id: "t".repeat(MAX_ID_BYTES + 1),
                    ..ToolIntent::default()
                },
            ],
            ..AcquireRequest::default()
        };
        let e = nested.check_limits().unwrap_err();
        assert!(e.contains("requestedTools[1].toolId"), "{e}");
        let cmd = ToolExecutionRequest {
            command_text: "c".repeat(MAX_TEXT_BYTES),
            target_host: "h".repeat(MAX_TARGET_BYTES),
            ..ToolExecutionRequest::default()
        };
        assert!(cmd.check_limits().is_ok());
        let lease = AcquireRequest {
            requested_lease: Some(Value::Object(
                (0..=MAX_LIST_ITEMS)
                    .map(|i| (format!("x-vendor.a.c{i}"), json!([])))
                    .collect(),
            )),
            ..AcquireRequest::default()
        };
        assert!(lease.check_limits().unwrap_err().contains("requestedLease"));
    }
}
