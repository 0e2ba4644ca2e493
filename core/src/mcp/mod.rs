//! The MCP guard: a lease (or an Agentfile's derived lease) enforced on every Model Context
//! Protocol message a client sends a server, independent of the transport.
//!
//! - `tools/call` is forwarded only when `tool.call` covers `mcp:<server>.<tool>` and every
//!   argument the [`ArgMap`] names passes `authorize` for its capability; the forwarded
//!   arguments are the canonical targets, with symlinks resolved, so the server operates on
//!   what was granted. A denial is answered as a tool result with `isError: true` naming the
//!   ARCP code and the reason; it never reaches the server.
//! - `tools/list` answers are filtered to the tools the lease allows.
//! - `resources/read`: `file://` URIs are authorized as `fs.read`, `http(s)://` as `net.fetch`.
//! - Malformed JSON-RPC (and batches) get a JSON-RPC error; everything else passes unchanged,
//!   re-serialized from what was parsed (the server sees exactly what was decided).
//!
//! ```
//! use leasekit::mcp::{ArgMap, McpGuard, McpOptions, Session};
//! use leasekit::{Lease, LeaseConstraints, LeaseGuard, SystemClock};
//! use std::sync::Arc;
//! let lease = Lease::from_json(r#"{"tool.call": ["mcp:fs.read_text_file"],
//!     "fs.read": ["/srv/data/**"]}"#).unwrap();
//! let guard = LeaseGuard::new(lease, LeaseConstraints::none(), Arc::new(SystemClock));
//! let mcp = McpGuard::new(guard, ArgMap::builtin(), McpOptions::new("fs"));
//! let mut s = Session::new(mcp, None, None, Arc::new(SystemClock));
//! let out = s.from_client(r#"{"jsonrpc":"2.0","id":1,"method":"tools/call",
//!     "params":{"name":"read_text_file","arguments":{"path":"/srv/data/../../etc/passwd"}}}"#);
//! assert!(out.to_server.is_empty());
//! assert!(out.to_client[0].contains("PERMISSION_DENIED"));
//! ```

pub mod argmap;
pub mod audit_log;
#[cfg(test)]
mod chain_tests;
pub mod decide;
pub mod facade;
pub mod governor;
pub mod jsonrpc;
pub mod session;
#[cfg(test)]
mod tests;

pub use argmap::{ArgMap, ArgRule};
pub use audit_log::AuditLog;
pub use decide::{Allowed, Refusal, resolve_real_path, valid_tool_name};
pub use facade::{CallOutcome, ClientGuard};
pub use governor::{CallGovernor, CallIdentity, GovernorBackend};
pub use session::{APPROVAL_TOKEN_META, MAX_PENDING, Output, Session};

use crate::LeaseGuard;
use crate::agentfile::Agentfile;

/// The server name an Agentfile declares: the value of its one `MCP` line. Errors
/// (`INVALID_REQUEST`) when there is none, more than one, or a registry reference rather than
/// a name (then the caller names the server).
pub fn agentfile_server(af: &Agentfile) -> crate::Result<String> {
    let names: Vec<&str> = af
        .directives()
        .iter()
        .filter(|d| d.name.as_ref() == "MCP")
        .filter_map(|d| d.arg(0))
        .collect();
    match names.as_slice() {
        [one] if valid_tool_name(one) && !one.contains(['/', '.']) => Ok(one.to_string()),
        [one] => Err(crate::Error::invalid(format!(
            "the Agentfile's MCP line {one:?} is not a plain server name; give --server NAME"
        ))),
        [] => Err(crate::Error::invalid(
            "the Agentfile has no MCP line; give --server NAME",
        )),
        _ => Err(crate::Error::invalid(format!(
            "the Agentfile has {} MCP lines; give --server NAME",
            names.len()
        ))),
    }
}

/// Longest message line accepted by the stdio proxy (bytes, newline excluded).
pub const DEFAULT_MAX_LINE: usize = 4 * 1024 * 1024;

/// How a guard decides.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpOptions {
    /// The server's name: the `NAME` of `TOOL mcp:NAME.<tool>`.
    pub server: String,
    /// Refuse tools with no argument map.
    pub strict: bool,
    /// Log what would be denied and allow it.
    pub monitor: bool,
    /// Resolve symlinks of `fs.*` targets and authorize the real path too (the default).
    pub resolve_symlinks: bool,
}

impl McpOptions {
    /// Defaults for a server named `server`: not strict, not monitor, symlinks resolved.
    pub fn new(server: &str) -> McpOptions {
        McpOptions {
            server: server.to_string(),
            strict: false,
            monitor: false,
            resolve_symlinks: true,
        }
    }
}

/// A lease, an argument map and options: the decision function over MCP messages.
pub struct McpGuard {
    lease: LeaseGuard,
    map: ArgMap,
    options: McpOptions,
}

impl McpGuard {
    /// A guard deciding by `lease` and `map`.
    pub fn new(lease: LeaseGuard, map: ArgMap, options: McpOptions) -> McpGuard {
        McpGuard {
            lease,
            map,
            options,
        }
    }

    /// The options.
    pub fn options(&self) -> &McpOptions {
        &self.options
    }
}
