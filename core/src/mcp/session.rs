//! One guarded MCP connection: every client->server message is decided, every
//! server->client answer to a `tools/list` is filtered, every `tools/call` is tracked from
//! its decision to its answer (governor release, audit). Transport-independent: the caller
//! feeds lines and writes what comes out.

use std::collections::HashMap;
use std::time::Instant;

use serde_json::{Map, Value};

use super::McpGuard;
use super::audit_log::AuditLog;
use super::decide::{Allowed, Refusal};
use super::governor::{CallGovernor, Permit, category_of};
use super::jsonrpc::{self, Message};
use crate::governor::audit::AuditRecord;
use crate::governor::wire::{
    GuardDecision, LeaseOutcome, MAX_ID_BYTES, MAX_TEXT_BYTES, RecordDecisionRequest,
};
use crate::{Clock, ErrorCode};

/// Most client requests awaiting an answer; more are refused.
pub const MAX_PENDING: usize = 1024;

/// What one message produced.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Output {
    /// Lines for the server.
    pub to_server: Vec<String>,
    /// Lines for the client.
    pub to_client: Vec<String>,
    /// Lines for the operator's log (stderr).
    pub log: Vec<String>,
}

#[derive(Debug)]
enum Pending {
    ToolsList,
    ToolsCall {
        tool: String,
        permit: Option<Permit>,
        started: Instant,
    },
    Other,
}

/// One decision, as audited.
struct Decision<'a> {
    decision: &'a str,
    rule: &'a str,
    method: &'a str,
    id: &'a Value,
    tool: Option<&'a str>,
    code: Option<&'a str>,
    reason: &'a str,
    targets: Vec<String>,
    /// The governor lease the call was charged to.
    lease: Option<&'a str>,
}

/// A guarded connection.
pub struct Session {
    guard: McpGuard,
    governor: Option<CallGovernor>,
    audit: Option<AuditLog>,
    clock: std::sync::Arc<dyn Clock>,
    pending: HashMap<String, Pending>,
}

fn id_key(id: &Value) -> String {
    id.to_string()
}

fn line(body: Map<String, Value>) -> String {
    Value::Object(body).to_string()
}

impl Session {
    /// A session of `guard`, with an optional governor and local audit chain.
    pub fn new(
        guard: McpGuard,
        governor: Option<CallGovernor>,
        audit: Option<AuditLog>,
        clock: std::sync::Arc<dyn Clock>,
    ) -> Session {
        Session {
            guard,
            governor,
            audit,
            clock,
            pending: HashMap::new(),
        }
    }

    /// The guard.
    pub fn guard(&self) -> &McpGuard {
        &self.guard
    }

    /// Requests awaiting the server's answer.
    pub fn pending(&self) -> usize {
        self.pending.len()
    }

    /// Records a decision: in the governor's chain when a governor is configured, and in the
    /// local chain when one is open. `false` when a record could not be written (the caller
    /// then does not forward the call).
    fn record(&mut self, d: Decision<'_>, out: &mut Output) -> bool {
        if let Some(gov) = &self.governor {
            let req = RecordDecisionRequest {
                source: "mcp".into(),
                decision: GuardDecision::parse(d.decision),
                rule: fit_id(d.rule),
                method: fit_id(d.method),
                server: fit_id(&self.guard.options.server),
                tool: fit_id(d.tool.unwrap_or("")),
                request_id: fit_id(&id_key(d.id)),
                code: d.code.unwrap_or("").to_string(),
                reason: fit_text(d.reason),
                targets: d.targets.clone(),
                lease_id: d.lease.unwrap_or("").to_string(),
                ..RecordDecisionRequest::default()
            };
            if let Err(m) = gov.record(req) {
                out.log.push(format!("audit: {m}"));
                return false;
            }
        }
        let Some(audit) = self.audit.as_mut() else {
            return true;
        };
        let ts = match self.clock.now() {
            Ok(t) => t.to_rfc3339(),
            Err(e) => {
                out.log
                    .push(format!("audit: clock failed: {}", e.message()));
                return false;
            }
        };
        let mut r = AuditRecord::new("mcpDecision", ts);
        r.s("decision", d.decision)
            .s("rule", d.rule)
            .s("method", d.method)
            .s("server", &self.guard.options.server)
            .s("requestId", &id_key(d.id))
            .s("reason", d.reason)
            .list("targets", d.targets);
        if let Some(t) = d.tool {
            r.s("tool", t);
        }
        if let Some(c) = d.code {
            r.s("code", c);
        }
        match audit.append(r) {
            Ok(()) => true,
            Err(e) => {
                out.log.push(format!("audit: {}", e.message()));
                false
            }
        }
    }

    fn refuse_malformed(&mut self, m: jsonrpc::Malformed, out: &mut Output) {
        let d = Decision {
            decision: "deny",
            rule: "malformed",
            method: "",
            id: &m.id,
            tool: None,
            code: Some("INVALID_REQUEST"),
            reason: &m.message,
            targets: Vec::new(),
            lease: None,
        };
        self.record(d, out);
        out.log
            .push(format!("refused a malformed message: {}", m.message));
        out.to_client
            .push(jsonrpc::error_line(&m.id, m.code, &m.message));
    }

    /// Refuses a `tools/call` whose params are malformed: audited, answered with a JSON-RPC
    /// invalid-params error, never forwarded.
    fn refuse_call_params(&mut self, id: &Value, tool: Option<&str>, m: &str, out: &mut Output) {
        let d = Decision {
            decision: "deny",
            rule: "malformed",
            method: "tools/call",
            id,
            tool,
            code: Some("INVALID_REQUEST"),
            reason: m,
            targets: Vec::new(),
            lease: None,
        };
        self.record(d, out);
        out.to_client
            .push(jsonrpc::error_line(id, jsonrpc::INVALID_PARAMS, m));
    }

    /// Refuses a client line that could not be read as one message (too long, not UTF-8):
    /// a JSON-RPC error with `id: null`, audited.
    pub fn refuse(&mut self, reason: &str) -> Output {
        let mut out = Output::default();
        let m = jsonrpc::Malformed {
            code: jsonrpc::INVALID_REQUEST,
            message: reason.to_string(),
            id: Value::Null,
        };
        self.refuse_malformed(m, &mut out);
        out
    }

    /// Decides one line from the client.
    pub fn from_client(&mut self, text: &str) -> Output {
        let mut out = Output::default();
        let msg = match jsonrpc::parse(text) {
            Ok(m) => m,
            Err(m) => {
                self.refuse_malformed(m, &mut out);
                return out;
            }
        };
        match msg {
            Message::Response { body, .. } => out.to_server.push(line(body)),
            Message::Notification { method, body } => {
                if is_guarded_method(&method) {
                    let reason = format!("{method} as a notification (no id) is refused");
                    self.refuse_malformed(
                        jsonrpc::Malformed {
                            code: jsonrpc::INVALID_REQUEST,
                            message: reason,
                            id: Value::Null,
                        },
                        &mut out,
                    );
                    out.to_client.clear(); // a notification gets no answer
                    return out;
                }
                if method == "notifications/cancelled" {
                    self.cancelled(&body, &mut out);
                }
                out.to_server.push(line(body));
            }
            Message::Request { id, method, body } => self.request(id, method, body, &mut out),
        }
        out
    }

    fn request(
        &mut self,
        id: Value,
        method: String,
        mut body: Map<String, Value>,
        out: &mut Output,
    ) {
        let key = id_key(&id);
        if self.pending.contains_key(&key) {
            let m = format!("id {key} is already in use by a request awaiting its answer");
            out.to_client
                .push(jsonrpc::error_line(&id, jsonrpc::INVALID_REQUEST, &m));
            out.log.push(m);
            return;
        }
        if self.pending.len() >= MAX_PENDING {
            let m = format!("more than {MAX_PENDING} requests await an answer");
            out.to_client
                .push(jsonrpc::error_line(&id, jsonrpc::INVALID_REQUEST, &m));
            out.log.push(m);
            return;
        }
        if method != "tools/call" && method != "resources/read" && is_guarded_method(&method) {
            let m = format!("method {method:?} is not an MCP method");
            out.to_client
                .push(jsonrpc::error_line(&id, jsonrpc::METHOD_NOT_FOUND, &m));
            out.log.push(m);
            return;
        }
        let pending = match method.as_str() {
            "tools/call" => match self.tools_call(&id, &mut body, out) {
                Some(p) => p,
                None => return,
            },
            "resources/read" => {
                if !self.resources_read(&id, &mut body, out) {
                    return;
                }
                Pending::Other
            }
            "tools/list" => Pending::ToolsList,
            _ => Pending::Other,
        };
        self.pending.insert(key, pending);
        out.to_server.push(line(body));
    }

    /// Decides a `tools/call`; `None` when answered here.
    fn tools_call(
        &mut self,
        id: &Value,
        body: &mut Map<String, Value>,
        out: &mut Output,
    ) -> Option<Pending> {
        // The approval token never reaches the server, a log or an audit record.
        let approval_token = match take_approval_token(body) {
            Ok(t) => t,
            Err(m) => {
                self.refuse_call_params(id, None, &m, out);
                return None;
            }
        };
        if approval_token.is_some() && self.governor.is_none() {
            out.log
                .push("an approval token was given but no governor is configured: ignored".into());
        }
        let decision = self.guard.decide_call(body.get("params"));
        let tool_name = body
            .get("params")
            .and_then(|p| p.get("name"))
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        let allowed = match decision {
            Err(Refusal::Params(m)) => {
                self.refuse_call_params(id, Some(&tool_name), &m, out);
                return None;
            }
            Err(Refusal::Denied {
                code, rule, reason, ..
            }) => {
                if !self.deny_or_monitor(id, &tool_name, code, rule, &reason, None, out) {
                    return None;
                }
                // Monitor: forwarded unchanged, without a governor charge.
                return Some(Pending::ToolsCall {
                    tool: tool_name,
                    permit: None,
                    started: Instant::now(),
                });
            }
            Ok(a) => a,
        };
        let Allowed {
            tool,
            arguments,
            targets,
            rule,
        } = allowed;
        let mut permit = None;
        if let Some(gov) = &self.governor {
            let caps: Vec<&str> = targets.iter().filter_map(|t| t.split(' ').next()).collect();
            let category = match self.guard.map.rules(&tool) {
                Some(rules) => category_of(
                    &rules
                        .iter()
                        .map(|r| r.capability.as_str())
                        .collect::<Vec<_>>(),
                ),
                None => category_of(&caps),
            };
            let token = approval_token.as_deref().unwrap_or("");
            match gov.acquire(&self.guard.tool_target(&tool), category, token) {
                Ok(p) => permit = Some(p),
                Err(d) => {
                    let code = ErrorCode::PermissionDenied;
                    if !self.deny_or_monitor(
                        id,
                        &tool,
                        code,
                        "governor",
                        &d.reason,
                        d.retry_after_ms,
                        out,
                    ) {
                        return None;
                    }
                }
            }
        }
        let d = Decision {
            decision: "allow",
            rule,
            method: "tools/call",
            id,
            tool: Some(&tool),
            code: None,
            reason: "",
            targets,
            lease: permit.as_ref().map(|p| p.lease_id.as_str()),
        };
        if !self.record(d, out) {
            if let (Some(g), Some(p)) = (&self.governor, &permit) {
                g.release(p, LeaseOutcome::PolicyDenied, 0);
            }
            out.to_client.push(jsonrpc::tool_error_line(
                id,
                "INTERNAL_ERROR",
                "the audit record could not be written; the call was not forwarded",
                None,
            ));
            return None;
        }
        if let (Some(Value::Object(p)), Some(a)) = (body.get_mut("params"), arguments) {
            p.insert("arguments".into(), Value::Object(a));
        }
        Some(Pending::ToolsCall {
            tool,
            permit,
            started: Instant::now(),
        })
    }

    /// Records a denial; under `monitor` logs it and answers `true` (forward anyway), else
    /// answers the client with the tool error and `false`.
    #[allow(clippy::too_many_arguments)]
    fn deny_or_monitor(
        &mut self,
        id: &Value,
        tool: &str,
        code: ErrorCode,
        rule: &str,
        reason: &str,
        retry_after_ms: Option<u64>,
        out: &mut Output,
    ) -> bool {
        let monitor = self.guard.options.monitor;
        let d = Decision {
            decision: if monitor { "monitor" } else { "deny" },
            rule,
            method: "tools/call",
            id,
            tool: Some(tool),
            code: Some(code.as_str()),
            reason,
            targets: Vec::new(),
            lease: None,
        };
        let recorded = self.record(d, out);
        if monitor && recorded {
            out.log
                .push(format!("monitor: would deny {tool}: {code}: {reason}"));
            return true;
        }
        out.log.push(format!("denied {tool}: {code}: {reason}"));
        out.to_client.push(jsonrpc::tool_error_line(
            id,
            code.as_str(),
            reason,
            retry_after_ms,
        ));
        false
    }

    fn resources_read(
        &mut self,
        id: &Value,
        body: &mut Map<String, Value>,
        out: &mut Output,
    ) -> bool {
        let (decision, rule, code, reason, targets, uri) =
            match self.guard.decide_resource(body.get("params")) {
                Ok((uri, t)) => (
                    "allow",
                    "resource",
                    None,
                    String::new(),
                    if t.is_empty() { vec![] } else { vec![t] },
                    Some(uri),
                ),
                Err(Refusal::Params(m)) => {
                    out.to_client
                        .push(jsonrpc::error_line(id, jsonrpc::INVALID_PARAMS, &m));
                    (
                        "deny",
                        "malformed",
                        Some("INVALID_REQUEST"),
                        m,
                        vec![],
                        None,
                    )
                }
                Err(Refusal::Denied { code, reason, .. }) => {
                    if self.guard.options.monitor {
                        (
                            "monitor",
                            "resource",
                            Some(code.as_str()),
                            reason,
                            vec![],
                            None,
                        )
                    } else {
                        out.to_client.push(jsonrpc::error_line(
                            id,
                            jsonrpc::INVALID_PARAMS,
                            &format!("{code}: {reason}"),
                        ));
                        (
                            "deny",
                            "resource",
                            Some(code.as_str()),
                            reason,
                            vec![],
                            None,
                        )
                    }
                }
            };
        let d = Decision {
            decision,
            rule,
            method: "resources/read",
            id,
            tool: None,
            code,
            reason: &reason,
            targets,
            lease: None,
        };
        let recorded = self.record(d, out);
        if decision == "deny" {
            return false;
        }
        if !recorded {
            out.to_client.push(jsonrpc::error_line(
                id,
                jsonrpc::INTERNAL_ERROR,
                "the audit record could not be written",
            ));
            return false;
        }
        if let (Some(u), Some(Value::Object(p))) = (uri, body.get_mut("params")) {
            p.insert("uri".into(), Value::String(u));
        }
        true
    }

    fn cancelled(&mut self, body: &Map<String, Value>, out: &mut Output) {
        let Some(rid) = body.get("params").and_then(|p| p.get("requestId")) else {
            return;
        };
        if let Some(p) = self.pending.remove(&id_key(rid)) {
            self.finish(rid.clone(), p, "cancelled", LeaseOutcome::UnknownError, out);
        }
    }

    fn finish(
        &mut self,
        id: Value,
        p: Pending,
        result: &str,
        outcome: LeaseOutcome,
        out: &mut Output,
    ) {
        let Pending::ToolsCall {
            tool,
            permit,
            started,
        } = p
        else {
            return;
        };
        let ms = started.elapsed().as_millis() as u64;
        // Recorded while the governor lease is still live (the record names it), then
        // released.
        let d = Decision {
            decision: result,
            rule: "result",
            method: "tools/call",
            id: &id,
            tool: Some(&tool),
            code: None,
            reason: "",
            targets: Vec::new(),
            lease: permit.as_ref().map(|p| p.lease_id.as_str()),
        };
        self.record(d, out);
        if let (Some(g), Some(p)) = (&self.governor, &permit)
            && let Some(e) = g.release(p, outcome, ms)
        {
            out.log.push(e);
        }
    }

    /// Handles one line from the server.
    pub fn from_server(&mut self, text: &str) -> Output {
        let mut out = Output::default();
        let msg = match jsonrpc::parse(text) {
            Ok(m) => m,
            Err(m) => {
                out.log.push(format!(
                    "dropped a malformed message from the server: {}",
                    m.message
                ));
                return out;
            }
        };
        let Message::Response { id, mut body } = msg else {
            let (Message::Request { body, .. } | Message::Notification { body, .. }) = msg else {
                unreachable!()
            };
            out.to_client.push(line(body));
            return out;
        };
        match self.pending.remove(&id_key(&id)) {
            Some(Pending::ToolsList) => self.filter_list(&mut body, &mut out),
            Some(p @ Pending::ToolsCall { .. }) => {
                let is_error = body.contains_key("error")
                    || body.get("result").and_then(|r| r.get("isError"))
                        == Some(&Value::Bool(true));
                let (r, o) = if is_error {
                    ("toolError", LeaseOutcome::ToolError)
                } else {
                    ("success", LeaseOutcome::Success)
                };
                self.finish(id, p, r, o, &mut out);
            }
            _ => {}
        }
        out.to_client.push(line(body));
        out
    }

    fn filter_list(&mut self, body: &mut Map<String, Value>, out: &mut Output) {
        let Some(Value::Array(tools)) = body.get_mut("result").and_then(|r| r.get_mut("tools"))
        else {
            return;
        };
        let before = tools.len();
        let guard = &self.guard;
        let hidden: Vec<String> = tools
            .iter()
            .filter(|t| {
                !t.get("name")
                    .and_then(Value::as_str)
                    .is_some_and(|n| guard.tool_allowed(n))
            })
            .map(|t| t.get("name").map(Value::to_string).unwrap_or_default())
            .collect();
        if guard.options.monitor {
            if !hidden.is_empty() {
                out.log
                    .push(format!("monitor: would hide tools {}", hidden.join(", ")));
            }
            return;
        }
        tools.retain(|t| {
            t.get("name")
                .and_then(Value::as_str)
                .is_some_and(|n| guard.tool_allowed(n))
        });
        if tools.len() != before {
            out.log
                .push(format!("tools/list: hid {}", hidden.join(", ")));
        }
    }

    /// The server is gone: every request awaiting an answer gets a JSON-RPC error, every
    /// governor permit is released.
    pub fn server_exited(&mut self) -> Output {
        let mut out = Output::default();
        let mut pending: Vec<(String, Pending)> = self.pending.drain().collect();
        pending.sort_by(|a, b| a.0.cmp(&b.0));
        for (key, p) in pending {
            let id: Value = serde_json::from_str(&key).unwrap_or(Value::Null);
            out.to_client.push(jsonrpc::error_line(
                &id,
                jsonrpc::INTERNAL_ERROR,
                "the MCP server exited before answering",
            ));
            self.finish(id, p, "serverExited", LeaseOutcome::ToolError, &mut out);
        }
        out
    }
}

/// The `_meta` key of `tools/call` params that carries an approval token for the governor.
pub const APPROVAL_TOKEN_META: &str = "leasekit/approvalToken";

/// Removes the approval token from `params._meta` (and `_meta` itself when nothing else is
/// left in it). Errors when it is not a non-empty string of at most [`MAX_TEXT_BYTES`] bytes
/// (the message never holds the value).
fn take_approval_token(body: &mut Map<String, Value>) -> Result<Option<String>, String> {
    let Some(Value::Object(params)) = body.get_mut("params") else {
        return Ok(None);
    };
    let Some(Value::Object(meta)) = params.get_mut("_meta") else {
        return Ok(None);
    };
    let Some(token) = meta.remove(APPROVAL_TOKEN_META) else {
        return Ok(None);
    };
    if meta.is_empty() {
        params.remove("_meta");
    }
    match token {
        Value::String(t) if !t.is_empty() && t.len() <= MAX_TEXT_BYTES => Ok(Some(t)),
        _ => Err(format!(
            "params._meta[\"{APPROVAL_TOKEN_META}\"] must be a non-empty string of at most \
             {MAX_TEXT_BYTES} bytes"
        )),
    }
}

/// An id for the governor's record: as it is when within [`MAX_ID_BYTES`], else its SHA-256
/// (`sha256:<hex>`), so a long client value is still identifiable and the record fits.
fn fit_id(v: &str) -> String {
    if v.len() <= MAX_ID_BYTES {
        v.to_string()
    } else {
        use sha2::{Digest, Sha256};
        format!("sha256:{}", hex::encode(Sha256::digest(v.as_bytes())))
    }
}

/// A reason for the governor's record: cut at a character boundary to fit [`MAX_TEXT_BYTES`]
/// (with a note of the full length).
fn fit_text(v: &str) -> String {
    if v.len() <= MAX_TEXT_BYTES {
        return v.to_string();
    }
    let mut end = MAX_TEXT_BYTES - 64;
    while !v.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}... ({} bytes in all)", &v[..end], v.len())
}

/// A method that must be exactly `tools/call` or `resources/read` when it looks like one
/// (case, spaces or a trailing `/` would otherwise slip past the decision).
fn is_guarded_method(method: &str) -> bool {
    let m = method.trim().trim_end_matches('/').to_ascii_lowercase();
    m == "tools/call" || m == "resources/read"
}
