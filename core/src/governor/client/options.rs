//! [`ClientOptions`]: how a client talks to its daemon, and their JSON form (the bindings'
//! `connect` options: `{"timeoutMs": 5000, "fallback": "off"}`), read strictly.

use std::time::Duration;

use serde::Deserialize;

use super::FallbackMode;
use crate::Error;

/// How a client talks to its daemon.
#[derive(Debug, Clone)]
pub struct ClientOptions {
    /// Time allowed for one call (connect, send, answer); default 10 s.
    pub timeout: Duration,
    /// What an `Acquire` does when the daemon cannot be reached; default [`FallbackMode::Prod`].
    pub fallback: FallbackMode,
    /// An idle connection older than this is not reused; default 60 s (the daemon closes
    /// idle connections after 120 s by default).
    pub max_idle: Duration,
    /// Idle connections kept for reuse; default 16.
    pub max_pooled: usize,
}

impl Default for ClientOptions {
    fn default() -> Self {
        ClientOptions {
            timeout: Duration::from_secs(10),
            fallback: FallbackMode::Prod,
            max_idle: Duration::from_secs(60),
            max_pooled: 16,
        }
    }
}

/// The JSON form; every field optional, unknown fields refused.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct OptionsJson {
    timeout_ms: Option<u64>,
    fallback: Option<String>,
    max_idle_ms: Option<u64>,
    max_pooled: Option<usize>,
}

/// The largest `timeoutMs`/`maxIdleMs` accepted (one day): a larger value is a mistake, and
/// deadlines computed from it must not overflow.
pub const MAX_CLIENT_MILLIS: u64 = 86_400_000;

impl ClientOptions {
    /// Options from JSON text (empty text or `null`: the defaults): `timeoutMs` (1 ..= one
    /// day), `fallback` (`"off"`, `"dev"` or `"prod"`), `maxIdleMs` (0 ..= one day),
    /// `maxPooled`. An unknown field or a value out of range is `INVALID_REQUEST`.
    pub fn from_json(json: &str) -> crate::Result<ClientOptions> {
        let text = json.trim();
        if text.is_empty() || text == "null" {
            return Ok(ClientOptions::default());
        }
        let o: OptionsJson = serde_json::from_str(text)
            .map_err(|e| Error::invalid(format!("invalid client options: {e}")))?;
        let mut out = ClientOptions::default();
        if let Some(ms) = o.timeout_ms {
            if ms == 0 || ms > MAX_CLIENT_MILLIS {
                return Err(Error::invalid(format!(
                    "client option timeoutMs must be 1..={MAX_CLIENT_MILLIS}, got {ms}"
                )));
            }
            out.timeout = Duration::from_millis(ms);
        }
        if let Some(f) = o.fallback {
            out.fallback = FallbackMode::parse(&f).ok_or_else(|| {
                Error::invalid(format!(
                    "client option fallback must be \"off\", \"dev\" or \"prod\", got {f:?}"
                ))
            })?;
        }
        if let Some(ms) = o.max_idle_ms {
            if ms > MAX_CLIENT_MILLIS {
                return Err(Error::invalid(format!(
                    "client option maxIdleMs must be 0..={MAX_CLIENT_MILLIS}, got {ms}"
                )));
            }
            out.max_idle = Duration::from_millis(ms);
        }
        if let Some(n) = o.max_pooled {
            out.max_pooled = n;
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorCode;

    #[test]
    fn reads_every_field_and_defaults_the_rest() {
        let o = ClientOptions::from_json(r#"{"timeoutMs": 250, "fallback": "off"}"#).unwrap();
        assert_eq!(o.timeout, Duration::from_millis(250));
        assert_eq!(o.fallback, FallbackMode::Off);
        assert_eq!(o.max_pooled, 16);
        let o = ClientOptions::from_json(r#"{"maxIdleMs": 0, "maxPooled": 2, "fallback": "dev"}"#)
            .unwrap();
        assert_eq!((o.max_idle, o.max_pooled), (Duration::ZERO, 2));
        assert_eq!(o.fallback, FallbackMode::Dev);
        for empty in ["", " ", "null", "{}"] {
            let o = ClientOptions::from_json(empty).unwrap();
            assert_eq!(o.fallback, FallbackMode::Prod);
            assert_eq!(o.timeout, Duration::from_secs(10));
        }
    }

    #[test]
    fn refuses_unknown_fields_and_bad_values() {
        for bad in [
            r#"{"timeout": 5}"#,
            r#"{"timeoutMs": 0}"#,
            r#"{"timeoutMs": -1}"#,
            r#"{"timeoutMs": 86400001}"#,
            r#"{"timeoutMs": "5"}"#,
            r#"{"fallback": "Prod"}"#,
            r#"{"fallback": null, "x": 1}"#,
            r#"{"maxIdleMs": 86400001}"#,
            "[1]",
            "{",
        ] {
            let e = ClientOptions::from_json(bad).unwrap_err();
            assert_eq!(e.code(), ErrorCode::InvalidRequest, "{bad}");
        }
    }
}
