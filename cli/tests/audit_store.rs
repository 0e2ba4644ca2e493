//! `leasekit audit verify|export` on the store of a real `leasekit serve` (SQLite, the default):
//! the state directory verifies read-only, while the daemon runs and after a kill -9 under
//! load; a tampered or deleted row is named (exit 1); `audit export` writes a JSONL file that
//! `audit verify` and `audit proof` accept; a line that is not the RFC 8785 form of its record
//! (a duplicated key) is a bad line (SEMANTICS 13.10, 13.16).

mod daemon;

use std::path::Path;
use std::process::{Command, Output};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use daemon::Daemon;
use leasekit::governor::wire::{AcquireRequest, ReleaseRequest};
use serde_json::{Value, json};

fn leasekit(args: &[&str]) -> Output {
    Command::new(daemon::leasekit_bin())
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .expect("run leasekit")
}

fn verify_json(path: &str) -> (i32, Value) {
    let out = leasekit(&["audit", "verify", path, "--format", "json"]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out.status.code().unwrap_or(-1), v)
}

fn start() -> Daemon {
    let dir = daemon::temp_dir("aud");
    let p = dir.join("policy.json");
    std::fs::write(
        &p,
        json!({"policyVersion": "v1", "maxInFlight": 1_000_000,
               "dailyBudgetCents": 1_000_000_000i64, "maxRequestsPerMinute": 1_000_000_000,
               "maxTokensPerMinute": 1_000_000_000_000i64, "leaseTtlMs": 600_000})
        .to_string(),
    )
    .unwrap();
    Daemon::start_in(&dir, vec!["--policy".into(), p.display().to_string()])
}

fn pairs(d: &Daemon, n: usize) {
    let c = d.client();
    for i in 0..n {
        let g = c
            .acquire(AcquireRequest {
                actor_id: format!("a{i}"),
                workspace_id: "w".into(),
                estimated_cost_cents: 1,
                ..AcquireRequest::default()
            })
            .unwrap();
        assert!(g.granted, "{g:?}");
        c.release(ReleaseRequest {
            lease_id: g.lease_id,
            actual_cost_cents: 1,
            ..ReleaseRequest::default()
        })
        .unwrap();
    }
}

fn db(d: &Daemon) -> std::path::PathBuf {
    d.state.join("governor.db")
}

#[test]
fn kill_9_under_load_then_the_state_dir_verifies() {
    let mut d = start();
    let state = d.state.display().to_string();
    let stop = AtomicBool::new(false);
    let answered = AtomicU64::new(0);
    std::thread::scope(|s| {
        for t in 0..4 {
            let c = d.client();
            let (stop, answered) = (&stop, &answered);
            s.spawn(move || {
                // Bounded: at most 5 000 pairs per thread, or until the daemon is gone.
                for i in 0..5_000 {
                    if stop.load(Ordering::Relaxed) {
                        break;
                    }
                    let Ok(g) = c.acquire(AcquireRequest {
                        actor_id: format!("t{t}"),
                        workspace_id: "w".into(),
                        estimated_cost_cents: 1,
                        session_id: format!("{t}-{i}"),
                        ..AcquireRequest::default()
                    }) else {
                        break;
                    };
                    answered.fetch_add(1, Ordering::Relaxed);
                    if c.release(ReleaseRequest {
                        lease_id: g.lease_id,
                        actual_cost_cents: 1,
                        ..ReleaseRequest::default()
                    })
                    .is_err()
                    {
                        break;
                    }
                }
            });
        }
        // Verified while the daemon writes: read-only, beside the writer.
        let deadline = Instant::now() + Duration::from_secs(20);
        while answered.load(Ordering::Relaxed) < 200 && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
        let (code, v) = verify_json(&state);
        assert_eq!(code, 0, "{v}");
        assert!(v["records"].as_u64().unwrap() >= 200, "{v}");
        d.kill9();
        stop.store(true, Ordering::Relaxed);
    });
    let before = std::fs::read(db(&d)).unwrap();
    let (code, v) = verify_json(&state);
    assert_eq!(code, 0, "after kill -9: {v}");
    let records = v["records"].as_u64().unwrap();
    assert!(records >= answered.load(Ordering::Relaxed), "{v}");
    // Read-only: the store file is as it was.
    assert_eq!(
        std::fs::read(db(&d)).unwrap(),
        before,
        "verify wrote the store"
    );
    let text = leasekit(&["audit", "verify", &state]);
    assert!(
        String::from_utf8_lossy(&text.stdout).contains(&format!("ok: {records} records verify")),
        "{}",
        String::from_utf8_lossy(&text.stdout)
    );
    // The restarted daemon continues the same chain.
    d.restart();
    pairs(&d, 1);
    let (code, v) = verify_json(&state);
    assert_eq!(code, 0, "{v}");
    assert!(v["records"].as_u64().unwrap() >= records + 2, "{v}");
}

#[test]
fn a_tampered_row_is_named_and_a_deleted_last_row_fails() {
    let mut d = start();
    pairs(&d, 3);
    d.stop();
    let path = db(&d).display().to_string();
    let state = d.state.display().to_string();
    for loc in [state.clone(), format!("sqlite:{path}"), path.clone()] {
        let (code, v) = verify_json(&loc);
        assert_eq!(code, 0, "{loc}: {v}");
        assert_eq!(v["records"], 6, "{loc}: {v}");
    }
    let conn = rusqlite::Connection::open(&path).unwrap();
    let body: String = conn
        .query_row("SELECT body FROM audit WHERE line = 4", [], |r| r.get(0))
        .unwrap();
    let edited = body.replacen("\"a1\"", "\"a9\"", 1);
    assert_ne!(body, edited);
    conn.execute("UPDATE audit SET body = ?1 WHERE line = 4", [&edited])
        .unwrap();
    let (code, v) = verify_json(&state);
    assert_eq!(code, 1, "{v}");
    assert_eq!(v["ok"], false);
    assert_eq!(v["line"], 4, "{v}");
    assert_eq!(v["file"], path.as_str(), "{v}");
    let text = leasekit(&["audit", "verify", &state]);
    assert_eq!(text.status.code(), Some(1));
    let shown = String::from_utf8_lossy(&text.stdout).to_string();
    assert!(
        shown.starts_with(&format!("{path}:4: tampered: entryHash does not recompute")),
        "{shown}"
    );
    // Put it back, then delete the last row: the chain left links and recomputes, but it
    // does not end at the head the store records.
    conn.execute("UPDATE audit SET body = ?1 WHERE line = 4", [&body])
        .unwrap();
    assert_eq!(verify_json(&state).0, 0);
    conn.execute("DELETE FROM audit WHERE line = 6", [])
        .unwrap();
    drop(conn);
    let (code, v) = verify_json(&state);
    assert_eq!(code, 1, "{v}");
    assert_eq!(v["line"], 6, "{v}");
    assert!(v["message"].as_str().unwrap().contains("missing"), "{v}");
}

#[test]
fn export_writes_a_file_that_verify_and_proof_accept() {
    let mut d = start();
    pairs(&d, 3);
    let dir = d.dir.clone();
    let state = d.state.display().to_string();
    let file = dir.join("chain.jsonl");
    let f = file.display().to_string();
    // While the daemon runs.
    let out = leasekit(&["audit", "export", "--store", &state, &f]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("wrote 6 audit records (lines 1..6)"));
    let text = std::fs::read_to_string(&file).unwrap();
    for line in text.lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        assert_eq!(
            leasekit::governor::audit::canonical_text(&v).unwrap(),
            line,
            "not RFC 8785"
        );
    }
    let (code, v) = verify_json(&f);
    assert_eq!((code, v["records"].as_u64()), (0, Some(6)), "{v}");
    let out = leasekit(&["audit", "proof", "export", &f, "--from", "2", "--to", "5"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let bundle = dir.join("proof.json");
    std::fs::write(&bundle, &out.stdout).unwrap();
    let out = leasekit(&["audit", "proof", "verify", bundle.to_str().unwrap(), &f]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    // A range, to stdout.
    let out = leasekit(&[
        "audit", "export", "--store", &state, "--from", "2", "--to", "3", "-",
    ]);
    assert!(out.status.success());
    let lines: Vec<&str> = std::str::from_utf8(&out.stdout).unwrap().lines().collect();
    assert_eq!(lines, text.lines().skip(1).take(2).collect::<Vec<_>>());
    // A line that is not its RFC 8785 form is not exported (nor rewritten into one).
    d.stop();
    let conn = rusqlite::Connection::open(db(&d)).unwrap();
    let body: String = conn
        .query_row("SELECT body FROM audit WHERE line = 2", [], |r| r.get(0))
        .unwrap();
    conn.execute(
        "UPDATE audit SET body = ?1 WHERE line = 2",
        [body.replacen('{', "{\"actorId\":\"x\",", 1)],
    )
    .unwrap();
    drop(conn);
    let out2 = dir.join("bad.jsonl");
    let out = leasekit(&["audit", "export", "--store", &state, out2.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains(":2: tampered"));
    assert!(!out2.exists());
    // Not a store.
    let out = leasekit(&["audit", "export", "--store", &f, "x.jsonl"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn a_jsonl_line_with_a_duplicated_key_is_a_bad_line() {
    let d = start();
    pairs(&d, 2);
    let dir = d.dir.clone();
    let file = dir.join("chain.jsonl");
    let state = d.state.display().to_string();
    let out = leasekit(&["audit", "export", "--store", &state, file.to_str().unwrap()]);
    assert!(out.status.success());
    let lines: Vec<String> = std::fs::read_to_string(&file)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    // A duplicated key whose last value is the hashed one: the parsed record is unchanged,
    // so only the bytes tell; a reader that keeps the first value would see "mallory".
    let mut bad = lines.clone();
    bad[1] = bad[1].replacen('{', "{\"actorId\":\"mallory\",", 1);
    let b = dir.join("dup.jsonl");
    std::fs::write(&b, bad.join("\n") + "\n").unwrap();
    let (code, v) = verify_json(b.to_str().unwrap());
    assert_eq!(code, 1, "a line with a duplicated key verified: {v}");
    assert_eq!(v["line"], 2, "{v}");
    // Other spacing too.
    let mut spaced = lines.clone();
    spaced[2] = spaced[2].replacen("\":", "\": ", 1);
    std::fs::write(&b, spaced.join("\n") + "\n").unwrap();
    let (code, v) = verify_json(b.to_str().unwrap());
    assert_eq!((code, v["line"].as_u64()), (1, Some(3)), "{v}");
}

#[test]
fn a_directory_without_a_store_or_jsonl_is_a_usage_error() {
    let dir = daemon::temp_dir("empty");
    let out = leasekit(&["audit", "verify", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("governor.db"));
    let missing = Path::new(&dir).join("nope.db");
    let out = leasekit(&["audit", "verify", &format!("sqlite:{}", missing.display())]);
    assert_eq!(out.status.code(), Some(2));
    assert!(!missing.exists(), "a read-only open created the file");
    let _ = std::fs::remove_dir_all(&dir);
}
