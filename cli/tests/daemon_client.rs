//! `GovernorClient` against a real daemon: same answers as the embedded governor, connection
//! reuse, a deadline per call, and the local fallback of SEMANTICS 13.13 only when the daemon
//! cannot be reached.

mod daemon;

use std::os::unix::net::UnixListener;
use std::time::{Duration, Instant};

use daemon::Daemon;
use leasekit::ErrorCode;
use leasekit::governor::client::{ClientOptions, FallbackMode, GovernorClient};
use leasekit::governor::wire::{AcquireRequest, ActionType, ReleaseRequest};
use serde_json::Value;

fn client(socket: &std::path::Path, fallback: FallbackMode) -> GovernorClient {
    GovernorClient::with_options(
        socket,
        ClientOptions {
            fallback,
            timeout: Duration::from_millis(1500),
            ..ClientOptions::default()
        },
    )
}

fn chat() -> AcquireRequest {
    AcquireRequest {
        actor_id: "a".into(),
        max_output_tokens: 100,
        estimated_cost_cents: 2,
        ..AcquireRequest::default()
    }
}

/// Sockets the daemon process holds.
fn daemon_sockets(d: &Daemon) -> usize {
    std::fs::read_dir(format!("/proc/{}/fd", d.pid()))
        .unwrap()
        .filter_map(|e| std::fs::read_link(e.unwrap().path()).ok())
        .filter(|l| l.to_string_lossy().starts_with("socket:"))
        .count()
}

#[test]
fn reuses_one_connection_for_many_calls() {
    let d = Daemon::start(&["--store", "memory"]);
    let c = d.client();
    c.metrics().unwrap();
    std::thread::sleep(Duration::from_millis(200));
    let before = daemon_sockets(&d);
    for _ in 0..50 {
        let g = c.acquire(chat()).unwrap();
        assert!(g.granted && !g.lease_id.starts_with("local-"));
        c.release(ReleaseRequest {
            lease_id: g.lease_id,
            ..Default::default()
        })
        .unwrap();
    }
    assert_eq!(daemon_sockets(&d), before, "a new connection per call");
    // Dropping the client closes its connection.
    drop(c);
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(daemon_sockets(&d), before - 1);
}

#[test]
fn reconnects_after_the_daemon_restarts() {
    let mut d = Daemon::start(&[]);
    let c = d.client();
    let g = c.acquire(chat()).unwrap();
    d.stop();
    d.restart();
    // The pooled connection is dead; the next call takes a new one, and the lease survived.
    let r = c
        .release(ReleaseRequest {
            lease_id: g.lease_id,
            ..Default::default()
        })
        .unwrap();
    assert_eq!(r.classification.as_str(), "recorded");
}

#[test]
fn handle_is_the_embedded_dispatcher_over_the_socket() {
    let d = Daemon::start(&["--store", "memory"]);
    let c = d.client();
    let env: Value = serde_json::from_str(&c.handle("GetMetrics", "{}")).unwrap();
    assert_eq!(env["success"], true);
    assert_eq!(env["protocolVersion"], "0.1");
    let env: Value = serde_json::from_str(&c.handle("Nope", "{}")).unwrap();
    assert_eq!(env["success"], false);
    assert_eq!(env["error"], "unknown_command");
}

#[test]
fn success_false_is_an_error_never_a_fallback() {
    // uid 12345 is the only admin: this process's admin commands are refused.
    let d = Daemon::start(&["--store", "memory", "--admin-uid", "12345"]);
    let c = client(&d.socket, FallbackMode::Dev);
    // An invalid payload through handle: the daemon's failure, not a local grant.
    let env: Value =
        serde_json::from_str(&c.handle("Acquire", "{\"estimatedCostCents\": -5}")).unwrap();
    assert_eq!(env["success"], false);
    assert!(
        env["error"]
            .as_str()
            .unwrap()
            .starts_with("invalid payload")
    );
    // A typed call answered success:false is an Err with the daemon's reason.
    let e = c.export_audit(Default::default()).unwrap_err();
    assert_eq!(e.code(), ErrorCode::PermissionDenied, "{e}");
    assert_eq!(e.details()["reason"], "daemon_error");
    assert_eq!(d.client().metrics().unwrap().active_leases, 0);
}

#[test]
fn fallback_only_when_unreachable() {
    let dir = daemon::temp_dir("fb");
    let sock = dir.join("gone.sock");
    // No socket at all.
    let prod = client(&sock, FallbackMode::Prod);
    let g = prod.acquire(chat()).unwrap();
    assert!(
        g.granted && g.lease_id.starts_with("local-") && g.degraded_mode,
        "{g:?}"
    );
    assert_eq!(g.recommendation, "prod read-only fallback grant");
    let r = prod
        .release(ReleaseRequest {
            lease_id: g.lease_id.clone(),
            ..Default::default()
        })
        .unwrap();
    assert_eq!(r.classification.as_str(), "recorded");
    let denied = prod
        .acquire(AcquireRequest {
            action_type: ActionType::ToolCall,
            ..chat()
        })
        .unwrap();
    assert_eq!(
        denied.denied_reason,
        "service_unavailable_prod_readonly_only"
    );
    assert_eq!(denied.retry_after_ms, Some(1000));
    let dev = client(&sock, FallbackMode::Dev);
    let g = dev
        .acquire(AcquireRequest {
            max_output_tokens: 200,
            ..chat()
        })
        .unwrap();
    assert_eq!(g.recommendation, "dev fallback grant");
    // Through handle as well.
    let env: Value =
        serde_json::from_str(&dev.handle("Acquire", "{\"maxOutputTokens\": 10}")).unwrap();
    assert_eq!(env["success"], true);
    let p: Value = serde_json::from_str(env["payloadJson"].as_str().unwrap()).unwrap();
    assert!(p["leaseId"].as_str().unwrap().starts_with("local-"));
    // Other commands and fallback off: errors.
    assert!(dev.metrics().is_err());
    let off = client(&sock, FallbackMode::Off);
    let e = off.acquire(chat()).unwrap_err();
    assert_eq!(e.details()["reason"], "daemon_unreachable");
    // A release of a daemon lease that cannot reach the daemon: an error, not leaseNotFound.
    assert!(
        dev.release(ReleaseRequest {
            lease_id: "abc".into(),
            ..Default::default()
        })
        .is_err()
    );

    // A socket file with nobody listening: unreachable too.
    drop(UnixListener::bind(&sock).unwrap());
    assert!(prod.acquire(chat()).unwrap().lease_id.starts_with("local-"));

    // A daemon that accepts but never answers: a timeout error, never a fallback (it may
    // have acted).
    std::fs::remove_file(&sock).unwrap();
    let silent = UnixListener::bind(&sock).unwrap();
    let t = Instant::now();
    let e = prod.acquire(chat()).unwrap_err();
    assert_eq!(e.code(), ErrorCode::Timeout, "{e}");
    assert!(t.elapsed() < Duration::from_secs(5));
    drop(silent);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn call_json_is_the_strict_typed_call_over_the_socket() {
    let d = Daemon::start(&["--store", "memory"]);
    let c = d.client();
    let grant: Value = serde_json::from_str(
        &c.call_json(
            "Acquire",
            r#"{"actorId":"a","maxOutputTokens":100,"estimatedCostCents":2}"#,
        )
        .unwrap(),
    )
    .unwrap();
    assert_eq!(grant["granted"], true);
    let lease = grant["leaseId"].as_str().unwrap().to_string();
    assert!(!lease.starts_with("local-"));
    let status: Value = serde_json::from_str(&c.call_json("GetStatus", "").unwrap()).unwrap();
    assert_eq!(status["activeLeases"], 1, "{status}");
    // A misspelt field is refused before it is sent: nothing changes on the daemon.
    let err = c
        .call_json(
            "Release",
            &format!(r#"{{"leaseId":"{lease}","actualCostCent":1}}"#),
        )
        .unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidRequest, "{err}");
    let err = c.call_json("Nope", "{}").unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidRequest);
    let status: Value = serde_json::from_str(&c.call_json("GetStatus", "{}").unwrap()).unwrap();
    assert_eq!(status["activeLeases"], 1);
    let rel: Value = serde_json::from_str(
        &c.call_json(
            "Release",
            &format!(r#"{{"leaseId":"{lease}","actualCostCents":1}}"#),
        )
        .unwrap(),
    )
    .unwrap();
    assert_eq!(rel["classification"], "recorded", "{rel}");
}

#[test]
fn call_json_refuses_a_bad_payload_even_when_the_daemon_is_unreachable() {
    let dir = daemon::temp_dir("cj");
    let c = client(&dir.join("none.sock"), FallbackMode::Dev);
    let err = c
        .call_json("Acquire", r#"{"actorId":"a","estimatedCost":2}"#)
        .unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidRequest);
    // A well-formed Acquire falls back as the typed method does.
    let grant: Value = serde_json::from_str(
        &c.call_json("Acquire", r#"{"actorId":"a","maxOutputTokens":10}"#)
            .unwrap(),
    )
    .unwrap();
    assert!(
        grant["leaseId"].as_str().unwrap().starts_with("local-"),
        "{grant}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
