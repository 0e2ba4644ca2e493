//! Conformance ops `governor` and `frame_decode` (docs/api.md, "Governor conformance vectors").

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use leasekit::governor::engine::IdSource;
use leasekit::governor::store::{MemoryStore, SqliteStore, Store};
use leasekit::governor::wire::decode_request_frame;
use leasekit::governor::{Governor, GovernorOptions, Policy};
use leasekit::{Decimal, ManualClock, parse_decimal, parse_expires_at};
use serde_json::{Value, json};

static N: AtomicU64 = AtomicU64::new(0);

thread_local! {
    /// Set: every governor vector runs on this PostgreSQL database instead of its own store
    /// (memory or SQLite), its state wiped first (`LEASEKIT_GOV_STORE=postgres`).
    static POSTGRES: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

/// Runs the governor vectors of this thread on the PostgreSQL database at `url` (or back on
/// their own stores with `None`).
pub fn use_postgres(url: Option<String>) {
    POSTGRES.with(|p| *p.borrow_mut() = url);
}

fn postgres_url() -> Option<String> {
    POSTGRES.with(|p| p.borrow().clone())
}

#[cfg(feature = "postgres")]
fn postgres_store(url: &str, fresh: bool) -> Result<Arc<dyn Store>, String> {
    if fresh {
        let mut c = postgres::Client::connect(url, postgres::NoTls).map_err(|e| e.to_string())?;
        // Wipe the state, keep the schema (faster than dropping it for every vector).
        c.batch_execute(
            "DO $$ BEGIN
               IF to_regclass('leasekit.meta') IS NOT NULL THEN
                 DELETE FROM leasekit.leases; DELETE FROM leasekit.approvals;
                 DELETE FROM leasekit.idem; DELETE FROM leasekit.audit;
                 DELETE FROM leasekit.rate;
                 UPDATE leasekit.meta SET ver = 0, purged_ver = 0, body = NULL, audit_count = 0,
                   audit_head = repeat('0', 64), budget_day = NULL, budget_used_cents = NULL,
                   in_flight = NULL;
               END IF;
             END $$",
        )
        .map_err(|e| e.to_string())?;
    }
    Ok(Arc::new(
        leasekit::governor::store::PostgresStore::open(url).map_err(|e| e.to_string())?,
    ))
}

#[cfg(not(feature = "postgres"))]
fn postgres_store(_url: &str, _fresh: bool) -> Result<Arc<dyn Store>, String> {
    Err("LEASEKIT_GOV_STORE=postgres needs the feature leasekit/postgres".into())
}

/// A fresh SQLite path under the target directory's temp area.
pub fn temp_db(tag: &str) -> PathBuf {
    let dir = crate::scratch::dir();
    dir.join(format!("{tag}-{}.db", N.fetch_add(1, Ordering::Relaxed)))
}

fn remove_db(p: &std::path::Path) {
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", p.display()));
    }
}

struct Rig {
    policy: Policy,
    options: GovernorOptions,
    clock: Arc<ManualClock>,
    path: Option<PathBuf>,
    postgres: Option<String>,
    gov: Option<Governor>,
}

impl Rig {
    fn open(&mut self) -> Result<(), String> {
        let fresh = self.gov.is_none();
        self.gov = None;
        let store: Arc<dyn Store> = match (&self.postgres, &self.path) {
            (Some(url), _) => postgres_store(url, fresh)?,
            (None, Some(p)) => Arc::new(SqliteStore::open(p).map_err(|e| e.to_string())?),
            (None, None) => Arc::new(MemoryStore::new()),
        };
        self.gov = None;
        self.gov = Some(
            Governor::new(
                self.policy.clone(),
                self.options.clone(),
                store,
                self.clock.clone(),
                IdSource::Deterministic,
            )
            .map_err(|e| format!("cannot open the governor: {e}"))?,
        );
        Ok(())
    }
}

/// Runs a `governor` vector: one result per step.
pub fn run(input: &Value) -> Result<Value, String> {
    let policy = Policy::from_value(input.get("policy").cloned().unwrap_or(json!({})))
        .map_err(|e| format!("vector policy refused: {e}"))?;
    let options = match input.get("options") {
        Some(o) => GovernorOptions::from_json(&o.to_string()).map_err(|e| e.to_string())?,
        None => GovernorOptions::default(),
    };
    let start = parse_expires_at(input["start"].as_str().ok_or("start must be a string")?)
        .map_err(|e| format!("bad start: {e}"))?;
    let sqlite = match input.get("store").and_then(Value::as_str) {
        None | Some("memory") => false,
        Some("sqlite") => true,
        Some(other) => return Err(format!("unknown store {other:?}")),
    };
    let path = sqlite.then(|| temp_db("vector"));
    let mut rig = Rig {
        policy,
        options,
        clock: Arc::new(ManualClock::new(start)),
        path: path.clone(),
        postgres: postgres_url(),
        gov: None,
    };
    let result = (|| {
        rig.open()?;
        let mut now = start;
        let mut out = Vec::new();
        for step in input["steps"].as_array().ok_or("steps must be an array")? {
            if let Some(at) = step.get("at") {
                let at = at.as_str().ok_or("at must be a string")?;
                now = match at.strip_prefix('+') {
                    Some(ms) => {
                        now.plus_millis(ms.parse::<u64>().map_err(|_| format!("bad at {at}"))?)
                    }
                    None => parse_expires_at(at).map_err(|e| format!("bad at {at}: {e}"))?,
                };
                rig.clock.set(now);
            }
            let gov = rig.gov.as_ref().expect("open");
            if step.get("restart").is_some() {
                if rig.path.is_none() && rig.postgres.is_none() {
                    return Err("restart needs store sqlite".into());
                }
                rig.open()?;
                out.push(json!("ok"));
            } else if step.get("verify_audit").is_some() {
                let v = gov.verify_audit().map_err(|e| e.to_string())?;
                out.push(json!({"ok": v.ok, "records": v.records}));
            } else {
                let cmd = step["command"].as_str().ok_or("step without command")?;
                let payload = match step.get("payload") {
                    Some(Value::String(s)) => s.clone(),
                    Some(v) => v.to_string(),
                    None => "{}".to_string(),
                };
                let env: Value =
                    serde_json::from_str(&gov.handle(cmd, &payload)).map_err(|e| e.to_string())?;
                if env["success"] == json!(true) {
                    let p: Value = serde_json::from_str(env["payloadJson"].as_str().unwrap_or(""))
                        .map_err(|e| format!("payloadJson is not JSON: {e}"))?;
                    out.push(p);
                } else {
                    out.push(json!({"success": false, "error": env["error"]}));
                }
            }
        }
        Ok(Value::Array(out))
    })();
    drop(rig);
    if let Some(p) = &path {
        remove_db(p);
    }
    result
}

/// Runs a `frame_decode` vector.
pub fn frame_decode(input: &Value) -> Value {
    let bytes = match hex::decode(input["hex"].as_str().unwrap_or("")) {
        Ok(b) => b,
        Err(_) => return json!({"error": "INVALID_REQUEST"}),
    };
    match decode_request_frame(&bytes) {
        Ok(env) => json!({"command": env.command}),
        Err(e) => json!({"error": e.code().as_str()}),
    }
}

fn dec(v: &str) -> Option<Decimal> {
    parse_decimal(v).ok()
}

/// Partial comparison of one expected value with the actual one.
fn partial(expect: &Value, actual: &Value) -> bool {
    match (expect, actual) {
        (Value::Object(e), Value::Object(a)) => e.iter().all(|(k, ev)| {
            a.get(k).is_some_and(|av| {
                if k == "effectiveLease" {
                    lease_sets_eq(ev, av)
                } else {
                    partial(ev, av)
                }
            })
        }),
        (Value::Array(e), Value::Array(a)) => {
            e.len() == a.len() && e.iter().zip(a).all(|(x, y)| partial(x, y))
        }
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::String(x), Value::String(y)) => {
            x == y || matches!((dec(x), dec(y)), (Some(p), Some(q)) if p == q)
        }
        _ => expect == actual,
    }
}

fn lease_sets_eq(e: &Value, a: &Value) -> bool {
    let (Some(e), Some(a)) = (e.as_object(), a.as_object()) else {
        return e == a;
    };
    e.len() == a.len()
        && e.iter().all(|(k, ev)| {
            a.get(k).is_some_and(|av| {
                let set = |v: &Value| {
                    let mut s: Vec<String> = v
                        .as_array()
                        .map(|l| l.iter().map(|x| x.to_string()).collect())
                        .unwrap_or_default();
                    s.sort();
                    s.dedup();
                    s
                };
                set(ev) == set(av)
            })
        })
}

/// Compares a `governor` vector's expect list with the step results.
pub fn same(expect: &Value, actual: &Value) -> bool {
    let (Some(e), Some(a)) = (expect.as_array(), actual.as_array()) else {
        return false;
    };
    e.len() == a.len()
        && e.iter().zip(a).all(|(ev, av)| {
            let failed = av.get("success") == Some(&json!(false));
            let wants_failure = ev.get("success") == Some(&json!(false));
            if failed != wants_failure && ev != &json!("ok") {
                return false;
            }
            partial(ev, av)
        })
}
