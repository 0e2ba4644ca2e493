//! [`GovernorClient`]: the governor of a `leasekit serve` daemon, reached over its Unix socket,
//! with the same methods as the embedded [`crate::governor::Governor`] (typed methods and the
//! wire dispatcher `handle`), so a program switches between them by its constructor.
//!
//! Synchronous (std `UnixStream`, no async runtime), safe to share between threads, with
//! connections kept for reuse and a timeout per call. When the daemon cannot be reached (no
//! socket, nobody listening) an `Acquire` is decided locally by SEMANTICS 13.13's fallback
//! rules ([`FallbackMode`]); an answer with `success: false` is always an error, never a
//! fallback, and so is a failure after the request may have reached the daemon.
//!
//! ```no_run
//! use leasekit::governor::client::GovernorClient;
//! use leasekit::governor::wire::{AcquireRequest, ReleaseRequest};
//! let gov = GovernorClient::connect("/run/user/1000/leasekit.sock");
//! let grant = gov.acquire(AcquireRequest { actor_id: "a".into(), estimated_cost_cents: 3,
//!     ..AcquireRequest::default() }).unwrap();
//! if grant.granted {
//!     gov.release(ReleaseRequest { lease_id: grant.lease_id, actual_cost_cents: 2,
//!         ..ReleaseRequest::default() }).unwrap();
//! }
//! ```

mod fallback;
mod options;
mod paths;
mod transport;

use serde::Serialize;
use serde::de::DeserializeOwned;
use std::path::{Path, PathBuf};

pub use fallback::{
    DEV_MAX_OUTPUT_TOKENS, FallbackMode, LOCAL_LEASE_TTL_MS, PROD_MAX_OUTPUT_TOKENS,
    RISKY_CAPABILITIES,
};
pub use options::ClientOptions;
pub use paths::{default_socket, default_socket_in, default_state_dir};

use fallback::LocalLeases;
use transport::{CallError, Transport};

use super::audit::AuditVerification;
use super::wire::*;
use crate::{Clock, Error, ErrorCode};

/// A governor behind a daemon's socket. Cheap to share (`&self` methods, thread-safe).
pub struct GovernorClient {
    transport: Transport,
    fallback: FallbackMode,
    local: LocalLeases,
}

impl std::fmt::Debug for GovernorClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GovernorClient")
            .field("socket", &self.transport.socket())
            .field("fallback", &self.fallback)
            .finish()
    }
}

impl GovernorClient {
    /// A client of the daemon at `socket`, with default options. Nothing is connected yet:
    /// the first call connects (an unreachable daemon is not an error until then).
    pub fn connect(socket: impl AsRef<Path>) -> GovernorClient {
        GovernorClient::with_options(socket, ClientOptions::default())
    }

    /// A client with explicit options.
    pub fn with_options(socket: impl AsRef<Path>, options: ClientOptions) -> GovernorClient {
        GovernorClient {
            transport: Transport::new(
                socket.as_ref().to_path_buf(),
                options.timeout,
                options.max_idle,
                options.max_pooled,
            ),
            fallback: options.fallback,
            local: LocalLeases::default(),
        }
    }

    /// A client of the default socket ([`default_socket`]).
    pub fn connect_default() -> crate::Result<GovernorClient> {
        let socket: PathBuf = default_socket().ok_or_else(|| {
            Error::invalid(
                "no default governor socket: set LEASEKIT_SOCKET, XDG_RUNTIME_DIR or HOME",
            )
        })?;
        Ok(GovernorClient::connect(socket))
    }

    /// The socket this client talks to.
    pub fn socket(&self) -> &Path {
        self.transport.socket()
    }

    /// The wire dispatcher, as [`crate::governor::Governor::handle`]: runs `command` with
    /// `payload_json` on the daemon and answers the response envelope as JSON. A transport
    /// failure is a `success: false` envelope, except an `Acquire` (fallback grant or denial)
    /// or a `Release` of this client's local lease when the daemon cannot be reached.
    pub fn handle(&self, command: &str, payload_json: &str) -> String {
        serde_json::to_string(&self.handle_envelope(command, payload_json))
            .expect("envelope serializes")
    }

    /// As [`GovernorClient::handle`], answering the envelope value.
    pub fn handle_envelope(&self, command: &str, payload_json: &str) -> ResponseEnvelope {
        // A local lease never reaches the daemon (it does not know it).
        if command == Command::Release.as_str()
            && let Ok(req) = serde_json::from_str::<ReleaseRequest>(payload_json)
            && let Some(resp) = self.local.release(&req)
        {
            return ResponseEnvelope::ok(to_json(&resp));
        }
        match self.transport.call(command, payload_json.to_string()) {
            Ok(env) => env,
            Err(CallError::Unreachable(msg)) => {
                if command == Command::Acquire.as_str() && self.fallback != FallbackMode::Off {
                    match parse_payload::<AcquireRequest>(payload_json) {
                        Ok(req) => ResponseEnvelope::ok(to_json(&self.local_acquire(&req))),
                        Err(e) => ResponseEnvelope::fail(e),
                    }
                } else {
                    ResponseEnvelope::fail(msg)
                }
            }
            Err(CallError::Failed(e)) => ResponseEnvelope::fail(e.message().to_string()),
        }
    }

    fn local_acquire(&self, req: &AcquireRequest) -> AcquireResponse {
        let now = crate::SystemClock
            .now()
            .map(|t| t.unix_millis())
            .unwrap_or_default();
        self.local.acquire(self.fallback, req, now)
    }

    /// One typed call: the daemon's answer, or an error (never a fallback).
    fn call<Q: Serialize, R: DeserializeOwned>(
        &self,
        command: Command,
        req: &Q,
    ) -> crate::Result<R> {
        let env = self
            .transport
            .call(command.as_str(), to_json(req))
            .map_err(|e| match e {
                CallError::Unreachable(msg) => unreachable_error(msg),
                CallError::Failed(e) => e,
            })?;
        answer(env)
    }

    /// The strict typed call, as [`crate::governor::Governor::call_json`]: checks `payload_json`
    /// against `command`'s request type (an unknown field or command is `INVALID_REQUEST`
    /// before anything is sent), runs it on the daemon and answers the response payload JSON.
    /// `Acquire` and `Release` keep their fallback and local-lease behaviour; a `success:
    /// false` answer or a transport failure is an error. The bindings' clients call this.
    pub fn call_json(&self, command: &str, payload_json: &str) -> crate::Result<String> {
        use super::call::{check_strict, parse_strict};
        match Command::parse(command) {
            // Parsed once, strictly, into the typed request (fallback and local leases).
            Some(Command::Acquire) => Ok(to_json(&self.acquire(parse_strict(payload_json)?)?)),
            Some(Command::Release) => Ok(to_json(&self.release(parse_strict(payload_json)?)?)),
            _ => {
                let cmd = check_strict(command, payload_json)?;
                let text = if payload_json.trim().is_empty() {
                    "{}"
                } else {
                    payload_json
                };
                let env = self
                    .transport
                    .call(cmd.as_str(), text.to_string())
                    .map_err(|e| match e {
                        CallError::Unreachable(msg) => unreachable_error(msg),
                        CallError::Failed(e) => e,
                    })?;
                // The daemon's payload text as it came (the caller parses it).
                answer_text(env)
            }
        }
    }

    /// `Acquire`. When the daemon cannot be reached and fallback is on, the grant or denial
    /// of 13.13's local rules (`local-` ids, `degradedMode: true`).
    pub fn acquire(&self, req: AcquireRequest) -> crate::Result<AcquireResponse> {
        match self
            .transport
            .call(Command::Acquire.as_str(), to_json(&req))
        {
            Ok(env) => answer(env),
            Err(CallError::Unreachable(_)) if self.fallback != FallbackMode::Off => {
                Ok(self.local_acquire(&req))
            }
            Err(CallError::Unreachable(msg)) => Err(unreachable_error(msg)),
            Err(CallError::Failed(e)) => Err(e),
        }
    }

    /// `Release`. A local lease of this client is released locally; an unreachable daemon is
    /// an error (the lease stays reserved until it expires; retry the release).
    pub fn release(&self, req: ReleaseRequest) -> crate::Result<ReleaseResponse> {
        if let Some(resp) = self.local.release(&req) {
            return Ok(resp);
        }
        self.call(Command::Release, &req)
    }

    /// `RequestApproval`.
    pub fn request_approval(&self, req: ApprovalRequest) -> crate::Result<ApprovalRequestResponse> {
        self.call(Command::RequestApproval, &req)
    }

    /// `GrantApproval` (admin uids only).
    pub fn grant_approval(
        &self,
        req: GrantApprovalRequest,
    ) -> crate::Result<GrantApprovalResponse> {
        self.call(Command::GrantApproval, &req)
    }

    /// `DenyApproval` (admin uids only).
    pub fn deny_approval(&self, req: DenyApprovalRequest) -> crate::Result<DenyApprovalResponse> {
        self.call(Command::DenyApproval, &req)
    }

    /// `ReviewApproval` (admin uids only).
    pub fn review_approval(
        &self,
        req: ReviewApprovalRequest,
    ) -> crate::Result<ReviewApprovalResponse> {
        self.call(Command::ReviewApproval, &req)
    }

    /// `ListPendingApprovals`.
    pub fn list_pending_approvals(
        &self,
        req: ApprovalQueueRequest,
    ) -> crate::Result<ApprovalQueueResponse> {
        self.call(Command::ListPendingApprovals, &req)
    }

    /// `GetMetrics`.
    pub fn metrics(&self) -> crate::Result<MetricsSnapshot> {
        self.call(Command::GetMetrics, &serde_json::json!({}))
    }

    /// `GetStatus`.
    pub fn status(&self) -> crate::Result<StatusResponse> {
        self.call(Command::GetStatus, &serde_json::json!({}))
    }

    /// `ExportDiagnostics` (admin uids only; the document inline).
    pub fn export_diagnostics(
        &self,
        req: ExportDiagnosticsRequest,
    ) -> crate::Result<ExportDiagnosticsResponse> {
        self.call(Command::ExportDiagnostics, &req)
    }

    /// `ExportRunawayReport` (admin uids only; inline).
    pub fn export_runaway_report(
        &self,
        req: ExportRunawayReportRequest,
    ) -> crate::Result<ExportRunawayReportResponse> {
        self.call(Command::ExportRunawayReport, &req)
    }

    /// `StagePolicyBundle` (admin uids only).
    pub fn stage_policy_bundle(&self, b: PolicyBundle) -> crate::Result<StagePolicyBundleResponse> {
        self.call(Command::StagePolicyBundle, &b)
    }

    /// `ActivatePolicy` (admin uids only).
    pub fn activate_policy(
        &self,
        req: ActivatePolicyRequest,
    ) -> crate::Result<ActivatePolicyResponse> {
        self.call(Command::ActivatePolicy, &req)
    }

    /// `RollbackPolicy` (admin uids only).
    pub fn rollback_policy(
        &self,
        req: RollbackPolicyRequest,
    ) -> crate::Result<ActivatePolicyResponse> {
        self.call(Command::RollbackPolicy, &req)
    }

    /// `RequestToolSubLease` (only on a lease this uid acquired).
    pub fn request_tool_sub_lease(
        &self,
        req: ToolSubLeaseRequest,
    ) -> crate::Result<ToolSubLeaseResponse> {
        self.call(Command::RequestToolSubLease, &req)
    }

    /// `ExecuteToolCall` (only on a lease this uid acquired).
    pub fn execute_tool_call(
        &self,
        req: ToolExecutionRequest,
    ) -> crate::Result<ToolExecutionResponse> {
        self.call(Command::ExecuteToolCall, &req)
    }

    /// `Authorize` (only on a lease this uid acquired).
    pub fn authorize(&self, req: AuthorizeRequest) -> crate::Result<AuthorizeResponse> {
        self.call(Command::Authorize, &req)
    }

    /// `RecordDecision`: appends a guard's decision to the daemon's audit chain (as this uid).
    pub fn record_decision(
        &self,
        req: RecordDecisionRequest,
    ) -> crate::Result<RecordDecisionResponse> {
        req.check_limits().map_err(Error::invalid)?;
        self.call(Command::RecordDecision, &req)
    }

    /// `ExportAudit` (admin uids only).
    pub fn export_audit(&self, req: ExportAuditRequest) -> crate::Result<ExportAuditResponse> {
        self.call(Command::ExportAudit, &req)
    }

    /// The audit lines `from..=to` (1-based), through `ExportAudit` (admin uids only).
    pub fn audit_lines(&self, from: u64, to: u64) -> crate::Result<Vec<String>> {
        let resp = self.export_audit(ExportAuditRequest {
            from_line: Some(from),
            to_line: Some(to),
        })?;
        Ok(resp.records.iter().map(|r| r.to_string()).collect())
    }

    /// Verifies the daemon's whole audit chain (`VerifyAudit`).
    pub fn verify_audit(&self) -> crate::Result<AuditVerification> {
        let r: VerifyAuditResponse = self.call(Command::VerifyAudit, &serde_json::json!({}))?;
        Ok(AuditVerification {
            ok: r.ok,
            records: r.records,
            first_bad_line: r.first_bad_line,
            message: r.message,
        })
    }
}

fn to_json<T: Serialize>(v: &T) -> String {
    serde_json::to_string(v).expect("request serializes")
}

fn parse_payload<T: DeserializeOwned>(payload: &str) -> Result<T, String> {
    let text = if payload.trim().is_empty() {
        "{}"
    } else {
        payload
    };
    serde_json::from_str(text).map_err(|e| format!("invalid payload: {e}"))
}

fn unreachable_error(msg: String) -> Error {
    Error::new(ErrorCode::InternalError, msg).with_detail("reason", "daemon_unreachable")
}

/// A response envelope's payload text: `success: false` is an error (13.13).
fn answer_text(env: ResponseEnvelope) -> crate::Result<String> {
    if !env.success {
        let code = if env.error.starts_with("permission_denied") {
            ErrorCode::PermissionDenied
        } else if env.error == "unknown_command" || env.error.starts_with("invalid payload") {
            ErrorCode::InvalidRequest
        } else {
            ErrorCode::InternalError
        };
        // A store failure keeps its own reason, so a caller can tell "retry with the same
        // idempotencyKey" (13.16) from any other daemon error.
        let reason = if env.error.starts_with("store_unavailable") {
            "store_unavailable"
        } else {
            "daemon_error"
        };
        return Err(Error::new(code, format!("governor daemon: {}", env.error))
            .with_detail("reason", reason));
    }
    Ok(env.payload_json)
}

/// A response envelope to a typed answer: `success: false` is an error (13.13).
fn answer<R: DeserializeOwned>(env: ResponseEnvelope) -> crate::Result<R> {
    serde_json::from_str(&answer_text(env)?).map_err(|e| {
        Error::new(
            ErrorCode::InternalError,
            format!("governor daemon sent an unreadable payload: {e}"),
        )
    })
}
