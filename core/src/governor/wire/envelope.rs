//! The request/response envelope and the command names.

use serde::{Deserialize, Serialize};

/// The protocol version every envelope carries.
pub const PROTOCOL_VERSION: &str = "0.1";

/// `PipeCommandRequest`: the payload is JSON text inside a JSON string.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RequestEnvelope {
    /// `0.1` (not checked, as LeaseGate).
    #[serde(default)]
    pub protocol_version: String,
    /// Command name.
    pub command: String,
    /// Payload JSON text (default `{}`).
    #[serde(default)]
    pub payload_json: String,
}

/// `PipeCommandResponse`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResponseEnvelope {
    /// `0.1`.
    pub protocol_version: String,
    /// False only for a malformed frame or payload, an unknown command or an internal error.
    pub success: bool,
    /// Response payload JSON text (empty when `success` is false).
    pub payload_json: String,
    /// Error text (empty when `success` is true).
    pub error: String,
}

impl ResponseEnvelope {
    /// A successful answer.
    pub fn ok(payload_json: String) -> ResponseEnvelope {
        ResponseEnvelope {
            protocol_version: PROTOCOL_VERSION.to_string(),
            success: true,
            payload_json,
            error: String::new(),
        }
    }

    /// A failed command.
    pub fn fail(error: impl Into<String>) -> ResponseEnvelope {
        ResponseEnvelope {
            protocol_version: PROTOCOL_VERSION.to_string(),
            success: false,
            payload_json: String::new(),
            error: error.into(),
        }
    }
}

/// Every command name (15 of seed 003 plus five of leasekit).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Command {
    /// `Acquire`.
    Acquire,
    /// `Release`.
    Release,
    /// `RequestApproval`.
    RequestApproval,
    /// `GrantApproval`.
    GrantApproval,
    /// `DenyApproval`.
    DenyApproval,
    /// `ListPendingApprovals`.
    ListPendingApprovals,
    /// `ReviewApproval`.
    ReviewApproval,
    /// `GetMetrics`.
    GetMetrics,
    /// `GetStatus`.
    GetStatus,
    /// `ExportDiagnostics`.
    ExportDiagnostics,
    /// `ExportRunawayReport`.
    ExportRunawayReport,
    /// `StagePolicyBundle`.
    StagePolicyBundle,
    /// `ActivatePolicy`.
    ActivatePolicy,
    /// `RequestToolSubLease`.
    RequestToolSubLease,
    /// `ExecuteToolCall`.
    ExecuteToolCall,
    /// `Authorize` (leasekit).
    Authorize,
    /// `ExportAudit` (leasekit).
    ExportAudit,
    /// `VerifyAudit` (leasekit).
    VerifyAudit,
    /// `RollbackPolicy` (leasekit).
    RollbackPolicy,
    /// `RecordDecision` (leasekit).
    RecordDecision,
}

impl Command {
    /// Every command, in the order above.
    pub const ALL: [Command; 20] = [
        Command::Acquire,
        Command::Release,
        Command::RequestApproval,
        Command::GrantApproval,
        Command::DenyApproval,
        Command::ListPendingApprovals,
        Command::ReviewApproval,
        Command::GetMetrics,
        Command::GetStatus,
        Command::ExportDiagnostics,
        Command::ExportRunawayReport,
        Command::StagePolicyBundle,
        Command::ActivatePolicy,
        Command::RequestToolSubLease,
        Command::ExecuteToolCall,
        Command::Authorize,
        Command::ExportAudit,
        Command::VerifyAudit,
        Command::RollbackPolicy,
        Command::RecordDecision,
    ];

    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Command::Acquire => "Acquire",
            Command::Release => "Release",
            Command::RequestApproval => "RequestApproval",
            Command::GrantApproval => "GrantApproval",
            Command::DenyApproval => "DenyApproval",
            Command::ListPendingApprovals => "ListPendingApprovals",
            Command::ReviewApproval => "ReviewApproval",
            Command::GetMetrics => "GetMetrics",
            Command::GetStatus => "GetStatus",
            Command::ExportDiagnostics => "ExportDiagnostics",
            Command::ExportRunawayReport => "ExportRunawayReport",
            Command::StagePolicyBundle => "StagePolicyBundle",
            Command::ActivatePolicy => "ActivatePolicy",
            Command::RequestToolSubLease => "RequestToolSubLease",
            Command::ExecuteToolCall => "ExecuteToolCall",
            Command::Authorize => "Authorize",
            Command::ExportAudit => "ExportAudit",
            Command::VerifyAudit => "VerifyAudit",
            Command::RollbackPolicy => "RollbackPolicy",
            Command::RecordDecision => "RecordDecision",
        }
    }

    /// Parses a wire name (exact, case-sensitive).
    pub fn parse(name: &str) -> Option<Command> {
        Command::ALL.into_iter().find(|c| c.as_str() == name)
    }
}

/// Decodes one frame and its envelope and names the command (conformance op `frame_decode`).
/// Errors are `INVALID_REQUEST`.
pub fn decode_request_frame(bytes: &[u8]) -> crate::Result<RequestEnvelope> {
    let (payload, _) = super::frame::decode_frame(bytes)?;
    let text = std::str::from_utf8(payload)
        .map_err(|_| crate::Error::invalid("frame payload is not UTF-8"))?;
    serde_json::from_str::<RequestEnvelope>(text)
        .map_err(|e| crate::Error::invalid(format!("frame payload is not a request envelope: {e}")))
}
