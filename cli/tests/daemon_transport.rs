//! The daemon's socket under bad and odd input (SEMANTICS 13.1, 13.16): every test talks to
//! a real `leasekit serve` process with raw bytes, then checks that the daemon still serves.

mod daemon;

use std::io::{Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::UnixStream;
use std::process::Command;
use std::time::{Duration, Instant};

use daemon::{Daemon, envelope, frame, read_response};
use serde_json::{Value, json};

fn connect(d: &Daemon) -> UnixStream {
    let s = UnixStream::connect(&d.socket).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    s
}

/// Sends raw bytes and reads the one answer (or None when the daemon closed silently).
fn raw(d: &Daemon, bytes: &[u8], close_write: bool) -> Option<Value> {
    let mut s = connect(d);
    s.write_all(bytes).unwrap();
    if close_write {
        s.shutdown(std::net::Shutdown::Write).unwrap();
    }
    read_response(&mut s)
}

fn assert_serves(d: &Daemon) {
    let m = d.client().metrics().expect("the daemon still serves");
    assert_eq!(m.failed_audit_writes, 0);
}

#[test]
fn socket_is_owner_only_and_state_private() {
    let d = Daemon::start(&["--store", "memory"]);
    let mode = std::fs::metadata(&d.socket).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "socket mode {mode:o}");
    let mode = std::fs::metadata(&d.state).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o700, "state dir mode {mode:o}");
    drop(d);
    let d = Daemon::start(&["--store", "memory", "--socket-mode", "660"]);
    let mode = std::fs::metadata(&d.socket).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o660);
}

#[test]
fn bad_lengths_are_answered_then_closed() {
    let d = Daemon::start(&["--store", "memory"]);
    for len in [0i32, -1, i32::MIN, 16_777_217] {
        let mut bytes = len.to_le_bytes().to_vec();
        bytes.extend_from_slice(b"{}");
        let r = raw(&d, &bytes, false).expect("an error frame");
        assert_eq!(r["success"], false, "{len}");
        let e = r["error"].as_str().unwrap();
        if len > 0 {
            assert!(e.contains("exceeds maximum"), "{e}");
        } else {
            assert!(e.contains("invalid payload length"), "{e}");
        }
    }
    // 16 MiB exactly is a legal length: the daemon waits for it (and answers an empty
    // stream end with a truncation error).
    let mut bytes = 16_777_216i32.to_le_bytes().to_vec();
    bytes.extend_from_slice(b"{");
    let r = raw(&d, &bytes, true).expect("an error frame");
    assert!(
        r["error"]
            .as_str()
            .unwrap()
            .contains("ended inside a frame"),
        "{r}"
    );
    assert_serves(&d);
}

#[test]
fn truncated_frames_are_errors() {
    let d = Daemon::start(&["--store", "memory"]);
    let whole = frame(&envelope("GetMetrics", &json!({})));
    for cut in [2, 4, 10, whole.len() - 1] {
        let r = raw(&d, &whole[..cut], true).expect("an error frame");
        assert_eq!(r["success"], false);
        assert!(
            r["error"].as_str().unwrap().contains("ended inside"),
            "{cut}: {r}"
        );
    }
    // Nothing at all: a clean close, no answer.
    assert!(raw(&d, b"", true).is_none());
    assert_serves(&d);
}

#[test]
fn bad_payloads_are_answers_and_the_connection_goes_on() {
    let d = Daemon::start(&["--store", "memory"]);
    let mut s = connect(&d);
    let deep_envelope = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let deep_payload = format!("{}{}", "{\"a\":".repeat(50_000), "1}".repeat(50_000));
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (vec![0xff, 0xfe, b'{', b'}'], "not UTF-8"),
        (b"not json".to_vec(), "not a request envelope"),
        (deep_envelope.into_bytes(), "not a request envelope"),
        (
            envelope("Acquire", &Value::String(deep_payload)),
            "invalid payload",
        ),
        (
            serde_json::to_vec(&json!({"protocolVersion": "0.1", "command": "Acquire",
                "payloadJson": "{\"estimatedCostCents\": -1}"}))
            .unwrap(),
            "invalid payload",
        ),
        (envelope("NoSuchCommand", &json!({})), "unknown_command"),
        (
            serde_json::to_vec(&json!({"command": "GetMetrics", "payloadJson": 5})).unwrap(),
            "not a request envelope",
        ),
    ];
    for (payload, want) in &cases {
        s.write_all(&frame(payload)).unwrap();
        let r = read_response(&mut s).expect("an answer on the same connection");
        assert_eq!(r["success"], false, "{want}");
        assert!(r["error"].as_str().unwrap().contains(want), "{want}: {r}");
    }
    // The same connection still serves a good request; nothing was counted or audited.
    s.write_all(&frame(&envelope("GetStatus", &json!({}))))
        .unwrap();
    let r = read_response(&mut s).unwrap();
    assert_eq!(r["success"], true, "{r}");
    let status: Value = serde_json::from_str(r["payloadJson"].as_str().unwrap()).unwrap();
    assert_eq!(status["auditRecords"], 0);
    assert_serves(&d);
}

#[test]
fn many_requests_per_connection_and_one_per_connection() {
    let d = Daemon::start(&["--store", "memory"]);
    // Pipelined: three requests in one write, three answers in order.
    let mut s = connect(&d);
    let mut bytes = Vec::new();
    for actor in ["a", "b", "c"] {
        bytes.extend(frame(&envelope(
            "Acquire",
            &json!({"actorId": actor, "estimatedCostCents": 1, "idempotencyKey": actor}),
        )));
    }
    s.write_all(&bytes).unwrap();
    for actor in ["a", "b", "c"] {
        let r = read_response(&mut s).unwrap();
        let p: Value = serde_json::from_str(r["payloadJson"].as_str().unwrap()).unwrap();
        assert_eq!(p["idempotencyKey"], actor);
        assert_eq!(p["granted"], true, "{p}");
    }
    // LeaseGate's way: one pair per connection.
    for _ in 0..20 {
        let r = raw(&d, &frame(&envelope("GetMetrics", &json!({}))), true).unwrap();
        assert_eq!(r["success"], true);
    }
    assert_eq!(d.client().metrics().unwrap().active_leases, 3);
}

#[test]
fn a_thousand_idle_connections_do_not_block_others_and_are_closed_when_idle() {
    // One uid here, so its cap is raised past the 1000.
    let d = Daemon::start(&[
        "--store",
        "memory",
        "--idle-timeout",
        "2",
        "--max-connections-per-uid",
        "1100",
    ]);
    let idle: Vec<UnixStream> = (0..1000).map(|_| connect(&d)).collect();
    let t = Instant::now();
    for _ in 0..20 {
        d.client()
            .status()
            .expect("served beside 1000 idle connections");
    }
    eprintln!(
        "20 status calls beside 1000 idle connections: {:?}",
        t.elapsed()
    );
    // After the idle timeout every idle connection is closed by the daemon (EOF).
    std::thread::sleep(Duration::from_millis(2_500));
    let mut closed = 0;
    for mut s in idle {
        s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        let mut b = [0u8; 1];
        if matches!(s.read(&mut b), Ok(0)) {
            closed += 1;
        }
    }
    assert_eq!(closed, 1000);
    assert_serves(&d);
}

#[test]
fn a_slow_client_holds_only_its_own_connection() {
    // Others are served while the slow frame is still pending: all 50 calls end before the
    // slow connection's frame timeout (5 s, far above the calls' own time even on a loaded
    // machine, so a pass never depends on the machine's speed).
    let d = Daemon::start(&["--store", "memory", "--frame-timeout", "5"]);
    let whole = frame(&envelope("GetMetrics", &json!({})));
    let mut slow = connect(&d);
    slow.write_all(&whole[..6]).unwrap(); // then nothing
    let t = Instant::now();
    for _ in 0..50 {
        d.client().metrics().unwrap();
    }
    assert!(
        t.elapsed() < Duration::from_secs(5),
        "others were held up until the slow frame timed out: {:?}",
        t.elapsed()
    );
    // And the slow connection is still open (not yet answered) at that point.
    slow.set_nonblocking(true).unwrap();
    let mut probe = [0u8; 1];
    assert!(
        matches!(slow.read(&mut probe), Err(ref e) if e.kind() == std::io::ErrorKind::WouldBlock),
        "the slow connection was answered before its frame timeout"
    );
    slow.set_nonblocking(false).unwrap();
    // The slow one is cut after the frame timeout with an error.
    let r = read_response(&mut slow).expect("an error frame");
    assert!(r["error"].as_str().unwrap().contains("not complete"), "{r}");
    let mut b = [0u8; 1];
    assert_eq!(slow.read(&mut b).unwrap(), 0);
    assert_serves(&d);
}

#[test]
fn a_second_daemon_is_refused() {
    let d = Daemon::start(&["--store", "memory"]);
    let bin = daemon::leasekit_bin();
    let other = daemon::temp_dir("other");
    // Same state directory, another socket.
    let out = Command::new(&bin)
        .args(["serve", "--store", "memory", "--socket"])
        .arg(other.join("x.sock"))
        .arg("--state")
        .arg(&d.state)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("already serving state directory"), "{err}");
    assert!(err.contains(&format!("pid {}", d.pid())), "{err}");
    // Same socket, another state directory.
    let out = Command::new(&bin)
        .args(["serve", "--store", "memory", "--socket"])
        .arg(&d.socket)
        .arg("--state")
        .arg(other.join("state"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("already serving socket"), "{err}");
    // The first one is untouched.
    assert_serves(&d);
    let _ = std::fs::remove_dir_all(other);
}

#[test]
fn graceful_stop_removes_the_socket_and_a_stale_one_is_replaced() {
    let mut d = Daemon::start(&[]);
    let _idle = connect(&d);
    let status = d.stop();
    assert!(status.success(), "{status}\n{}", d.log());
    assert!(!d.socket.exists(), "socket left behind");
    assert!(d.log().contains("stopped"));
    // A crash leaves the socket file; the next start replaces it.
    d.restart();
    d.kill9();
    assert!(d.socket.exists());
    d.restart();
    assert_serves(&d);
    // Something that is not a socket is never replaced.
    let mut d2 = Daemon::start(&["--store", "memory"]);
    d2.stop();
    std::fs::write(&d2.socket, "precious").unwrap();
    let out = d2.command().output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("is not a socket"));
    assert_eq!(std::fs::read_to_string(&d2.socket).unwrap(), "precious");
}
