//! The Rust conformance runner: every vector in `conformance/vectors` (or the directory named
//! by `LEASEKIT_VECTORS`) through the public API. Fails on any mismatch or unknown op.
//! Run with `make conformance-rust`.
//!
//! Text: a vector may hold a lone UTF-16 surrogate (`\ud800`), which a Python, JavaScript or
//! Java string can carry and a Rust `&str` cannot. Like every binding's one text conversion,
//! this runner refuses such a string with `INVALID_REQUEST` where it would be passed to the
//! API: the file is read with each lone surrogate escape marked ([`mark_lone_surrogates`]),
//! and an argument holding the mark is refused before the call.

mod governor_ops;
#[cfg(feature = "postgres")]
mod pg;
mod scratch;

use leasekit::agentfile::check_agentfile;
use leasekit::*;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

fn vector_files() -> Vec<PathBuf> {
    let dir = std::env::var_os("LEASEKIT_VECTORS")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../conformance/vectors")
        });
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read vector directory {}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    files
}

fn err(e: Error) -> Value {
    json!({ "error": e.code().as_str() })
}

/// What a lone surrogate escape is read as: a noncharacter no vector uses otherwise.
const LONE: char = '\u{FDD0}';

fn hex4(b: &[u8]) -> Option<u32> {
    let t = std::str::from_utf8(b.get(..4)?).ok()?;
    t.bytes()
        .all(|c| c.is_ascii_hexdigit())
        .then(|| u32::from_str_radix(t, 16).ok())
        .flatten()
}

/// Rewrites each `\uXXXX` escape of a lone surrogate (a high one not followed by a low one, or
/// a low one alone) as the escape of [`LONE`], so that the JSON text parses; a valid pair stays.
fn mark_lone_surrogates(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < b.len() {
        let escape = (b[i] == b'\\' && b.get(i + 1) == Some(&b'u'))
            .then(|| hex4(&b[i + 2..]))
            .flatten();
        if let Some(u) = escape {
            let low = |at: usize| {
                b.get(at..at + 2) == Some(b"\\u".as_slice())
                    && hex4(&b[at + 2..]).is_some_and(|l| (0xDC00..0xE000).contains(&l))
            };
            if (0xD800..0xDC00).contains(&u) && low(i + 6) {
                out.push_str(&text[i..i + 12]);
                i += 12;
                continue;
            }
            if (0xD800..0xE000).contains(&u) {
                out.push_str("\\ufdd0");
                i += 6;
                continue;
            }
        }
        if b[i] == b'\\' && b.get(i + 1).is_some_and(u8::is_ascii) {
            // Any other escape, `\\` included, is copied whole.
            out.push_str(&text[i..i + 2]);
            i += 2;
            continue;
        }
        let ch = text[i..].chars().next().expect("a char at a boundary");
        out.push(ch);
        i += ch.len_utf8();
    }
    out
}

/// True when some string (or object key) in `v` held a lone surrogate.
fn has_lone(v: &Value) -> bool {
    match v {
        Value::String(s) => s.contains(LONE),
        Value::Array(a) => a.iter().any(has_lone),
        Value::Object(m) => m.iter().any(|(k, v)| k.contains(LONE) || has_lone(v)),
        _ => false,
    }
}

/// The refusal of text that is not valid Unicode (a lone surrogate).
fn not_text() -> Value {
    err(Error::invalid("not valid Unicode text (a lone surrogate)"))
}

fn lease_of(v: &Value) -> Result<Lease> {
    Lease::from_value(v)
}

fn constraints_of(v: Option<&Value>) -> Result<LeaseConstraints> {
    v.map_or(Ok(LeaseConstraints::none()), LeaseConstraints::from_value)
}

fn s<'a>(input: &'a Value, key: &str) -> &'a str {
    input[key]
        .as_str()
        .unwrap_or_else(|| panic!("input.{key} must be a string"))
}

fn dec_map(m: &BTreeMap<String, Decimal>) -> Value {
    Value::Object(
        m.iter()
            .map(|(k, v)| (k.clone(), Value::from(format_amount(v))))
            .collect(),
    )
}

/// Runs one vector; `Err` for an unknown op or a malformed vector.
fn run(op: &str, input: &Value) -> std::result::Result<Value, String> {
    // `authorize` converts its lease and each step's arguments separately.
    if op != "authorize" && has_lone(input) {
        return Ok(not_text());
    }
    Ok(match op {
        "capability_name" => {
            let n = s(input, "name");
            json!({"valid": is_valid_capability_name(n), "reserved": is_reserved_capability_name(n)})
        }
        "validate_lease" => match lease_of(&input["lease"]) {
            Ok(_) => json!("ok"),
            Err(e) => err(e),
        },
        "canonicalize" => match canonicalize_target(s(input, "capability"), s(input, "target")) {
            Ok(t) => json!(t),
            Err(e) => err(e),
        },
        "match" => match match_pattern(
            s(input, "capability"),
            s(input, "pattern"),
            s(input, "target"),
        ) {
            Ok(b) => json!(b),
            Err(e) => err(e),
        },
        "subset" => match subset(input) {
            Ok(b) => json!(b),
            Err(e) => err(e),
        },
        "budget_parse" => match parse_budget_amount(s(input, "entry")) {
            Ok(b) => json!({"currency": b.currency, "amount": format_amount(&b.amount)}),
            Err(e) => err(e),
        },
        "budget_sum" => {
            let entries: Vec<String> = serde_json::from_value(input["entries"].clone())
                .map_err(|e| format!("entries: {e}"))?;
            match sum_budget_entries(&entries) {
                Ok(m) => dec_map(&m),
                Err(e) => err(e),
            }
        }
        "expires_at" => {
            let r = parse_expires_at(s(input, "value")).and_then(|t| {
                let now = parse_expires_at(s(input, "now"))?;
                validate_lease_constraints(&LeaseConstraints::expiring_at(t), now)
            });
            match r {
                Ok(()) => json!("ok"),
                Err(e) => err(e),
            }
        }
        "authorize" => authorize(input)?,
        "narrow" => {
            let r = lease_of(&input["requested"])
                .and_then(|req| narrow_lease(&req, &lease_of(&input["ceiling"])?));
            match r {
                Ok(n) => n.lease.to_value(),
                Err(e) => err(e),
            }
        }
        "agentfile" => {
            let report =
                check_agentfile(s(input, "text"), input["compat"].as_bool().unwrap_or(false));
            let mut errors: Vec<&str> = report
                .diagnostics
                .iter()
                .filter(|d| d.severity == leasekit::agentfile::Severity::Error)
                .map(|d| d.code.as_str())
                .collect();
            errors.sort();
            errors.dedup();
            json!({
                "ok": report.ok,
                "errors": errors,
                "lease": report.lease.map(|l| l.to_value()),
            })
        }
        "governor" => governor_ops::run(input)?,
        "frame_decode" => governor_ops::frame_decode(input),
        other => return Err(format!("unknown op {other:?}")),
    })
}

/// The subset options a binding takes besides the two leases; any other key is an unknown
/// option (`INVALID_REQUEST`), as in every binding's options object.
const SUBSET_OPTIONS: [&str; 3] = [
    "parent_remaining",
    "child_constraints",
    "parent_constraints",
];

fn subset(input: &Value) -> Result<bool> {
    if let Some(k) = input
        .as_object()
        .into_iter()
        .flat_map(|m| m.keys())
        .find(|k| {
            !matches!(k.as_str(), "child" | "parent") && !SUBSET_OPTIONS.contains(&k.as_str())
        })
    {
        return Err(Error::invalid(format!("unknown subset option {k:?}")));
    }
    let child = lease_of(&input["child"])?;
    let parent = lease_of(&input["parent"])?;
    let cc = constraints_of(input.get("child_constraints"))?;
    let pc = constraints_of(input.get("parent_constraints"))?;
    // An amount map: currency -> remaining amount (signed, at most 9 fraction digits).
    let remaining = match input.get("parent_remaining") {
        None | Some(Value::Null) => None,
        Some(Value::Object(m)) => Some(
            m.iter()
                .map(|(k, v)| match v {
                    Value::String(text) => Ok((k.clone(), parse_remaining_amount(text)?)),
                    _ => Err(Error::invalid("a remaining amount is a decimal string")),
                })
                .collect::<Result<BTreeMap<_, _>>>()?,
        ),
        Some(_) => return Err(Error::invalid("parent_remaining must be an object")),
    };
    Ok(is_lease_subset(
        &child,
        &parent,
        &SubsetOptions {
            parent_remaining: remaining.as_ref(),
            child_constraints: Some(&cc),
            parent_constraints: Some(&pc),
            ..Default::default()
        },
    ))
}

fn authorize(input: &Value) -> std::result::Result<Value, String> {
    if has_lone(&input["lease"]) || input.get("constraints").is_some_and(has_lone) {
        return Ok(not_text());
    }
    let lease = match lease_of(&input["lease"]) {
        Ok(l) => l,
        Err(e) => return Ok(err(e)),
    };
    let constraints = match constraints_of(input.get("constraints")) {
        Ok(c) => c,
        Err(e) => return Ok(err(e)),
    };
    let clock = Arc::new(ManualClock::new(
        SystemClock.now().map_err(|e| e.to_string())?,
    ));
    let guard = LeaseGuard::new(lease, constraints, clock.clone());
    let steps = input["steps"].as_array().ok_or("steps must be an array")?;
    let mut out = Vec::new();
    for step in steps {
        if let Some(at) = step.get("at") {
            let t = parse_expires_at(at.as_str().ok_or("at must be a string")?)
                .map_err(|e| format!("bad step time: {e}"))?;
            clock.set(t);
        }
        let r: Value = if has_lone(step) {
            not_text()
        } else if let Some(a) = step.get("authorize") {
            let cap = a[0].as_str().ok_or("authorize[0]")?;
            let target = a[1].as_str().ok_or("authorize[1]")?;
            guard
                .authorize(cap, target)
                .map_or_else(err, |_| json!("ok"))
        } else if let Some(m) = step.get("model") {
            guard
                .authorize_model(m.as_str().ok_or("model must be a string")?)
                .map_or_else(err, |_| json!("ok"))
        } else if let Some(r) = step.get("reserve") {
            let cur = r[0].as_str().ok_or("reserve[0]")?;
            let amt = r[1].as_str().ok_or("reserve[1]")?;
            parse_amount(amt)
                .and_then(|a| guard.reserve(cur, a))
                .map_or_else(err, |_| json!("ok"))
        } else if let Some(m) = step.get("metric") {
            let value = match &m["value"] {
                Value::String(v) => v.clone(),
                other => other.to_string(),
            };
            match guard.record_metric(
                m["name"].as_str().ok_or("metric.name")?,
                &value,
                m["unit"].as_str().unwrap_or(""),
            ) {
                Ok(emitted) => json!({
                    "remaining": dec_map(&guard.remaining()),
                    "emitted": emitted.iter().map(|e| json!({
                        "name": e.name, "value": format_amount(&e.value), "unit": e.unit
                    })).collect::<Vec<_>>(),
                }),
                Err(e) => err(e),
            }
        } else {
            return Err(format!("unknown step {step}"));
        };
        out.push(r);
    }
    Ok(Value::Array(out))
}

/// Decimal-aware, set-aware comparison of an actual result with `expect`.
fn same(op: &str, expect: &Value, actual: &Value) -> bool {
    match (expect, actual) {
        (Value::Object(e), _) if e.contains_key("error") => e.get("error") == actual.get("error"),
        _ if actual.get("error").is_some() => false,
        _ => match op {
            "budget_parse" => {
                expect["currency"] == actual["currency"]
                    && dec_eq(&expect["amount"], &actual["amount"])
            }
            "budget_sum" => dec_map_eq(expect, actual),
            "narrow" => lease_eq(expect, actual),
            "authorize" => steps_eq(expect, actual),
            "governor" => governor_ops::same(expect, actual),
            "agentfile" => expect.as_object().is_some_and(|e| {
                e.iter().all(|(k, v)| match k.as_str() {
                    "lease" => lease_eq(v, &actual["lease"]),
                    "errors" => {
                        let mut want: Vec<&Value> =
                            v.as_array().map(|a| a.iter().collect()).unwrap_or_default();
                        want.sort_by_key(|x| x.to_string());
                        want.dedup();
                        actual["errors"]
                            .as_array()
                            .is_some_and(|a| a.iter().collect::<Vec<_>>() == want)
                    }
                    _ => actual.get(k) == Some(v),
                })
            }),
            _ => expect == actual,
        },
    }
}

fn dec(v: &Value) -> Option<Decimal> {
    v.as_str().and_then(|s| s.parse().ok())
}

fn dec_eq(a: &Value, b: &Value) -> bool {
    matches!((dec(a), dec(b)), (Some(x), Some(y)) if x == y)
}

fn dec_map_eq(a: &Value, b: &Value) -> bool {
    match (a.as_object(), b.as_object()) {
        (Some(x), Some(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| dec_eq(v, w)))
        }
        _ => false,
    }
}

fn lease_eq(a: &Value, b: &Value) -> bool {
    let (Some(x), Some(y)) = (a.as_object(), b.as_object()) else {
        return a == b;
    };
    x.len() == y.len()
        && x.iter().all(|(k, v)| {
            let Some(w) = y.get(k) else { return false };
            if k == "cost.budget" {
                let sum = |v: &Value| {
                    serde_json::from_value::<Vec<String>>(v.clone())
                        .ok()
                        .and_then(|e| sum_budget_entries(&e).ok())
                };
                return matches!((sum(v), sum(w)), (Some(p), Some(q)) if p == q);
            }
            let set = |v: &Value| {
                let mut s: Vec<String> = serde_json::from_value(v.clone()).unwrap_or_default();
                s.sort();
                s.dedup();
                s
            };
            set(v) == set(w)
        })
}

fn steps_eq(expect: &Value, actual: &Value) -> bool {
    let (Some(e), Some(a)) = (expect.as_array(), actual.as_array()) else {
        return false;
    };
    e.len() == a.len()
        && e.iter().zip(a).all(|(x, y)| match x {
            Value::Object(m) if m.contains_key("error") => m.get("error") == y.get("error"),
            Value::Object(m) if m.contains_key("remaining") => {
                dec_map_eq(&m["remaining"], &y["remaining"])
                    && match (
                        m.get("emitted").and_then(Value::as_array),
                        y["emitted"].as_array(),
                    ) {
                        (Some(p), Some(q)) => {
                            p.len() == q.len()
                                && p.iter().zip(q).all(|(u, v)| {
                                    u["name"] == v["name"]
                                        && u["unit"] == v["unit"]
                                        && dec_eq(&u["value"], &v["value"])
                                })
                        }
                        (None, _) => true,
                        _ => false,
                    }
            }
            _ => x == y,
        })
}

/// Runs the vectors whose op `only` accepts: (passed, failed, failure lines).
fn run_vectors(only: impl Fn(&str, &Value) -> bool) -> (usize, usize, Vec<String>) {
    let (mut passed, mut failed) = (0usize, 0usize);
    let mut failures = Vec::new();
    for file in vector_files() {
        let text = std::fs::read_to_string(&file).expect("readable vector file");
        let doc: Value = serde_json::from_str(&mark_lone_surrogates(&text))
            .unwrap_or_else(|e| panic!("{}: invalid JSON: {e}", file.display()));
        for v in doc["vectors"].as_array().expect("a vectors array") {
            let id = v["id"].as_str().unwrap_or("?");
            let op = v["op"].as_str().unwrap_or("?");
            if !only(op, &v["input"]) {
                continue;
            }
            let outcome = std::panic::catch_unwind(|| run(op, &v["input"]));
            match outcome {
                Ok(Ok(actual)) if same(op, &v["expect"], &actual) => passed += 1,
                Ok(Ok(actual)) => {
                    failed += 1;
                    failures.push(format!("{id}: expected {} got {actual}", v["expect"]));
                }
                Ok(Err(why)) => {
                    failed += 1;
                    failures.push(format!("{id}: {why}"));
                }
                Err(_) => {
                    failed += 1;
                    failures.push(format!("{id}: panicked"));
                }
            }
        }
    }
    (passed, failed, failures)
}

/// The database the governor vectors run on. The vectors check answers, not durability (the
/// fleet tests crash and restart a durable server), so its commits skip the WAL flush.
#[cfg(feature = "postgres")]
fn vectors_db(server: &pg::TempPostgres) -> String {
    let url = server.fresh_db("vectors");
    let name = url.rsplit('/').next().expect("database name").to_string();
    server
        .client("postgres")
        .batch_execute(&format!(
            "ALTER DATABASE {name} SET synchronous_commit = off"
        ))
        .expect("set synchronous_commit");
    url
}

/// A throwaway PostgreSQL server when `LEASEKIT_GOV_STORE=postgres` (the governor vectors then
/// run on it), else `None`.
fn gov_store_from_env() -> Option<Box<dyn std::any::Any>> {
    match std::env::var("LEASEKIT_GOV_STORE").as_deref() {
        Err(_) | Ok("") | Ok("default") => None,
        #[cfg(feature = "postgres")]
        Ok("postgres") => {
            let server = pg::TempPostgres::start();
            governor_ops::use_postgres(Some(vectors_db(&server)));
            Some(Box::new(server))
        }
        Ok(other) => panic!(
            "LEASEKIT_GOV_STORE={other}: expected postgres (built with --features leasekit/postgres)"
        ),
    }
}

#[test]
fn conformance_vectors() {
    let server = gov_store_from_env();
    let (passed, failed, failures) = run_vectors(|_, _| true);
    governor_ops::use_postgres(None);
    drop(server);
    for f in &failures {
        eprintln!("FAIL {f}");
    }
    println!("{passed} passed, {failed} failed");
    assert!(passed + failed > 0, "no vectors found");
    assert_eq!(failed, 0, "{failed} conformance vectors failed");
}

/// The governor vectors again, every one on a PostgreSQL store (SEMANTICS 13.11: a store
/// changes nothing a command answers).
#[cfg(feature = "postgres")]
#[test]
fn governor_vectors_on_postgres() {
    let server = pg::TempPostgres::start();
    governor_ops::use_postgres(Some(vectors_db(&server)));
    // A vector of thousands of commands (the 10 001 acquires of the ExportAudit paging case)
    // takes minutes on a PostgreSQL store; it runs on every other store, and here with
    // LEASEKIT_PG_LONG_VECTORS=1 (`make conformance-rust-postgres` runs every vector there).
    let long_too = std::env::var_os("LEASEKIT_PG_LONG_VECTORS").is_some_and(|v| v == "1");
    let skipped = std::cell::Cell::new(0usize);
    let (passed, failed, failures) = run_vectors(|op, input| {
        let long = input["steps"]
            .as_array()
            .is_some_and(|s| s.len() > LONG_VECTOR_STEPS);
        if op == "governor" && long && !long_too {
            skipped.set(skipped.get() + 1);
        }
        op == "governor" && (long_too || !long)
    });
    if skipped.get() > 0 {
        println!(
            "governor vectors on PostgreSQL: {} long vector(s) skipped (LEASEKIT_PG_LONG_VECTORS=1 runs them)",
            skipped.get()
        );
    }
    governor_ops::use_postgres(None);
    for f in &failures {
        eprintln!("FAIL {f}");
    }
    println!("governor vectors on PostgreSQL: {passed} passed, {failed} failed");
    assert!(passed > 400, "governor vectors missing: {passed}");
    assert_eq!(failed, 0, "{failed} governor vectors failed on PostgreSQL");
}

/// Steps past which a governor vector counts as long (see `governor_vectors_on_postgres`).
#[cfg(feature = "postgres")]
const LONG_VECTOR_STEPS: usize = 2_000;

#[test]
fn lone_surrogates_are_marked_and_pairs_kept() {
    let text =
        r#"["\ud800", "a\udc00b", "\ud83d\ude00", "\\ud800", "\ud800\ud800\udc00", "\u00e9"]"#;
    let v: Value = serde_json::from_str(&mark_lone_surrogates(text)).unwrap();
    let m = LONE.to_string();
    assert_eq!(
        v,
        json!([
            m,
            format!("a{m}b"),
            "\u{1F600}",
            "\\ud800",
            format!("{m}\u{10000}"),
            "\u{e9}"
        ])
    );
    assert!(has_lone(&json!({"k": [{"x": m}]})) && has_lone(&json!({ m.clone(): 1 })));
    assert!(!has_lone(&json!({"k": ["\u{1F600}"]})));
}
