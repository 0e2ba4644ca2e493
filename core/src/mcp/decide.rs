//! The decision on one `tools/call` (and on `resources/read`): the tool name under
//! `tool.call`, then every mapped argument under its capability, giving the arguments the
//! server is to receive (canonical, symlinks resolved).

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::McpGuard;
use crate::{Error, ErrorCode, Result};

/// Most strings one list argument may hold.
pub const MAX_LIST_ITEMS: usize = 1024;
/// Longest tool name accepted (MCP's recommended bound).
pub const MAX_TOOL_NAME: usize = 128;

/// Why a call is refused.
#[derive(Debug, Clone, PartialEq)]
pub enum Refusal {
    /// The message itself is wrong: answered with a JSON-RPC error.
    Params(String),
    /// The lease, the map or the governor refuse it: answered with a tool error.
    Denied {
        /// The ARCP code.
        code: ErrorCode,
        /// The rule that decided: `tool-name`, `tool.call`, `unmapped`, `argument`, `governor`.
        rule: &'static str,
        /// Why (names the capability and canonical target when there is one).
        reason: String,
        /// When the governor says to retry.
        retry_after_ms: Option<u64>,
    },
}

/// An allowed call: what is forwarded.
#[derive(Debug, Clone, PartialEq)]
pub struct Allowed {
    /// The tool.
    pub tool: String,
    /// The arguments to forward (mapped ones replaced by their canonical targets).
    pub arguments: Option<Map<String, Value>>,
    /// `capability target` of every authorized argument.
    pub targets: Vec<String>,
    /// `mapped` or `name-only` (an unmapped tool outside `--strict`).
    pub rule: &'static str,
}

fn deny(code: ErrorCode, rule: &'static str, reason: impl Into<String>) -> Refusal {
    Refusal::Denied {
        code,
        rule,
        reason: reason.into(),
        retry_after_ms: None,
    }
}

fn from_error(rule: &'static str, e: &Error) -> Refusal {
    deny(e.code(), rule, e.message().to_string())
}

/// A tool name MCP recommends: 1-128 of `A-Z a-z 0-9 _ - . /`. Anything else (percent
/// escapes, spaces, Unicode look-alikes, control characters) is refused.
pub fn valid_tool_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= MAX_TOOL_NAME
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b'/'))
}

/// Whether a path holds a percent-escape of `.`, `/` or `\`, which some server might decode
/// into a traversal the lease never saw.
fn has_encoded_separator(s: &str) -> bool {
    let lower = s.to_ascii_lowercase();
    ["%2e", "%2f", "%5c"].iter().any(|p| lower.contains(p))
}

/// The real path of `path` (absolute, lexically canonical): the deepest existing ancestor
/// resolved through every symlink, the rest appended. A dangling symlink on the way is
/// refused (writing through it would create its target).
pub fn resolve_real_path(path: &str) -> Result<String> {
    let mut existing = PathBuf::from(path);
    let mut rest: Vec<std::ffi::OsString> = Vec::new();
    loop {
        match std::fs::canonicalize(&existing) {
            Ok(mut real) => {
                for c in rest.iter().rev() {
                    real.push(c);
                }
                return real.into_os_string().into_string().map_err(|_| {
                    Error::invalid(format!("{path:?} resolves to a path that is not UTF-8"))
                });
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                if std::fs::symlink_metadata(&existing).is_ok() {
                    return Err(Error::new(
                        ErrorCode::PermissionDenied,
                        format!(
                            "{:?} is a symbolic link whose target does not exist",
                            existing.display().to_string()
                        ),
                    ));
                }
                let (Some(name), Some(parent)) = (existing.file_name(), existing.parent()) else {
                    return Err(Error::invalid(format!("cannot resolve {path:?}")));
                };
                rest.push(name.to_os_string());
                existing = Path::new(parent).to_path_buf();
            }
            Err(e) => {
                return Err(Error::new(
                    ErrorCode::PermissionDenied,
                    format!("cannot resolve {path:?}: {e}"),
                ));
            }
        }
    }
}

impl McpGuard {
    /// Authorizes one target under `capability` and answers the target to forward.
    pub fn check_target(&self, capability: &str, target: &str) -> Result<String> {
        let fs = matches!(capability, "fs.read" | "fs.write");
        if fs && has_encoded_separator(target) {
            return Err(Error::invalid(format!(
                "{capability} {target:?}: a percent-escaped '.', '/' or '\\' is refused (a \
                 server might decode it)"
            )));
        }
        let canonical = self.lease.authorize(capability, target)?;
        if !fs || !self.options.resolve_symlinks {
            return Ok(canonical);
        }
        let real = resolve_real_path(&canonical)?;
        if real != canonical {
            self.lease.authorize(capability, &real)?;
        }
        Ok(real)
    }

    /// The `tool.call` target of `tool` on this guard's server: `mcp:<server>.<tool>`.
    pub fn tool_target(&self, tool: &str) -> String {
        format!("mcp:{}.{}", self.options.server, tool)
    }

    /// Whether the lease allows calling `tool` by name (the `tools/list` filter; under
    /// `strict`, the tool must also be mapped).
    pub fn tool_allowed(&self, tool: &str) -> bool {
        valid_tool_name(tool)
            && self
                .lease
                .authorize("tool.call", &self.tool_target(tool))
                .is_ok()
            && (!self.options.strict || self.map.rules(tool).is_some())
    }

    /// Decides the `params` of a `tools/call`.
    pub fn decide_call(&self, params: Option<&Value>) -> std::result::Result<Allowed, Refusal> {
        let Some(Value::Object(params)) = params else {
            return Err(Refusal::Params(
                "tools/call params must be an object".into(),
            ));
        };
        let Some(Value::String(tool)) = params.get("name") else {
            return Err(Refusal::Params(
                "tools/call params.name must be a string".into(),
            ));
        };
        let arguments = match params.get("arguments") {
            None => None,
            Some(Value::Object(a)) => Some(a.clone()),
            Some(_) => {
                return Err(Refusal::Params(
                    "tools/call params.arguments must be an object".into(),
                ));
            }
        };
        if !valid_tool_name(tool) {
            return Err(deny(
                ErrorCode::InvalidRequest,
                "tool-name",
                format!(
                    "tool name {tool:?} is not 1-{MAX_TOOL_NAME} characters of A-Z a-z 0-9 _ - . /"
                ),
            ));
        }
        let target = self.tool_target(tool);
        if let Err(e) = self.lease.authorize("tool.call", &target) {
            return Err(from_error("tool.call", &e));
        }
        let Some(rules) = self.map.rules(tool) else {
            if self.options.strict {
                return Err(deny(
                    ErrorCode::PermissionDenied,
                    "unmapped",
                    format!("{target} has no argument map and the guard is strict"),
                ));
            }
            return Ok(Allowed {
                tool: tool.clone(),
                arguments,
                targets: Vec::new(),
                rule: "name-only",
            });
        };
        let mut args = arguments.unwrap_or_default();
        let mut targets = Vec::new();
        for r in rules {
            let value = match args.get(&r.argument) {
                None if r.optional => continue,
                None => {
                    return Err(deny(
                        ErrorCode::InvalidRequest,
                        "argument",
                        format!(
                            "{target}: argument {:?} ({}) is missing",
                            r.argument, r.capability
                        ),
                    ));
                }
                Some(v) => v,
            };
            let items: Vec<&str> = match (value, r.list) {
                (Value::String(s), false) => vec![s.as_str()],
                (Value::Array(a), true) if a.len() <= MAX_LIST_ITEMS => {
                    match a.iter().map(Value::as_str).collect::<Option<Vec<_>>>() {
                        Some(v) => v,
                        None => return Err(not_strings(&target, &r.argument)),
                    }
                }
                _ => return Err(not_strings(&target, &r.argument)),
            };
            let mut out = Vec::with_capacity(items.len());
            for item in items {
                match self.check_target(&r.capability, item) {
                    Ok(c) => {
                        targets.push(format!("{} {}", r.capability, c));
                        out.push(Value::String(c));
                    }
                    Err(e) => {
                        return Err(deny(
                            e.code(),
                            "argument",
                            format!("{target}: argument {:?}: {}", r.argument, e.message()),
                        ));
                    }
                }
            }
            let new = if r.list {
                Value::Array(out)
            } else {
                out.pop().unwrap_or(Value::Null)
            };
            args.insert(r.argument.clone(), new);
        }
        Ok(Allowed {
            tool: tool.clone(),
            arguments: Some(args),
            targets,
            rule: "mapped",
        })
    }

    /// Decides the `uri` of a `resources/read`: `file://` URIs are authorized as `fs.read`
    /// of their path (no percent-escape, query or fragment accepted), `http(s)://` URIs as
    /// `net.fetch`; other schemes pass unless the guard is strict. Answers the URI to forward.
    pub fn decide_resource(
        &self,
        params: Option<&Value>,
    ) -> std::result::Result<(String, String), Refusal> {
        let Some(Value::String(uri)) = params.and_then(|p| p.get("uri")) else {
            return Err(Refusal::Params(
                "resources/read params.uri must be a string".into(),
            ));
        };
        let lower = uri.get(..8).unwrap_or(uri).to_ascii_lowercase();
        if let Some(path) = uri.get(7..).filter(|_| lower.starts_with("file://")) {
            if path.contains(['%', '?', '#']) {
                return Err(deny(
                    ErrorCode::InvalidRequest,
                    "resource",
                    format!("resource {uri:?}: a file URI with '%', '?' or '#' is refused"),
                ));
            }
            return match self.check_target("fs.read", path) {
                Ok(c) => Ok((format!("file://{c}"), format!("fs.read {c}"))),
                Err(e) => Err(from_error("resource", &e)),
            };
        }
        if lower.starts_with("http://") || lower.starts_with("https://") {
            return match self.check_target("net.fetch", uri) {
                Ok(c) => Ok((c.clone(), format!("net.fetch {c}"))),
                Err(e) => Err(from_error("resource", &e)),
            };
        }
        if self.options.strict {
            return Err(deny(
                ErrorCode::PermissionDenied,
                "resource",
                format!(
                    "resource {uri:?}: only file and http(s) URIs are checked, and the guard is strict"
                ),
            ));
        }
        Ok((uri.clone(), String::new()))
    }
}

fn not_strings(target: &str, argument: &str) -> Refusal {
    deny(
        ErrorCode::InvalidRequest,
        "argument",
        format!(
            "{target}: argument {argument:?} must be a string (or, for a list, at most \
             {MAX_LIST_ITEMS} strings)"
        ),
    )
}
