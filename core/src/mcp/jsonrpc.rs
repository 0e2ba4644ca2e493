//! JSON-RPC 2.0 framing for the MCP guard: parsing one message, and the answers it sends.

use serde_json::{Map, Value, json};

/// Parse error.
pub const PARSE_ERROR: i64 = -32700;
/// Invalid request.
pub const INVALID_REQUEST: i64 = -32600;
/// Method not found.
pub const METHOD_NOT_FOUND: i64 = -32601;
/// Invalid params.
pub const INVALID_PARAMS: i64 = -32602;
/// Internal error (used when the server exits with a call in flight).
pub const INTERNAL_ERROR: i64 = -32603;

/// One parsed message.
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    /// A request: it has a `method` and an `id`.
    Request {
        /// The id (a string or an integer).
        id: Value,
        /// The method.
        method: String,
        /// The whole message.
        body: Map<String, Value>,
    },
    /// A notification: a `method`, no `id`.
    Notification {
        /// The method.
        method: String,
        /// The whole message.
        body: Map<String, Value>,
    },
    /// A response: an `id` with `result` or `error`, no `method`.
    Response {
        /// The id.
        id: Value,
        /// The whole message.
        body: Map<String, Value>,
    },
}

/// Why a line is not a message: the JSON-RPC code, a message, and the id when one was read.
#[derive(Debug, Clone, PartialEq)]
pub struct Malformed {
    /// JSON-RPC error code.
    pub code: i64,
    /// What is wrong.
    pub message: String,
    /// The request's id, when it had a valid one (else the answer has `id: null`).
    pub id: Value,
}

fn bad(code: i64, message: impl Into<String>, id: Value) -> Malformed {
    Malformed {
        code,
        message: message.into(),
        id,
    }
}

/// A valid id: a string or an integer (MCP forbids `null`; fractions are refused).
pub fn valid_id(v: &Value) -> bool {
    match v {
        Value::String(_) => true,
        Value::Number(n) => n.is_i64() || n.is_u64(),
        _ => false,
    }
}

/// Parses one line. Batches (arrays) are refused: the guard decides one message at a time.
pub fn parse(line: &str) -> Result<Message, Malformed> {
    let v: Value = serde_json::from_str(line)
        .map_err(|e| bad(PARSE_ERROR, format!("parse error: {e}"), Value::Null))?;
    let body = match v {
        Value::Object(m) => m,
        Value::Array(_) => {
            return Err(bad(
                INVALID_REQUEST,
                "batch messages are not accepted: send one message per line",
                Value::Null,
            ));
        }
        _ => {
            return Err(bad(
                INVALID_REQUEST,
                "a message must be an object",
                Value::Null,
            ));
        }
    };
    let id = match body.get("id") {
        None => None,
        Some(i) if valid_id(i) => Some(i.clone()),
        Some(_) => {
            return Err(bad(
                INVALID_REQUEST,
                "id must be a string or an integer",
                Value::Null,
            ));
        }
    };
    let answer_id = id.clone().unwrap_or(Value::Null);
    if body.get("jsonrpc") != Some(&Value::String("2.0".into())) {
        return Err(bad(INVALID_REQUEST, "jsonrpc must be \"2.0\"", answer_id));
    }
    match (body.get("method"), id) {
        (Some(Value::String(m)), Some(id)) => {
            if body.contains_key("result") || body.contains_key("error") {
                return Err(bad(INVALID_REQUEST, "a request has no result or error", id));
            }
            Ok(Message::Request {
                id,
                method: m.clone(),
                body,
            })
        }
        (Some(Value::String(m)), None) => Ok(Message::Notification {
            method: m.clone(),
            body,
        }),
        (Some(_), _) => Err(bad(INVALID_REQUEST, "method must be a string", answer_id)),
        (None, Some(id)) => {
            if body.contains_key("result") == body.contains_key("error") {
                return Err(bad(
                    INVALID_REQUEST,
                    "a response has exactly one of result and error",
                    id,
                ));
            }
            Ok(Message::Response { id, body })
        }
        (None, None) => Err(bad(
            INVALID_REQUEST,
            "a message has a method or an id",
            Value::Null,
        )),
    }
}

/// A JSON-RPC error answer.
pub fn error_line(id: &Value, code: i64, message: &str) -> String {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}}).to_string()
}

/// A tool result with `isError: true` naming the ARCP code and reason.
pub fn tool_error_line(
    id: &Value,
    code: &str,
    reason: &str,
    retry_after_ms: Option<u64>,
) -> String {
    let mut meta = json!({"code": code, "reason": reason});
    if let Some(ms) = retry_after_ms {
        meta["retryAfterMs"] = json!(ms);
    }
    let text = match retry_after_ms {
        Some(ms) => format!("leasekit mcp-guard: {code}: {reason} (retryAfterMs: {ms})"),
        None => format!("leasekit mcp-guard: {code}: {reason}"),
    };
    json!({"jsonrpc": "2.0", "id": id, "result": {
        "content": [{"type": "text", "text": text}],
        "isError": true,
        "_meta": {"leasekit": meta}
    }})
    .to_string()
}
