//! One module per `leasekit` command.

pub mod audit;
pub mod check;
pub mod explain;
pub mod gov;
pub mod govpolicy;
pub mod inspect;
pub mod lint;
pub mod lock;
pub mod mcp_guard;
pub mod narrow;
pub mod policy;
pub mod proof;
pub mod serve;
pub mod subset;

/// Pretty-prints a JSON value followed by a newline.
pub fn pretty(value: &serde_json::Value) -> String {
    let mut text = serde_json::to_string_pretty(value).unwrap_or_else(|_| value.to_string());
    text.push('\n');
    text
}
