//! The daemon's resource caps under a hostile local peer (SEMANTICS 13.16 "Daemon
//! resources"): request bytes buffered across all connections are capped and reserved as
//! they arrive, one uid holds a bounded number of connections, and other uids are served
//! meanwhile. The hostile peer is uid 65534 (`nobody`), whose connections a forked child opens
//! and hands back (`daemon::peer`); the tests need root and say so without it.

mod daemon;

use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::time::{Duration, Instant};

use daemon::{Daemon, envelope, frame, read_response};
use leasekit::governor::wire::{AcquireRequest, ReleaseRequest};
use serde_json::json;

const OTHER: u32 = 65534;
const MIB: usize = 1024 * 1024;

fn is_root() -> bool {
    leasekit_serve::listener::current_uid() == 0
}

/// `VmRSS` and `VmHWM` (peak) of a process, in bytes.
fn rss(pid: i32) -> (usize, usize) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.split_whitespace().next())
            .and_then(|v| v.parse::<usize>().ok())
            .unwrap_or(0)
            * 1024
    };
    (field("VmRSS:"), field("VmHWM:"))
}

fn acquire_as_root(d: &Daemon, i: usize) -> Duration {
    let t = Instant::now();
    let grant = d
        .client()
        .acquire(AcquireRequest {
            actor_id: format!("root-{i}"),
            workspace_id: "w".into(),
            estimated_cost_cents: 1,
            ..AcquireRequest::default()
        })
        .expect("another uid is served while the budget is full");
    assert!(grant.granted, "{grant:?}");
    let elapsed = t.elapsed();
    let rel = d
        .client()
        .release(ReleaseRequest {
            lease_id: grant.lease_id,
            actual_cost_cents: 1,
            ..ReleaseRequest::default()
        })
        .unwrap();
    assert_eq!(rel.classification.as_str(), "recorded");
    elapsed
}

fn status_on(s: &mut UnixStream) -> serde_json::Value {
    try_status_on(s).expect("an answer")
}

/// GetMetrics on a raw connection; None when the daemon closed it.
fn try_status_on(s: &mut UnixStream) -> Option<serde_json::Value> {
    s.write_all(&frame(&envelope("GetMetrics", &json!({}))))
        .ok()?;
    read_response(s)
}

#[test]
fn huge_partial_frames_are_capped_and_other_uids_are_served() {
    if !is_root() {
        eprintln!("SKIP: needs root to act as a second uid");
        return;
    }
    // Default caps (256 MiB buffered, 64 connections per uid); a long frame timeout so that
    // only the byte budget can end the hostile frames.
    let d = Daemon::start(&[
        "--store",
        "memory",
        "--socket-mode",
        "666",
        "--frame-timeout",
        "300",
    ]);
    let cap = 256 * MIB;
    let mut conns: Vec<UnixStream> = daemon::peer::connect_as(OTHER, &d.socket, 48)
        .into_iter()
        .map(|c| c.expect("connect as uid 65534"))
        .collect();
    // Each announces the largest frame (16 MiB) and then sends all but its last byte, half a
    // MiB per connection in turn.
    let announced = 16 * MIB;
    let target = announced - 1;
    let chunk = vec![b' '; MIB / 2];
    let mut sent = vec![0usize; conns.len()];
    let mut open = vec![true; conns.len()];
    for s in &mut conns {
        s.set_write_timeout(Some(Duration::from_secs(20))).unwrap();
        s.write_all(&(announced as i32).to_le_bytes()).unwrap();
    }
    let started = Instant::now();
    let mut max_rss = 0;
    let mut slowest_acquire = Duration::ZERO;
    let mut acquires = 0;
    loop {
        let mut progressed = false;
        for (i, s) in conns.iter_mut().enumerate() {
            if !open[i] || sent[i] >= target {
                continue;
            }
            let n = chunk.len().min(target - sent[i]);
            match s.write_all(&chunk[..n]) {
                Ok(()) => {
                    sent[i] += n;
                    progressed = true;
                }
                // Refused and closed by the daemon.
                Err(_) => open[i] = false,
            }
        }
        max_rss = max_rss.max(rss(d.pid()).0);
        let total: usize = sent.iter().sum();
        // Once the hostile peer has pushed more than the cap, another uid must still be
        // served, promptly.
        if total > cap + 16 * MIB {
            slowest_acquire = slowest_acquire.max(acquire_as_root(&d, acquires));
            acquires += 1;
        }
        if !progressed {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(240),
            "the hostile peer took too long"
        );
    }
    // Give the daemon a moment to read what is still in flight, then look.
    std::thread::sleep(Duration::from_millis(300));
    let (now_rss, peak) = rss(d.pid());
    max_rss = max_rss.max(now_rss);
    let total: usize = sent.iter().sum();
    let refused = open.iter().filter(|o| !**o).count();
    eprintln!(
        "48 connections x 16 MiB announced: {} MiB pushed, {refused} refused, daemon RSS max {} \
         MiB, peak (VmHWM) {} MiB, slowest other-uid acquire {:?} ({acquires} acquires)",
        total / MIB,
        max_rss / MIB,
        peak / MIB,
        slowest_acquire
    );
    assert!(
        peak < cap + 100_000_000,
        "daemon peak RSS {peak} is over the cap {cap} plus 100 MB"
    );
    assert!(acquires > 0, "the hostile peer never pushed past the cap");
    assert!(refused > 0, "some hostile frames must have been refused");
    // A refused connection got a clear error frame before the close.
    for (i, s) in conns.iter_mut().enumerate() {
        if open[i] {
            continue;
        }
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        let r = read_response(s).expect("an error frame before the close");
        assert_eq!(r["success"], false);
        let err = r["error"].as_str().unwrap();
        assert!(
            err.contains("request buffers are full") && err.contains("--max-buffered-bytes"),
            "{err}"
        );
        let mut b = [0u8; 1];
        assert!(
            matches!(s.read(&mut b), Ok(0) | Err(_)),
            "closed after the error"
        );
    }
    // Once the hostile connections are gone, their bytes are given back: every frame the
    // daemon still holds can complete and a new large request fits.
    drop(conns);
    acquire_as_root(&d, acquires);
    let big = frame(&envelope(
        "Acquire",
        &json!({"actorId": "big", "workspaceId": "w", "estimatedCostCents": 1,
            "metadata": {"pad": "x".repeat(8 * MIB)}}),
    ));
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let mut s = UnixStream::connect(&d.socket).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        let answer = s.write_all(&big).ok().and_then(|_| read_response(&mut s));
        let full = answer.as_ref().is_none_or(|r| {
            r["error"]
                .as_str()
                .unwrap_or_default()
                .contains("request buffers are full")
        });
        if !full {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the budget was not given back: {answer:?}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn one_uid_holds_at_most_its_connections_and_others_are_served() {
    if !is_root() {
        eprintln!("SKIP: needs root to act as a second uid");
        return;
    }
    let d = Daemon::start(&["--store", "memory", "--socket-mode", "666"]);
    let mut conns: Vec<UnixStream> = daemon::peer::connect_as(OTHER, &d.socket, 70)
        .into_iter()
        .map(|c| c.expect("connect as uid 65534"))
        .collect();
    for s in &conns {
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    }
    // Past the default 64, each is answered with an error frame and closed.
    for s in &mut conns[64..] {
        let r = read_response(s).expect("an error frame for a connection over the cap");
        assert_eq!(r["success"], false);
        let err = r["error"].as_str().unwrap();
        assert!(
            err.contains("too many connections from uid 65534")
                && err.contains("64")
                && err.contains("--max-connections-per-uid"),
            "{err}"
        );
        let mut b = [0u8; 1];
        assert!(matches!(s.read(&mut b), Ok(0) | Err(_)));
    }
    // The 64 are served, and so is another uid.
    assert_eq!(status_on(&mut conns[0])["success"], true);
    assert_eq!(status_on(&mut conns[63])["success"], true);
    acquire_as_root(&d, 0);
    let mut mine: Vec<UnixStream> = (0..10)
        .map(|_| UnixStream::connect(&d.socket).unwrap())
        .collect();
    for s in &mut mine {
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        assert_eq!(status_on(s)["success"], true);
    }
    // A closed connection gives its slot back.
    conns.truncate(63);
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let mut again = daemon::peer::connect_as(OTHER, &d.socket, 1)
            .pop()
            .unwrap()
            .unwrap();
        again
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        if try_status_on(&mut again).is_some_and(|r| r["success"] == true) {
            break;
        }
        assert!(Instant::now() < deadline, "the slot never came back");
        std::thread::sleep(Duration::from_millis(50));
    }
}
