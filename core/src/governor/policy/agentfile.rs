//! `Policy::from_agentfile` (SEMANTICS 13.9): an Agentfile compiles to a policy.

use serde_json::{Map, Value, json};

use super::Policy;
use crate::Error;
use crate::agentfile::{Agentfile, agentfile_lease, policy_sources};

fn fail(line: usize, msg: impl std::fmt::Display) -> Error {
    Error::invalid(format!("line {line}: {msg}")).with_detail("line", line as u64)
}

/// Compiles an Agentfile to policy JSON. A directive that cannot be compiled fails with its
/// line; an Agentfile with errors fails.
pub fn agentfile_policy_json(af: &Agentfile) -> crate::Result<Value> {
    if let Some(d) = af.diagnostics().iter().find(|d| d.is_error()) {
        return Err(fail(
            d.line,
            format!("the Agentfile has errors: {}", d.message),
        ));
    }
    let mut m = Map::new();
    let mut registry = Vec::new();
    let mut roots = Vec::new();
    let mut hosts: Vec<String> = Vec::new();
    let mut rate_limits = Vec::new();
    let mut denied = Vec::new();
    for d in af.directives() {
        let line = d.line;
        match d.name.as_ref() {
            "TOOL" => {
                let t = d.arg(0).ok_or_else(|| fail(line, "TOOL needs a tool"))?;
                registry.push(json!({"toolId": t, "category": "other"}));
            }
            "MOUNT" => {
                let p = d.arg(0).ok_or_else(|| fail(line, "MOUNT needs a path"))?;
                roots.push(Value::from(p));
            }
            "URL" | "SERVER" => {
                let u = if d.name == "URL" { d.arg(0) } else { d.arg(1) };
                let u = u.ok_or_else(|| fail(line, "URL needs a URL"))?;
                let host = u
                    .split_once("://")
                    .map(|(_, rest)| rest.split(['/', '?', '#']).next().unwrap_or(""))
                    .map(|auth| match auth.rsplit_once(':') {
                        Some((h, port)) if port.bytes().all(|b| b.is_ascii_digit()) => h,
                        _ => auth,
                    })
                    .filter(|h| !h.is_empty())
                    .ok_or_else(|| fail(line, format!("cannot take a host from {u:?}")))?;
                let host = host.trim_end_matches('.').to_ascii_lowercase();
                if !hosts.contains(&host) {
                    hosts.push(host);
                }
            }
            "LIMIT" => {
                let (k, v) = (d.arg(0), d.arg(1));
                let n = v
                    .and_then(|v| v.parse::<u64>().ok())
                    .ok_or_else(|| fail(line, "LIMIT needs a non-negative integer"))?;
                match k {
                    Some("tool_calls") => {
                        m.insert("maxToolCallsPerLease".into(), n.into());
                    }
                    Some("max_output") => {
                        m.insert("maxToolOutputBytes".into(), n.into());
                    }
                    Some(other) => {
                        return Err(fail(
                            line,
                            format!("LIMIT {other} cannot be compiled to a policy"),
                        ));
                    }
                    None => return Err(fail(line, "LIMIT needs a name")),
                }
            }
            "TIMEOUT" => {
                let t = d.arg(0).unwrap_or("");
                let digits = t.bytes().take_while(u8::is_ascii_digit).count();
                let n: u64 = t[..digits]
                    .parse()
                    .map_err(|_| fail(line, format!("TIMEOUT {t:?} is not a duration")))?;
                let ms = match &t[digits..] {
                    "ms" => n,
                    "s" | "" => n * 1000,
                    "m" => n * 60_000,
                    "h" => n * 3_600_000,
                    other => return Err(fail(line, format!("TIMEOUT unit {other:?}"))),
                };
                m.insert("defaultToolTimeoutMs".into(), ms.into());
            }
            "RATELIMIT" => {
                let tool = d
                    .arg(0)
                    .ok_or_else(|| fail(line, "RATELIMIT needs a tool"))?;
                let rate = d.arg(1).unwrap_or("");
                let (count, unit) = rate
                    .split_once('/')
                    .ok_or_else(|| fail(line, format!("RATELIMIT {rate:?} is not N/unit")))?;
                let calls: u64 = count
                    .parse()
                    .map_err(|_| fail(line, format!("RATELIMIT count {count:?}")))?;
                let window_ms: u64 = match unit {
                    "s" | "sec" | "second" => 1_000,
                    "m" | "min" | "minute" => 60_000,
                    "h" | "hour" => 3_600_000,
                    "d" | "day" => 86_400_000,
                    other => return Err(fail(line, format!("RATELIMIT unit {other:?}"))),
                };
                rate_limits.push(json!({"toolId": tool, "calls": calls, "windowMs": window_ms}));
            }
            "DENY" if d.arg(0) == Some("invoke") => {
                if let Some(t) = d.arg(1) {
                    denied.push(Value::from(t));
                }
            }
            "AUDIT" => {
                if let Some(a) = d.arg(0) {
                    m.insert("auditLevel".into(), a.into());
                }
            }
            "AGENT" => {
                if let Some(a) = d.arg(0) {
                    m.insert("agentName".into(), a.into());
                }
            }
            _ => {}
        }
    }
    let lease = agentfile_lease(af).map_err(|e| fail(0, e.message()))?;
    m.insert("leaseCeiling".into(), lease.to_value());
    m.insert("toolRegistry".into(), Value::Array(registry));
    m.insert("allowedFileRoots".into(), Value::Array(roots));
    m.insert(
        "allowedNetworkHosts".into(),
        Value::Array(hosts.into_iter().map(Value::from).collect()),
    );
    if !rate_limits.is_empty() {
        m.insert("toolRateLimits".into(), Value::Array(rate_limits));
    }
    if !denied.is_empty() {
        m.insert("deniedTools".into(), Value::Array(denied));
    }
    let cedar: Vec<String> = policy_sources(af)
        .into_iter()
        .filter(|s| !s.id.starts_with("ratelimit@"))
        .map(|s| s.text)
        .collect();
    if !cedar.is_empty() {
        m.insert("cedarPolicies".into(), Value::from(cedar.join("\n")));
    }
    Ok(Value::Object(m))
}

impl Policy {
    /// Compiles an Agentfile to a policy (SEMANTICS 13.9).
    pub fn from_agentfile(af: &Agentfile) -> crate::Result<Policy> {
        Policy::from_value(agentfile_policy_json(af)?)
    }
}
