//! The MCP guard for client libraries (Python `leasekit.mcp`, Node `leasekit/mcp`): the same
//! [`Session`] the stdio proxy runs, driven through JSON text in and out, so a binding only
//! converts values. The library wraps an MCP SDK client; every `tools/call` it would send is
//! decided here first, and every `tools/list` answer it receives is filtered here.
//!
//! The calls are fed to the session as the JSON-RPC messages the client would have sent, with
//! request ids of this guard's own, so the library's decisions, denials, audit records and
//! governor charges are exactly the proxy's.
//!
//! JSON shapes (camelCase; unknown keys refused):
//!
//! - configuration: `{"agentfile": TEXT | "lease": OBJECT-or-TEXT, "server"?: NAME,
//!   "argsMap"?: OBJECT-or-TEXT, "strict"?: BOOL, "monitor"?: BOOL, "audit"?: PATH,
//!   "governor"?: {"socket": PATH, "actor"?: ID, "workspace"?: ID, "org"?: ID}}`;
//! - [`ClientGuard::decide_call`] takes the `tools/call` params (`{"name", "arguments"?, ...}`)
//!   and answers `{"decision": "allow", "callId": N, "params": {...canonical...}, "log": [...]}`
//!   or `{"decision": "deny", "code": CODE, "reason": TEXT, "retryAfterMs"?: N,
//!   "result": {CallToolResult with isError: true}, "log": [...]}`;
//! - [`ClientGuard::finish_call`] takes the call id and `success`, `toolError`, `error` or
//!   `cancelled` (the governor release and the audit record of the outcome);
//! - [`ClientGuard::filter_tools`] takes a `tools/list` result and answers
//!   `{"result": {...filtered...}, "log": [...]}`;
//! - [`ClientGuard::decide_resource`] takes a `resources/read` URI and answers
//!   `{"decision": "allow", "uri": CANONICAL, "log": [...]}` or a denial as above (no
//!   `result`).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::jsonrpc::{INVALID_PARAMS, INVALID_REQUEST};
use super::{
    ArgMap, AuditLog, CallGovernor, CallIdentity, DEFAULT_MAX_LINE, McpGuard, McpOptions, Output,
    Session, agentfile_server, valid_tool_name,
};
use crate::agentfile::{ParseOptions, agentfile_lease, parse_agentfile};
use crate::governor::client::{ClientOptions, FallbackMode, GovernorClient};
use crate::{Error, ErrorCode, Lease, LeaseConstraints, LeaseGuard, Result, SystemClock};

/// The governor a [`ClientGuard`] charges every allowed call to: a `leasekit serve` socket.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct GovernorConfig {
    socket: String,
    #[serde(default = "default_actor")]
    actor: String,
    #[serde(default)]
    workspace: String,
    #[serde(default)]
    org: String,
}

fn default_actor() -> String {
    "mcp-guard".to_string()
}

/// The configuration document (see the module docs).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Config {
    agentfile: Option<String>,
    lease: Option<Value>,
    server: Option<String>,
    args_map: Option<Value>,
    #[serde(default)]
    strict: bool,
    #[serde(default)]
    monitor: bool,
    audit: Option<String>,
    governor: Option<GovernorConfig>,
}

/// How a library reports a call's end to [`ClientGuard::finish_call`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallOutcome {
    /// The server answered a result without `isError`.
    Success,
    /// The server answered a result with `isError: true`.
    ToolError,
    /// The call failed: a JSON-RPC error, a lost connection, a timeout.
    Error,
    /// The caller cancelled it.
    Cancelled,
}

impl CallOutcome {
    /// Parses `success`, `toolError`, `error` or `cancelled`.
    pub fn parse(text: &str) -> Result<CallOutcome> {
        match text {
            "success" => Ok(CallOutcome::Success),
            "toolError" => Ok(CallOutcome::ToolError),
            "error" => Ok(CallOutcome::Error),
            "cancelled" => Ok(CallOutcome::Cancelled),
            _ => Err(Error::invalid(format!(
                "call outcome {text:?} is not success, toolError, error or cancelled"
            ))),
        }
    }
}

/// The MCP guard of one client connection, for client libraries. Safe to share between
/// threads (one lock around the session).
pub struct ClientGuard {
    session: Mutex<Session>,
    next_id: AtomicU64,
}

fn text_or_json(v: Value, what: &str) -> Result<String> {
    match v {
        Value::String(s) => Ok(s),
        Value::Object(_) => Ok(v.to_string()),
        _ => Err(Error::invalid(format!(
            "MCP guard: {what} must be an object or JSON text"
        ))),
    }
}

fn parse_line(line: &str) -> Map<String, Value> {
    match serde_json::from_str(line) {
        Ok(Value::Object(m)) => m,
        _ => Map::new(),
    }
}

fn with_log(mut answer: Map<String, Value>, log: Vec<String>) -> String {
    answer.insert("log".into(), json!(log));
    Value::Object(answer).to_string()
}

/// A denial answer from a JSON-RPC error line (the message itself was refused).
fn malformed_denial(error: &Value) -> Map<String, Value> {
    let reason = error["message"].as_str().unwrap_or("refused").to_string();
    let code = match error["code"].as_i64() {
        Some(INVALID_PARAMS) | Some(INVALID_REQUEST) => ErrorCode::InvalidRequest,
        _ => ErrorCode::InternalError,
    };
    let line = super::jsonrpc::tool_error_line(&Value::Null, code.as_str(), &reason, None);
    let result = parse_line(&line).remove("result").unwrap_or(Value::Null);
    let mut m = Map::new();
    m.insert("decision".into(), json!("deny"));
    m.insert("code".into(), json!(code.as_str()));
    m.insert("reason".into(), json!(reason));
    m.insert("result".into(), result);
    m
}

/// A denial answer from a tool-error line.
fn tool_denial(result: Value) -> Map<String, Value> {
    let meta = result["_meta"]["leasekit"].clone();
    let mut m = Map::new();
    m.insert("decision".into(), json!("deny"));
    m.insert("code".into(), meta["code"].clone());
    m.insert("reason".into(), meta["reason"].clone());
    if let Some(ms) = meta.get("retryAfterMs") {
        m.insert("retryAfterMs".into(), ms.clone());
    }
    m.insert("result".into(), result);
    m
}

impl ClientGuard {
    /// Builds a guard from the configuration document (see the module docs). Errors:
    /// `INVALID_REQUEST` for a malformed document, Agentfile, lease, argument map or server
    /// name; the audit file's errors when it cannot be opened or does not verify.
    pub fn from_json(config: &str) -> Result<ClientGuard> {
        let c: Config = serde_json::from_str(config)
            .map_err(|e| Error::invalid(format!("MCP guard configuration: {e}")))?;
        let (lease, declared) = match (c.agentfile, c.lease) {
            (Some(text), None) => {
                let af = parse_agentfile(&text, &ParseOptions { compat: false });
                (agentfile_lease(&af)?, Some(agentfile_server(&af)))
            }
            (None, Some(l)) => (Lease::from_json(&text_or_json(l, "lease")?)?, None),
            _ => {
                return Err(Error::invalid(
                    "MCP guard configuration: give exactly one of agentfile and lease",
                ));
            }
        };
        let server = match (c.server, declared) {
            (Some(s), _) => s,
            (None, Some(r)) => r?,
            (None, None) => {
                return Err(Error::invalid(
                    "MCP guard configuration: with a lease, give server",
                ));
            }
        };
        if !valid_tool_name(&server) || server.contains(['.', '/']) {
            return Err(Error::invalid(format!(
                "MCP guard configuration: server {server:?} is not a plain server name"
            )));
        }
        let mut map = ArgMap::builtin();
        if let Some(m) = c.args_map {
            map.extend(ArgMap::from_json(&text_or_json(m, "argsMap")?)?);
        }
        let mut options = McpOptions::new(&server);
        options.strict = c.strict;
        options.monitor = c.monitor;
        let governor = c.governor.map(|g| {
            // Fail closed: an unreachable governor denies, it never falls back to local grants.
            let copts = ClientOptions {
                fallback: FallbackMode::Off,
                ..ClientOptions::default()
            };
            CallGovernor::new(
                Box::new(GovernorClient::with_options(&g.socket, copts)),
                CallIdentity {
                    org_id: g.org,
                    actor_id: g.actor,
                    workspace_id: g.workspace,
                },
            )
        });
        let audit = match c.audit {
            Some(p) => Some(AuditLog::open(std::path::Path::new(&p))?),
            None => None,
        };
        let clock = Arc::new(SystemClock);
        let lease = LeaseGuard::new(lease, LeaseConstraints::none(), clock.clone());
        let guard = McpGuard::new(lease, map, options);
        Ok(ClientGuard {
            session: Mutex::new(Session::new(guard, governor, audit, clock)),
            next_id: AtomicU64::new(1),
        })
    }

    /// The server name the guard checks calls against (`mcp:<server>.<tool>`).
    pub fn server(&self) -> String {
        self.lock().guard().options().server.clone()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Session> {
        self.session.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn request(&self, method: &str, params: Value) -> (u64, Output) {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let line = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        (id, self.lock().from_client(&line.to_string()))
    }

    fn respond(&self, id: u64, body: Value) -> Output {
        let mut line = json!({"jsonrpc": "2.0", "id": id});
        if let (Value::Object(l), Value::Object(b)) = (&mut line, body) {
            l.extend(b);
        }
        self.lock().from_server(&line.to_string())
    }

    /// Decides the params of one `tools/call` (JSON text). See the module docs for the answer.
    /// A malformed call (not JSON, nested deeper than 128, over [`DEFAULT_MAX_LINE`] bytes,
    /// not an object, arguments not an object) is a denial (`INVALID_REQUEST`), never
    /// forwarded.
    pub fn decide_call(&self, params: &str) -> String {
        if params.len() > DEFAULT_MAX_LINE {
            let out = self.lock().refuse(&format!(
                "tools/call params of {} bytes exceed {DEFAULT_MAX_LINE}",
                params.len()
            ));
            let mut reply = parse_line(out.to_client.first().map_or("", String::as_str));
            let error = reply.remove("error").unwrap_or(Value::Null);
            return with_log(malformed_denial(&error), out.log);
        }
        let params: Value = match serde_json::from_str(params) {
            Ok(v) => v,
            Err(e) => {
                let error =
                    json!({"code": INVALID_PARAMS, "message": format!("tools/call params: {e}")});
                return with_log(malformed_denial(&error), Vec::new());
            }
        };
        let (id, out) = self.request("tools/call", params);
        let answer = if let Some(fwd) = out.to_server.first() {
            let mut m = Map::new();
            m.insert("decision".into(), json!("allow"));
            m.insert("callId".into(), json!(id));
            let params = parse_line(fwd).remove("params").unwrap_or(Value::Null);
            m.insert("params".into(), params);
            m
        } else {
            let mut reply = parse_line(out.to_client.first().map_or("", String::as_str));
            match (reply.remove("result"), reply.remove("error")) {
                (Some(result), _) => tool_denial(result),
                (None, Some(error)) => malformed_denial(&error),
                (None, None) => malformed_denial(&json!({"code": -32603, "message":
                    "the guard produced no answer"})),
            }
        };
        with_log(answer, out.log)
    }

    /// Reports the end of an allowed call: the governor's `Release` (when one is configured)
    /// and the audit record of the outcome. Unknown ids are ignored. Answers the log lines as
    /// a JSON array.
    pub fn finish_call(&self, call_id: u64, outcome: CallOutcome) -> String {
        let out = match outcome {
            CallOutcome::Success => self.respond(call_id, json!({"result": {}})),
            CallOutcome::ToolError => self.respond(call_id, json!({"result": {"isError": true}})),
            CallOutcome::Error => self.respond(
                call_id,
                json!({"error": {"code": -32603, "message": "the call failed"}}),
            ),
            CallOutcome::Cancelled => {
                let n = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                    "params": {"requestId": call_id}});
                self.lock().from_client(&n.to_string())
            }
        };
        json!(out.log).to_string()
    }

    /// Filters a `tools/list` result (JSON text) to the tools the lease allows (under
    /// `monitor`, logs what it would hide and hides nothing).
    pub fn filter_tools(&self, result: &str) -> Result<String> {
        let result: Value = serde_json::from_str(result)
            .map_err(|e| Error::invalid(format!("tools/list result: {e}")))?;
        if !result.is_object() {
            return Err(Error::invalid("tools/list result must be an object"));
        }
        let (id, mut out) = self.request("tools/list", json!({}));
        let answered = self.respond(id, json!({"result": result}));
        out.log.extend(answered.log);
        let filtered = answered
            .to_client
            .first()
            .map(|l| parse_line(l).remove("result").unwrap_or(Value::Null))
            .unwrap_or(Value::Null);
        let mut m = Map::new();
        m.insert("result".into(), filtered);
        Ok(with_log(m, out.log))
    }

    /// Decides the URI of one `resources/read`: `file://` as `fs.read`, `http(s)://` as
    /// `net.fetch`, other schemes pass unless strict. See the module docs for the answer.
    pub fn decide_resource(&self, uri: &str) -> String {
        let (id, out) = self.request("resources/read", json!({"uri": uri}));
        let mut m = Map::new();
        if let Some(fwd) = out.to_server.first() {
            let uri = parse_line(fwd)
                .remove("params")
                .and_then(|p| p.get("uri").cloned())
                .unwrap_or(Value::Null);
            self.respond(id, json!({"result": {}}));
            m.insert("decision".into(), json!("allow"));
            m.insert("uri".into(), uri);
        } else {
            let mut reply = parse_line(out.to_client.first().map_or("", String::as_str));
            let error = reply.remove("error").unwrap_or(Value::Null);
            let message = error["message"].as_str().unwrap_or("refused");
            // The proxy answers `CODE: reason` as a JSON-RPC error; split it back.
            let (code, reason) = match message.split_once(": ") {
                Some((c, r)) if ErrorCode::parse(c).is_some() => (c.to_string(), r.to_string()),
                _ => ("INVALID_REQUEST".to_string(), message.to_string()),
            };
            m.insert("decision".into(), json!("deny"));
            m.insert("code".into(), json!(code));
            m.insert("reason".into(), json!(reason));
        }
        with_log(m, out.log)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn world(tag: &str) -> (std::path::PathBuf, ClientGuard) {
        let d = std::env::temp_dir().join(format!("leasekit-facade-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(d.join("data/out")).unwrap();
        let d = std::fs::canonicalize(&d).unwrap();
        let af = format!(
            "AGENT t\nMCP fs\nTOOL mcp:fs.read_text_file\nTOOL mcp:fs.write_file\n\
             MOUNT {0}/data ro\nMOUNT {0}/data/out rw\n",
            d.display()
        );
        let audit = d.join("audit.jsonl");
        let cfg = json!({"agentfile": af, "audit": audit});
        (d, ClientGuard::from_json(&cfg.to_string()).unwrap())
    }

    fn decide(g: &ClientGuard, params: Value) -> Value {
        serde_json::from_str(&g.decide_call(&params.to_string())).unwrap()
    }

    #[test]
    fn an_allowed_call_carries_the_canonical_path_and_a_denial_the_tool_error() {
        let (d, g) = world("allow");
        assert_eq!(g.server(), "fs");
        let p = format!("{}/data/./x/../a.txt", d.display());
        let a = decide(
            &g,
            json!({"name": "read_text_file", "arguments": {"path": p}}),
        );
        assert_eq!(a["decision"], "allow", "{a}");
        let canonical = format!("{}/data/a.txt", d.display());
        assert_eq!(a["params"]["arguments"]["path"], json!(canonical));
        let id = a["callId"].as_u64().unwrap();
        g.finish_call(id, CallOutcome::Success);

        let p = format!("{}/data/../secret", d.display());
        let n = decide(
            &g,
            json!({"name": "read_text_file", "arguments": {"path": p}}),
        );
        assert_eq!(n["decision"], "deny");
        assert_eq!(n["code"], "PERMISSION_DENIED");
        assert_eq!(n["result"]["isError"], true);
        let text = n["result"]["content"][0]["text"].as_str().unwrap();
        assert!(text.contains("PERMISSION_DENIED"), "{text}");

        let w = format!("{}/data/planted", d.display());
        let n = decide(
            &g,
            json!({"name": "write_file", "arguments": {"path": w, "content": ""}}),
        );
        assert_eq!(n["decision"], "deny", "{n}");
        let n = decide(&g, json!({"name": "move_file", "arguments": {}}));
        assert_eq!(n["code"], "PERMISSION_DENIED");

        // The audit chain verifies: one allow, its result, three denials.
        let text = std::fs::read_to_string(d.join("audit.jsonl")).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 5, "{text}");
        assert!(crate::governor::audit::verify_audit(lines.iter().copied()).ok);
    }

    #[test]
    fn malformed_params_are_denials_never_forwarded() {
        let (_d, g) = world("malformed");
        for params in [
            "not json".to_string(),
            json!([1]).to_string(),
            json!({"name": "read_text_file", "arguments": "x"}).to_string(),
            json!({"name": "read_text_file", "arguments": {"path": 7}}).to_string(),
            json!({"name": "read_text_file", "arguments": {"path": "a".repeat(DEFAULT_MAX_LINE)}})
                .to_string(),
            format!("{}{}", "[".repeat(200), "]".repeat(200)),
        ] {
            let a: Value = serde_json::from_str(&g.decide_call(&params)).unwrap();
            assert_eq!(a["decision"], "deny", "{a}");
            assert_eq!(a["code"], "INVALID_REQUEST", "{a}");
            assert_eq!(a["result"]["isError"], true, "{a}");
        }
    }

    #[test]
    fn tools_are_filtered_and_resources_decided() {
        let (d, g) = world("filter");
        let list = json!({"tools": [{"name": "read_text_file"}, {"name": "move_file"}],
                          "nextCursor": "c"});
        let a: Value = serde_json::from_str(&g.filter_tools(&list.to_string()).unwrap()).unwrap();
        assert_eq!(
            a["result"],
            json!({"tools": [{"name": "read_text_file"}], "nextCursor": "c"})
        );
        assert!(g.filter_tools("[]").is_err());
        let ok = format!("file://{}/data/a.txt", d.display());
        let a: Value = serde_json::from_str(&g.decide_resource(&ok)).unwrap();
        assert_eq!(a["decision"], "allow", "{a}");
        let a: Value = serde_json::from_str(&g.decide_resource("file:///etc/passwd")).unwrap();
        assert_eq!(a["decision"], "deny");
        assert_eq!(a["code"], "PERMISSION_DENIED", "{a}");
    }

    #[test]
    fn a_bad_configuration_is_refused() {
        for cfg in [
            json!({}),
            json!({"agentfile": "AGENT a\n", "lease": {}}),
            json!({"lease": {"tool.call": ["mcp:fs.x"]}}),
            json!({"lease": {"tool.call": ["mcp:fs.x"]}, "server": "a.b"}),
            json!({"agentfile": "AGENT a\nMCP fs\n", "surprise": 1}),
        ] {
            let e = ClientGuard::from_json(&cfg.to_string()).err().unwrap();
            assert_eq!(e.code(), ErrorCode::InvalidRequest, "{cfg}");
        }
        assert!(CallOutcome::parse("maybe").is_err());
    }
}
