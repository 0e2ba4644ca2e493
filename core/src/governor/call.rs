//! The command dispatcher behind [`Governor::handle`] and the strict JSON entry point
//! [`Governor::call_json`] that the bindings' typed methods use.
//!
//! `handle` reads payloads as LeaseGate does (unknown fields ignored, SEMANTICS 13.1) and
//! answers an envelope; `call_json` refuses unknown fields (a misspelt field of a typed call
//! must not silently take its default) and answers the response payload or an [`Error`]
//! with its code.

use serde::Serialize;
use serde::de::DeserializeOwned;

use super::Governor;
use super::wire::*;
use crate::{Error, ErrorCode};

/// Reads a payload: blank is `{}`, anything but a JSON object is refused, and with `strict`
/// so is a field the request type does not have.
/// Every field must be within its wire size limit (SEMANTICS 13.16).
fn parse<T: DeserializeOwned + WireLimits>(payload: &str, strict: bool) -> crate::Result<T> {
    let value: T = parse_shape(payload, strict)?;
    value.check_limits().map_err(Error::invalid)?;
    Ok(value)
}

fn parse_shape<T: DeserializeOwned>(payload: &str, strict: bool) -> crate::Result<T> {
    let text = payload.trim();
    let text = if text.is_empty() { "{}" } else { text };
    if !text.starts_with('{') {
        return Err(Error::invalid("invalid payload: expected a JSON object"));
    }
    let bad = |e: serde_json::Error| Error::invalid(format!("invalid payload: {e}"));
    if !strict {
        return serde_json::from_str(text).map_err(bad);
    }
    let mut unknown = Vec::new();
    let mut de = serde_json::Deserializer::from_str(text);
    let value =
        serde_ignored::deserialize(&mut de, |path| unknown.push(path.to_string())).map_err(bad)?;
    de.end().map_err(bad)?;
    if !unknown.is_empty() {
        return Err(Error::invalid(format!(
            "invalid payload: unknown field(s) {}",
            unknown.join(", ")
        )));
    }
    Ok(value)
}

/// A response payload as JSON text.
fn out<T: Serialize>(r: crate::Result<T>) -> crate::Result<String> {
    r.and_then(|v| {
        serde_json::to_string(&v)
            .map_err(|e| Error::new(ErrorCode::InternalError, format!("response: {e}")))
    })
}

/// Reads a payload as [`Governor::call_json`] does: blank is `{}`, only a JSON object, no
/// unknown field (shared with [`super::client::GovernorClient::call_json`]).
pub(crate) fn parse_strict<T: DeserializeOwned + WireLimits>(payload: &str) -> crate::Result<T> {
    parse(payload, true)
}

/// A payload that carries no fields (`GetMetrics`, `GetStatus`).
#[derive(serde::Deserialize)]
struct Empty {}

impl Governor {
    /// Runs `command` with `payload_json` and answers the response payload JSON, refusing an
    /// unknown command or a malformed payload, including one with an unknown field, with
    /// `INVALID_REQUEST`; a store failure is `INTERNAL_ERROR`. Typed calls of every binding
    /// go through here; [`Governor::handle`] is the lenient wire form.
    pub fn call_json(&self, command: &str, payload_json: &str) -> crate::Result<String> {
        self.dispatch_json(command, payload_json, true)
    }

    /// The dispatcher: `strict` refuses unknown payload fields.
    pub(super) fn dispatch_json(
        &self,
        command: &str,
        payload: &str,
        strict: bool,
    ) -> crate::Result<String> {
        let Some(cmd) = Command::parse(command) else {
            return Err(Error::invalid("unknown_command"));
        };
        match cmd {
            Command::Acquire => out(self.acquire(parse(payload, strict)?)),
            Command::Release => out(self.release(parse(payload, strict)?)),
            Command::RequestApproval => out(self.request_approval(parse(payload, strict)?)),
            Command::GrantApproval => out(self.grant_approval(parse(payload, strict)?)),
            Command::DenyApproval => out(self.deny_approval(parse(payload, strict)?)),
            Command::ListPendingApprovals => {
                out(self.list_pending_approvals(parse(payload, strict)?))
            }
            Command::ReviewApproval => out(self.review_approval(parse(payload, strict)?)),
            Command::GetMetrics => {
                empty(payload, strict)?;
                out(self.metrics())
            }
            Command::GetStatus => {
                empty(payload, strict)?;
                out(self.status())
            }
            Command::ExportDiagnostics => out(self.export_diagnostics(parse(payload, strict)?)),
            Command::ExportRunawayReport => {
                out(self.export_runaway_report(parse(payload, strict)?))
            }
            Command::StagePolicyBundle => out(self.stage_policy_bundle(parse(payload, strict)?)),
            Command::ActivatePolicy => out(self.activate_policy(parse(payload, strict)?)),
            Command::RequestToolSubLease => {
                out(self.request_tool_sub_lease(parse(payload, strict)?))
            }
            Command::ExecuteToolCall => out(self.execute_tool_call(parse(payload, strict)?)),
            Command::Authorize => out(self.authorize(parse(payload, strict)?)),
            Command::ExportAudit => out(self.export_audit(parse(payload, strict)?)),
            Command::VerifyAudit => out(self.verify_audit_request(parse(payload, strict)?)),
            Command::RollbackPolicy => out(self.rollback_policy(parse(payload, strict)?)),
            Command::RecordDecision => out(self.record_decision(parse(payload, strict)?)),
        }
    }
}

/// A field-less payload: any JSON object (lenient) or `{}` (strict).
fn empty(payload: &str, strict: bool) -> crate::Result<()> {
    if strict {
        parse_shape::<Empty>(payload, true).map(|_| ())
    } else {
        parse::<serde_json::Value>(payload, false).map(|_| ())
    }
}

/// Checks `payload` against `command`'s request type as strictly as [`Governor::call_json`]
/// does (a JSON object, no unknown field, every value of its type) and answers the parsed
/// command. The [`super::client::GovernorClient`] runs this before sending, so a typed call
/// is refused the same way whether the governor is embedded or behind a daemon.
pub(crate) fn check_strict(command: &str, payload: &str) -> crate::Result<Command> {
    let Some(cmd) = Command::parse(command) else {
        return Err(Error::invalid("unknown_command"));
    };
    fn ok<T: DeserializeOwned + WireLimits>(payload: &str) -> crate::Result<()> {
        parse_strict::<T>(payload).map(|_| ())
    }
    match cmd {
        Command::Acquire => ok::<AcquireRequest>(payload),
        Command::Release => ok::<ReleaseRequest>(payload),
        Command::RequestApproval => ok::<ApprovalRequest>(payload),
        Command::GrantApproval => ok::<GrantApprovalRequest>(payload),
        Command::DenyApproval => ok::<DenyApprovalRequest>(payload),
        Command::ListPendingApprovals => ok::<ApprovalQueueRequest>(payload),
        Command::ReviewApproval => ok::<ReviewApprovalRequest>(payload),
        Command::GetMetrics | Command::GetStatus => empty(payload, true),
        Command::ExportDiagnostics => ok::<ExportDiagnosticsRequest>(payload),
        Command::ExportRunawayReport => ok::<ExportRunawayReportRequest>(payload),
        Command::StagePolicyBundle => ok::<PolicyBundle>(payload),
        Command::ActivatePolicy => ok::<ActivatePolicyRequest>(payload),
        Command::RequestToolSubLease => ok::<ToolSubLeaseRequest>(payload),
        Command::ExecuteToolCall => ok::<ToolExecutionRequest>(payload),
        Command::Authorize => ok::<AuthorizeRequest>(payload),
        Command::ExportAudit => ok::<ExportAuditRequest>(payload),
        Command::VerifyAudit => ok::<VerifyAuditRequest>(payload),
        Command::RollbackPolicy => ok::<RollbackPolicyRequest>(payload),
        Command::RecordDecision => ok::<RecordDecisionRequest>(payload),
    }?;
    Ok(cmd)
}
