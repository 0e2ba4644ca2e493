//! [`EmbeddedGovernor`]: a governor opened from strings, as every binding's
//! `Governor.open(store, policy, options)` does: the store by a string, the policy and the
//! options as JSON, and for tests a manual clock and deterministic ids.

use std::sync::Arc;

use serde_json::{Map, Value};

use super::engine::IdSource;
use super::store::{MemoryStore, SqliteStore, Store, Synchronous};
use super::wire::format_time_ms;
use super::{Governor, GovernorOptions, Policy};
use crate::{Clock, Error, ManualClock, SystemClock, parse_expires_at};

/// The option keys [`EmbeddedGovernor::open`] reads itself; every other key is a
/// construction option ([`GovernorOptions`]).
pub const OPEN_KEYS: [&str; 3] = ["manualClock", "ids", "synchronous"];

/// Where the state lives, from the store string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StoreSpec {
    /// `"memory"` or `":memory:"`.
    Memory,
    /// `"sqlite:PATH"` or a bare path.
    Sqlite(String),
    /// `"postgres://..."`/`"postgresql://..."`: a database shared by a fleet (SEMANTICS
    /// 13.12); needs the `postgres` feature.
    Postgres(String),
}

impl StoreSpec {
    /// Reads a store string: `"memory"`/`":memory:"`, `"sqlite:PATH"`, a file path or a
    /// PostgreSQL URL. An empty string is refused.
    pub fn parse(text: &str) -> crate::Result<StoreSpec> {
        let lower = text.to_ascii_lowercase();
        if text == "memory" || text == ":memory:" {
            Ok(StoreSpec::Memory)
        } else if lower.starts_with("postgres://") || lower.starts_with("postgresql://") {
            Ok(StoreSpec::Postgres(text.to_string()))
        } else {
            let path = text.strip_prefix("sqlite:").unwrap_or(text);
            if path.is_empty() {
                return Err(Error::invalid(
                    "store must be \"memory\", \"sqlite:PATH\" or a file path",
                ));
            }
            Ok(StoreSpec::Sqlite(path.to_string()))
        }
    }
}

/// A governor opened by [`EmbeddedGovernor::open`], with its manual clock when it has one.
#[derive(Debug, Clone)]
pub struct EmbeddedGovernor {
    governor: Governor,
    clock: Option<Arc<ManualClock>>,
}

fn option_str<'a>(opts: &'a Map<String, Value>, key: &str) -> crate::Result<Option<&'a str>> {
    match opts.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(_) => Err(Error::invalid(format!("option {key} must be a string"))),
    }
}

impl EmbeddedGovernor {
    /// Opens a governor on `store` ([`StoreSpec::parse`]) with `policy_json` (a policy
    /// object; blank is `{}`) and `options_json` (blank is `{}`): the construction options
    /// of [`GovernorOptions`] plus `manualClock` (an RFC 3339 UTC time: a manual clock
    /// starting there, for tests), `ids` (`"random"`, the default, or `"deterministic"`:
    /// `lease-1`, `approval-1`, ... for tests) and `synchronous` (`"full"`, the default, or
    /// `"normal"`; SQLite only). A reopened SQLite store keeps its last activated policy.
    pub fn open(
        store: &str,
        policy_json: &str,
        options_json: &str,
    ) -> crate::Result<EmbeddedGovernor> {
        let store = StoreSpec::parse(store)?;
        let policy = if policy_json.trim().is_empty() {
            Policy::default_policy()
        } else {
            Policy::from_json(policy_json)?
        };
        let options_text = if options_json.trim().is_empty() {
            "{}"
        } else {
            options_json
        };
        let mut opts: Map<String, Value> = serde_json::from_str(options_text)
            .map_err(|e| Error::invalid(format!("invalid governor options: {e}")))?;
        let clock = option_str(&opts, "manualClock")?
            .map(|t| parse_expires_at(t).map(|t| Arc::new(ManualClock::new(t))))
            .transpose()?;
        let ids = match option_str(&opts, "ids")? {
            None | Some("random") => IdSource::Random,
            Some("deterministic") => IdSource::Deterministic,
            Some(other) => {
                return Err(Error::invalid(format!(
                    "option ids must be \"random\" or \"deterministic\", not {other:?}"
                )));
            }
        };
        let sync = match option_str(&opts, "synchronous")? {
            None => None,
            Some("full") => Some(Synchronous::Full),
            Some("normal") => Some(Synchronous::Normal),
            Some(other) => {
                return Err(Error::invalid(format!(
                    "option synchronous must be \"full\" or \"normal\", not {other:?}"
                )));
            }
        };
        for key in OPEN_KEYS {
            opts.remove(key);
        }
        let options = GovernorOptions::from_json(&Value::Object(opts).to_string())?;
        let store: Arc<dyn Store> = match (store, sync) {
            (StoreSpec::Memory, None) => Arc::new(MemoryStore::new()),
            (StoreSpec::Memory, Some(_)) => {
                return Err(Error::invalid(
                    "option synchronous applies to a SQLite store only",
                ));
            }
            (StoreSpec::Sqlite(path), sync) => {
                Arc::new(SqliteStore::open_with(path, sync.unwrap_or_default())?)
            }
            (StoreSpec::Postgres(_), Some(_)) => {
                return Err(Error::invalid(
                    "option synchronous applies to a SQLite store only (PostgreSQL commits durably)",
                ));
            }
            (StoreSpec::Postgres(url), None) => super::store::open_location(&url)?,
        };
        let system: Arc<dyn Clock> = match &clock {
            Some(c) => c.clone(),
            None => Arc::new(SystemClock),
        };
        let governor = Governor::new(policy, options, store, system, ids)?;
        Ok(EmbeddedGovernor { governor, clock })
    }

    /// The governor.
    pub fn governor(&self) -> &Governor {
        &self.governor
    }

    fn manual(&self) -> crate::Result<&ManualClock> {
        self.clock
            .as_deref()
            .ok_or_else(|| Error::invalid("the governor was opened without a manualClock"))
    }

    /// Sets the manual clock to an RFC 3339 UTC time (`INVALID_REQUEST` without one).
    pub fn set_time(&self, time: &str) -> crate::Result<()> {
        let t = parse_expires_at(time)?;
        self.manual()?.set(t);
        Ok(())
    }

    /// Moves the manual clock `millis` forward (`INVALID_REQUEST` without one).
    pub fn advance_millis(&self, millis: u64) -> crate::Result<()> {
        let clock = self.manual()?;
        clock.set(clock.get().plus_millis(millis));
        Ok(())
    }

    /// The manual clock's time as RFC 3339 UTC with milliseconds (`INVALID_REQUEST`
    /// without one).
    pub fn time(&self) -> crate::Result<String> {
        Ok(format_time_ms(self.manual()?.get().unix_millis()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorCode;

    #[test]
    fn store_strings() {
        assert_eq!(StoreSpec::parse("memory").unwrap(), StoreSpec::Memory);
        assert_eq!(StoreSpec::parse(":memory:").unwrap(), StoreSpec::Memory);
        assert_eq!(
            StoreSpec::parse("sqlite:/tmp/a.db").unwrap(),
            StoreSpec::Sqlite("/tmp/a.db".into())
        );
        assert_eq!(
            StoreSpec::parse("gov.db").unwrap(),
            StoreSpec::Sqlite("gov.db".into())
        );
        for pg in ["postgres://u@h/db", "PostgreSQL://h/db"] {
            assert_eq!(
                StoreSpec::parse(pg).unwrap(),
                StoreSpec::Postgres(pg.into())
            );
        }
        for bad in ["", "sqlite:"] {
            assert_eq!(
                StoreSpec::parse(bad).unwrap_err().code(),
                ErrorCode::InvalidRequest
            );
        }
        // Without a reachable server (or without the feature) a PostgreSQL URL is an error,
        // never a SQLite file of that name.
        EmbeddedGovernor::open("PostgreSQL://u@%2Fnonexistent-dir/db", "", "").unwrap_err();
        // A misspelt option is refused, never silently ignored.
        let e = EmbeddedGovernor::open("memory", "", r#"{"maxInFlght": 1}"#).unwrap_err();
        assert_eq!(e.code(), ErrorCode::InvalidRequest);
        assert!(e.message().contains("maxInFlght"), "{}", e.message());
        assert!(!std::path::Path::new("PostgreSQL:").exists());
    }

    #[test]
    fn manual_clock_and_deterministic_ids() {
        let g = EmbeddedGovernor::open(
            "memory",
            r#"{"leaseTtlMs": 1000}"#,
            r#"{"manualClock": "2026-01-01T00:00:00Z", "ids": "deterministic"}"#,
        )
        .unwrap();
        let a = g
            .governor()
            .call_json("Acquire", r#"{"actorId":"a","workspaceId":"w"}"#)
            .unwrap();
        assert!(a.contains(r#""leaseId":"lease-1""#), "{a}");
        assert!(
            a.contains(r#""expiresAtUtc":"2026-01-01T00:00:01.000Z""#),
            "{a}"
        );
        g.advance_millis(1500).unwrap();
        assert_eq!(g.time().unwrap(), "2026-01-01T00:00:01.500Z");
        g.set_time("2026-01-02T00:00:00Z").unwrap();
        assert_eq!(g.time().unwrap(), "2026-01-02T00:00:00.000Z");
    }

    #[test]
    fn refusals() {
        let open = |o: &str| {
            EmbeddedGovernor::open("memory", "{}", o)
                .unwrap_err()
                .code()
        };
        for bad in [
            r#"{"ids": "sequential"}"#,
            r#"{"ids": 1}"#,
            r#"{"manualClock": "yesterday"}"#,
            r#"{"synchronous": "normal"}"#,
            r#"{"maxInFlight": -1}"#,
            "[]",
            "{",
        ] {
            assert_eq!(open(bad), ErrorCode::InvalidRequest, "{bad}");
        }
        assert!(EmbeddedGovernor::open("memory", "[]", "").is_err());
        let g = EmbeddedGovernor::open("memory", "", "").unwrap();
        assert_eq!(
            g.advance_millis(1).unwrap_err().code(),
            ErrorCode::InvalidRequest
        );
        assert!(g.time().is_err());
    }

    #[test]
    fn strict_calls_refuse_unknown_fields_and_commands() {
        let g = EmbeddedGovernor::open("memory", "{}", "").unwrap();
        let gov = g.governor();
        let e = gov
            .call_json("Acquire", r#"{"actorId":"a","estimatedCost":5}"#)
            .unwrap_err();
        assert_eq!(e.code(), ErrorCode::InvalidRequest);
        assert!(e.message().contains("estimatedCost"), "{}", e.message());
        assert!(gov.call_json("GetMetrics", r#"{"x":1}"#).is_err());
        assert!(gov.call_json("GetMetrics", "").is_ok());
        assert!(gov.call_json("Nope", "{}").is_err());
        assert!(gov.call_json("Acquire", "[]").is_err());
        assert!(gov.call_json("Acquire", r#"{"actorId":"a"} x"#).is_err());
        // The lenient wire form ignores the unknown field, as LeaseGate.
        assert!(
            gov.handle("Acquire", r#"{"actorId":"a","estimatedCost":5}"#)
                .contains(r#""success":true"#)
        );
    }
}
