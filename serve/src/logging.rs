//! The daemon's logs: `tracing` events written to stderr as text or as one JSON object per
//! line, filtered by level (or by a `RUST_LOG`-style filter). What is logged is fixed here
//! and in the transport: one event per command at debug (command name, uid, outcome code),
//! one per denial at info (reason code), every store error and refused connection at warn.
//! Never a request's payload, a token, a credential or an error text that could echo one:
//! only codes the daemon itself defines.

use leasekit::governor::BudgetAlert;
use leasekit::governor::wire::Command;
use tracing_subscriber::EnvFilter;

/// How log lines are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogFormat {
    /// Human-readable lines.
    Text,
    /// One JSON object per line (`timestamp`, `level`, `target`, `message` and the event's
    /// fields at the top level).
    Json,
}

/// Installs the process's log subscriber: `filter` is a level (`error`, `warn`, `info`,
/// `debug`, `trace`) or an `EnvFilter` directive list such as `info,leasekit_serve=debug`.
/// A second call in one process keeps the first subscriber.
pub fn init(format: LogFormat, filter: &str) -> Result<(), String> {
    let filter = EnvFilter::try_new(filter)
        .map_err(|e| format!("--log-level {filter:?} is not a level or filter: {e}"))?;
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(false);
    let _ = match format {
        LogFormat::Text => builder.try_init(),
        LogFormat::Json => builder
            .json()
            .flatten_event(true)
            .with_current_span(false)
            .with_span_list(false)
            .try_init(),
    };
    Ok(())
}

/// Logs a budget alert at warn: the budget's kind, the threshold, the amounts (cents) and the
/// `entryHash` of its audit record. Not the org, workspace or actor id: a client declares it
/// (find it in the audit record the hash names).
pub fn budget_alert(a: &BudgetAlert) {
    tracing::warn!(
        scope = a.scope,
        threshold_percent = a.threshold_percent,
        used_cents = a.used_cents,
        spent_cents = a.spent_cents,
        reserved_cents = a.reserved_cents,
        limit_cents = a.limit_cents,
        entry_hash = a.entry_hash.as_str(),
        "budget threshold crossed"
    );
}

/// A client-sent command name fit for a log line: the governor command it names (the fixed set
/// of [`Command`], as the metrics label it), else `invalid`, so no client text reaches a log.
pub fn command_name(name: &str) -> &'static str {
    Command::parse(name).map_or("invalid", Command::as_str)
}

/// The code at the front of an error text (`permission_denied: ...` gives
/// `permission_denied`), or `error` when it does not start with one.
pub fn error_code(error: &str) -> &str {
    let code = error.split(':').next().unwrap_or("");
    if !code.is_empty()
        && code.len() <= 64
        && code.bytes().all(|b| b.is_ascii_lowercase() || b == b'_')
    {
        code
    } else {
        "error"
    }
}

/// The `deniedReason` of a response payload, when it has one (a governor reason code).
pub fn denied_reason(payload_json: &str) -> Option<&str> {
    const KEY: &str = "\"deniedReason\":\"";
    let start = payload_json.find(KEY)? + KEY.len();
    let rest = &payload_json[start..];
    let reason = &rest[..rest.find('"')?];
    (!reason.is_empty()
        && reason.len() <= 64
        && reason
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_'))
    .then_some(reason)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_codes_reach_the_log() {
        assert_eq!(command_name("Acquire"), "Acquire");
        assert_eq!(command_name("Acq\nuire"), "invalid");
        assert_eq!(command_name(&"A".repeat(65)), "invalid");
        assert_eq!(command_name("Not_a_command"), "invalid");
        assert_eq!(error_code("permission_denied: uid 5"), "permission_denied");
        assert_eq!(error_code("frame payload is not UTF-8"), "error");
        assert_eq!(
            denied_reason(r#"{"granted":false,"deniedReason":"budget_exceeded"}"#),
            Some("budget_exceeded")
        );
        assert_eq!(
            denied_reason(r#"{"granted":true,"deniedReason":null}"#),
            None
        );
        assert_eq!(
            denied_reason(r#"{"x":"\"deniedReason\":\"secret\""}"#),
            None,
            "a quoted key inside a string value is not the field"
        );
        assert_eq!(denied_reason(r#"{"deniedReason":"Has Space"}"#), None);
    }
}
