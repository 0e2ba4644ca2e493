//! The governor conformance vectors (conformance/vectors/governor.json, API.md) replayed over
//! the socket of a real `leasekit serve` process, one daemon per vector, through core's
//! `GovernorClient::handle`: the socket runner mode of the conformance suite. Each daemon runs
//! with the test-only `--clock manual:<start>` (moved by the admin-only `TestSetClock`) and
//! `--ids deterministic`; `{"restart": true}` is a real SIGTERM and restart on the same state.
//! The frame_decode vectors are sent as raw bytes to a daemon as well.
//! As root, `RequestApproval` steps are sent by another uid and each reviewer id's decisions by
//! an admin uid of its own: a uid never reviews an approval it requested and counts once toward
//! a quorum (SEMANTICS 13.16).
//! `LEASEKIT_VECTORS=<dir>` points at another vector directory.

mod daemon;

use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::time::Duration;

use daemon::Daemon;
use daemon::compare::matches;
use leasekit::governor::wire::{ResponseEnvelope, format_time_ms};
use serde_json::{Value, json};

fn vectors_dir() -> PathBuf {
    match std::env::var("LEASEKIT_VECTORS") {
        Ok(d) if !d.is_empty() => PathBuf::from(d),
        _ => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../conformance/vectors"),
    }
}

fn load(name: &str) -> Vec<Value> {
    let path = vectors_dir().join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let doc: Value = serde_json::from_str(&text).unwrap();
    doc["vectors"].as_array().unwrap().clone()
}

fn ms(t: &str) -> i64 {
    leasekit::parse_expires_at(t)
        .unwrap_or_else(|e| panic!("bad time {t}: {e}"))
        .unix_millis()
}

/// Runs one governor vector against its own daemon; `Err` says what differed.
/// The uid that sends `RequestApproval`: a uid never reviews an approval it requested
/// (SEMANTICS 13.16), so a vector's requests come from another uid than its reviews.
const REQUESTER_UID: u32 = 65534;

/// Admin uids that send a vector's reviews, one per reviewer id (one uid is one person).
const REVIEWER_UIDS: std::ops::Range<u32> = 65500..65532;

/// `command` sent as `uid` through `leasekit gov call`.
fn call_as(uid: u32, d: &Daemon, command: &str, payload: &str) -> ResponseEnvelope {
    let out = std::process::Command::new(daemon::leasekit_bin_for_any_uid())
        .arg("gov")
        .arg("--socket")
        .arg(&d.socket)
        .args(["call", command, payload])
        .uid(uid)
        .gid(uid)
        .output()
        .expect("run leasekit gov call");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "gov call answered no JSON ({e}): {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    ResponseEnvelope {
        success: v["success"] == true,
        payload_json: if v["payload"].is_null() {
            String::new()
        } else {
            v["payload"].to_string()
        },
        error: v["error"].as_str().unwrap_or_default().to_string(),
        protocol_version: "0.1".into(),
    }
}

fn run_vector(v: &Value) -> Result<(), String> {
    let input = &v["input"];
    let dir = daemon::temp_dir("v");
    std::fs::write(dir.join("policy.json"), input["policy"].to_string()).unwrap();
    let mut now = ms(input["start"].as_str().unwrap());
    let mut base = vec![
        "--policy".to_string(),
        dir.join("policy.json").display().to_string(),
        "--ids".into(),
        "deterministic".into(),
        "--sweep-interval-ms".into(),
        "3600000".into(),
        "--socket-mode".into(),
        "666".into(),
        "--admin-uid".into(),
        "0".into(),
    ];
    for uid in REVIEWER_UIDS {
        base.push("--admin-uid".into());
        base.push(uid.to_string());
    }
    if let Some(o) = input.get("options") {
        std::fs::write(dir.join("options.json"), o.to_string()).unwrap();
        base.push("--options".into());
        base.push(dir.join("options.json").display().to_string());
    }
    let store = input["store"].as_str().unwrap_or("memory");
    base.push("--store".into());
    base.push(store.into());
    let with_clock = |now: i64| {
        let mut a = base.clone();
        a.push("--clock".into());
        a.push(format!("manual:{}", format_time_ms(now)));
        a
    };
    let mut d = Daemon::try_start_in(&dir, with_clock(now))?;
    let as_root = leasekit_serve::listener::current_uid() == 0;
    let mut reviewers: std::collections::HashMap<String, u32> = Default::default();
    let mut client = d.client();
    let steps = input["steps"].as_array().unwrap();
    let expects = v["expect"].as_array().unwrap();
    if steps.len() != expects.len() {
        return Err("steps and expect differ in length".into());
    }
    for (i, (step, expect)) in steps.iter().zip(expects).enumerate() {
        let fail = |m: String| Err(format!("step {i} ({}): {m}", step));
        if let Some(at) = step.get("at").and_then(Value::as_str) {
            let t = match at.strip_prefix('+') {
                Some(n) => now + n.parse::<i64>().unwrap(),
                None => ms(at),
            };
            // Before a restart the time moves while the daemon is down: the new daemon starts
            // at it (the old one never sees it).
            let restart = step.get("restart").and_then(Value::as_bool) == Some(true);
            if t != now && restart {
                now = t;
            } else if t != now {
                now = t;
                let env = client.handle_envelope(
                    "TestSetClock",
                    &json!({"now": format_time_ms(now)}).to_string(),
                );
                if !env.success {
                    return fail(format!("TestSetClock failed: {}", env.error));
                }
            }
        }
        if step.get("restart").and_then(Value::as_bool) == Some(true) {
            let status = d.stop();
            if !status.success() {
                return fail(format!("daemon exited {status} at restart:\n{}", d.log()));
            }
            d.try_restart_with(with_clock(now))
                .map_err(|e| format!("step {i}: restart: {e}"))?;
            client = d.client();
            if expect != "ok" {
                return fail(format!("restart expects {expect}"));
            }
            continue;
        }
        let (command, payload) = if step.get("verify_audit").and_then(Value::as_bool) == Some(true)
        {
            ("VerifyAudit".to_string(), "{}".to_string())
        } else {
            (
                step["command"].as_str().unwrap().to_string(),
                step["payload"].to_string(),
            )
        };
        let reviewer = ["reviewerId", "grantedBy", "deniedBy"]
            .iter()
            .find_map(|k| step["payload"].get(*k).and_then(Value::as_str));
        let env = match (command.as_str(), reviewer) {
            ("RequestApproval", _) if as_root => call_as(REQUESTER_UID, &d, &command, &payload),
            ("ReviewApproval" | "GrantApproval" | "DenyApproval", Some(name)) if as_root => {
                let next = REVIEWER_UIDS.start + reviewers.len() as u32;
                let uid = *reviewers.entry(name.to_string()).or_insert(next);
                call_as(uid, &d, &command, &payload)
            }
            _ => client.handle_envelope(&command, &payload),
        };
        if expect.get("success") == Some(&Value::Bool(false)) {
            if env.success {
                return fail(format!(
                    "expected a failed command, got {}",
                    env.payload_json
                ));
            }
            if let Some(e) = expect.get("error").and_then(Value::as_str)
                && env.error != e
            {
                return fail(format!("expected error {e:?}, got {:?}", env.error));
            }
            continue;
        }
        if !env.success {
            return fail(format!("command failed: {}", env.error));
        }
        let actual: Value = serde_json::from_str(&env.payload_json)
            .map_err(|e| format!("step {i}: payload is not JSON: {e}"))?;
        if let Err(m) = matches(expect, &actual) {
            return fail(m);
        }
    }
    let status = d.stop();
    if !status.success() {
        return Err(format!("daemon exited {status}:\n{}", d.log()));
    }
    Ok(())
}

/// Runs `f` over `items` on `threads` threads; the failures, in order.
fn parallel<T: Sync>(
    items: &[T],
    threads: usize,
    f: impl Fn(&T) -> Result<(), String> + Sync,
) -> Vec<(usize, String)> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let failures = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(item) = items.get(i) else { break };
                    if let Err(m) = f(item) {
                        failures.lock().unwrap().push((i, m));
                    }
                }
            });
        }
    });
    let mut f = failures.into_inner().unwrap();
    f.sort();
    f
}

#[test]
fn governor_vectors_over_the_socket() {
    let vectors = load("governor.json");
    assert!(!vectors.is_empty());
    for v in &vectors {
        assert_eq!(
            v["op"], "governor",
            "unknown op in governor.json: {}",
            v["op"]
        );
    }
    // Replayed over the socket: every vector except those whose expectations hold only for an
    // in-process caller (a policy with `uidBindings`: an in-process caller has no uid, a peer
    // always has one) and the few of thousands of commands (the 10 001-acquire ExportAudit
    // paging case), which the embedded runners cover in every language.
    let (vectors, skipped): (Vec<Value>, Vec<Value>) = vectors.into_iter().partition(|v| {
        let steps = v["input"]["steps"].as_array().map_or(0, Vec::len);
        v["input"]["policy"].get("uidBindings").is_none() && steps <= 2_000
    });
    eprintln!(
        "governor vectors over the socket: {} skipped (uidBindings or over 2 000 commands)",
        skipped.len()
    );
    let failures = parallel(&vectors, 3, run_vector);
    let n = vectors.len();
    for (i, m) in &failures {
        eprintln!("FAIL {}: {m}", vectors[*i]["id"]);
    }
    eprintln!(
        "governor vectors over the socket: {} passed, {} failed",
        n - failures.len(),
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} of {n} vectors failed",
        failures.len()
    );
}

/// What a daemon answers to one raw frame, as a decoded command or a frame error.
fn decode_over_socket(d: &Daemon, bytes: &[u8]) -> Value {
    let mut s = UnixStream::connect(&d.socket).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let _ = s.write_all(bytes);
    // The end of the request: a truncated frame is then an error, not a wait.
    let _ = s.shutdown(std::net::Shutdown::Write);
    let Some(resp) = daemon::read_response(&mut s) else {
        return json!({"error": "closed without an answer"});
    };
    let mut rest = Vec::new();
    let _ = s.read_to_end(&mut rest);
    let error = resp["error"].as_str().unwrap_or_default();
    // The envelope decoded when the dispatcher answered: a payload, an unknown command, an
    // invalid payload, or an admin refusal.
    if resp["success"] == true
        || error == "unknown_command"
        || error.starts_with("invalid payload:")
        || error.starts_with("permission_denied")
    {
        json!({"decoded": true})
    } else {
        json!({"error": error})
    }
}

#[test]
fn frame_decode_vectors_over_the_socket() {
    let vectors = load("frame_decode.json");
    let d = Daemon::start(&["--store", "memory"]);
    let mut failures = Vec::new();
    for v in &vectors {
        assert_eq!(v["op"], "frame_decode");
        let bytes = hex::decode(v["input"]["hex"].as_str().unwrap()).unwrap();
        let got = decode_over_socket(&d, &bytes);
        let ok = match v["expect"].get("command") {
            Some(_) => got.get("decoded").is_some(),
            None => got.get("error").is_some(),
        };
        if !ok {
            failures.push(format!(
                "{}: expected {}, daemon answered {got}",
                v["id"], v["expect"]
            ));
        }
    }
    // The daemon is still up and serving.
    d.client().status().expect("daemon still serves");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
