//! `leasekit serve --metrics-listen` against a real daemon: acquires, denials and releases
//! over the socket, then a scrape over real HTTP parsed with a text-format parser (and checked
//! by `promtool check metrics` when it is installed). Hostile scrapers: a huge request head,
//! silent connections, many at once; a non-loopback address without the allow flag; client
//! strings never in the exposition; no TCP port without the flag.

mod daemon;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::os::unix::net::UnixStream;
use std::time::{Duration, Instant};

use daemon::{Daemon, envelope, frame, read_response};
use serde_json::{Value, json};

/// The address the daemon printed for its metrics endpoint.
fn metrics_addr(d: &Daemon) -> SocketAddr {
    let log = d.log();
    let line = log
        .lines()
        .find_map(|l| l.split("metrics on http://").nth(1))
        .unwrap_or_else(|| panic!("no metrics address in the log:\n{log}"));
    line.trim_end_matches("/metrics").parse().unwrap()
}

/// Sends `request` and reads the whole answer (the endpoint closes after one response).
fn http(addr: SocketAddr, request: &[u8]) -> std::io::Result<Vec<u8>> {
    let mut s = TcpStream::connect(addr)?;
    s.set_read_timeout(Some(Duration::from_secs(20)))?;
    // A write the server cut short (it answered and closed) still leaves its answer to read.
    let _ = s.write_all(request);
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    Ok(out)
}

/// The status code and body of an answer.
fn split(answer: &[u8]) -> (u16, String) {
    let text = String::from_utf8_lossy(answer).into_owned();
    let status = text
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let body = text
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_string())
        .unwrap_or_default();
    (status, body)
}

fn scrape(addr: SocketAddr) -> String {
    let answer = http(
        addr,
        b"GET /metrics HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n",
    )
    .unwrap();
    let (status, body) = split(&answer);
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&answer));
    body
}

fn parse(body: &str) -> prometheus_parse::Scrape {
    prometheus_parse::Scrape::parse(body.lines().map(|l| Ok(l.to_string()))).expect("parses")
}

/// The value of the sample `name` with exactly these labels (panics when absent).
fn value(s: &prometheus_parse::Scrape, name: &str, labels: &[(&str, &str)]) -> f64 {
    let sample = s
        .samples
        .iter()
        .find(|x| {
            x.metric == name
                && x.labels.len() == labels.len()
                && labels.iter().all(|(k, v)| x.labels.get(k) == Some(*v))
        })
        .unwrap_or_else(|| panic!("no sample {name} {labels:?}"));
    match &sample.value {
        prometheus_parse::Value::Counter(v)
        | prometheus_parse::Value::Gauge(v)
        | prometheus_parse::Value::Untyped(v) => *v,
        other => panic!("{name} is not a plain value: {other:?}"),
    }
}

/// Runs `promtool check metrics` on the body when promtool is installed; `make test` installs
/// it (scripts/ensure-promtool.sh) and sets `LEASEKIT_REQUIRE_PROMTOOL`, which makes its
/// absence a failure rather than a skip.
fn promtool_check(body: &str) {
    let Ok(mut child) = std::process::Command::new("promtool")
        .args(["check", "metrics"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
    else {
        assert!(
            std::env::var_os("LEASEKIT_REQUIRE_PROMTOOL").is_none(),
            "promtool not on PATH, and LEASEKIT_REQUIRE_PROMTOOL is set"
        );
        eprintln!("promtool not on PATH: `promtool check metrics` skipped");
        return;
    };
    child
        .stdin
        .take()
        .unwrap()
        .write_all(body.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "promtool check metrics: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn raw(d: &Daemon, command: &str, payload: Value) -> Value {
    let mut s = UnixStream::connect(&d.socket).unwrap();
    s.write_all(&frame(&envelope(command, &payload))).unwrap();
    let env = read_response(&mut s).expect("an answer");
    assert_eq!(env["success"], true, "{command}: {env}");
    serde_json::from_str(env["payloadJson"].as_str().unwrap()).unwrap()
}

fn start(policy: Value, extra: &[&str]) -> Daemon {
    let dir = daemon::temp_dir("metrics");
    let path = dir.join("policy.json");
    std::fs::write(&path, policy.to_string()).unwrap();
    let mut args = vec![
        "--policy".to_string(),
        path.to_string_lossy().into_owned(),
        "--metrics-listen".into(),
        "127.0.0.1:0".into(),
    ];
    args.extend(extra.iter().map(|s| s.to_string()));
    Daemon::start_in(&dir, args)
}

const WEIRD_TOOL: &str = "evil\"} 1\n# TYPE injected counter\nleasekit_fake_total 99 ünïcødé";

#[test]
fn a_scrape_counts_what_was_done_over_the_socket() {
    let d = start(
        json!({"maxInFlight": 2, "dailyBudgetCents": 1000,
               "workspaceDailyBudgetCents": {"w": 500},
               "toolRegistry": [{"toolId": "t", "category": "other"}]}),
        &[],
    );
    let addr = metrics_addr(&d);
    let acquire = |est: u64| {
        raw(
            &d,
            "Acquire",
            json!({"actorId": "a", "workspaceId": "w", "estimatedCostCents": est}),
        )
    };
    let first = acquire(100);
    assert_eq!(first["granted"], true, "{first}");
    let second = acquire(50);
    assert_eq!(second["granted"], true, "{second}");
    let third = acquire(10);
    assert_eq!(
        third["deniedReason"], "concurrency_limit_reached",
        "{third}"
    );
    let weird = raw(
        &d,
        "Acquire",
        json!({"actorId": "a", "workspaceId": "w", "requestedTools": [{"toolId": WEIRD_TOOL}]}),
    );
    assert_eq!(weird["granted"], false, "{weird}");
    let released = raw(
        &d,
        "Release",
        json!({"leaseId": first["leaseId"], "actualCostCents": 30}),
    );
    assert_eq!(released["classification"], "recorded", "{released}");
    let missing = raw(
        &d,
        "Release",
        json!({"leaseId": "no-such-lease", "actualCostCents": 1}),
    );
    assert_eq!(missing["classification"], "leaseNotFound", "{missing}");
    let status = raw(&d, "GetStatus", json!({}));

    // A connection held open while scraping: one open connection, one peer uid.
    let mut held = UnixStream::connect(&d.socket).unwrap();
    held.write_all(&frame(&envelope("GetStatus", &json!({}))))
        .unwrap();
    read_response(&mut held).unwrap();

    let body = scrape(addr);
    let s = parse(&body);
    let v = |name: &str, labels: &[(&str, &str)]| value(&s, name, labels);
    assert_eq!(v("leasekit_acquires_total", &[("outcome", "granted")]), 2.0);
    assert_eq!(v("leasekit_acquires_total", &[("outcome", "denied")]), 2.0);
    assert_eq!(
        v(
            "leasekit_acquire_denials_total",
            &[("reason", "concurrency_limit_reached")]
        ),
        1.0
    );
    assert_eq!(
        v(
            "leasekit_acquire_denials_total",
            &[("reason", "tool_not_registered")]
        ),
        1.0
    );
    assert_eq!(
        v("leasekit_acquire_grants_total", &[("reason", "granted")]),
        2.0
    );
    assert_eq!(
        v("leasekit_releases_total", &[("outcome", "recorded")]),
        1.0
    );
    assert_eq!(
        v("leasekit_releases_total", &[("outcome", "leaseNotFound")]),
        1.0
    );
    assert_eq!(
        v(
            "leasekit_commands_total",
            &[("command", "Acquire"), ("result", "success")]
        ),
        4.0
    );
    assert_eq!(
        v(
            "leasekit_commands_total",
            &[("command", "Release"), ("result", "success")]
        ),
        2.0
    );
    assert_eq!(v("leasekit_leases_in_flight", &[]), 1.0);
    assert_eq!(v("leasekit_leases_in_flight_capacity", &[]), 2.0);
    // 30 settled by the release, 50 still reserved by the second lease.
    assert_eq!(v("leasekit_budget_used_cents", &[]), 80.0);
    assert_eq!(v("leasekit_budget_reserved_cents", &[]), 50.0);
    assert_eq!(v("leasekit_budget_limit_cents", &[]), 1000.0);
    assert_eq!(
        v(
            "leasekit_scope_budget_limit_cents",
            &[("scope", "workspace"), ("id", "w")]
        ),
        500.0
    );
    assert_eq!(
        v(
            "leasekit_scope_budget_used_cents",
            &[("scope", "workspace"), ("id", "w")]
        ),
        80.0
    );
    assert_eq!(v("leasekit_rate_window_requests", &[]), 2.0);
    assert_eq!(v("leasekit_approvals_pending", &[]), 0.0);
    assert_eq!(
        v("leasekit_audit_records_total", &[]),
        status["auditRecords"].as_f64().unwrap()
    );
    assert_eq!(v("leasekit_audit_write_failures_total", &[]), 0.0);
    assert_eq!(v("leasekit_store_errors_total", &[]), 0.0);
    assert_eq!(v("leasekit_connections_open", &[]), 1.0);
    assert_eq!(v("leasekit_peer_uids_connected", &[]), 1.0);
    assert!(v("leasekit_connections_accepted_total", &[]) >= 8.0);
    // The grants, the denials and the release were committed to SQLite (a command that
    // changes nothing commits nothing).
    let commits = body
        .lines()
        .find_map(|l| l.strip_prefix("leasekit_store_commit_seconds_count "))
        .and_then(|n| n.parse::<u64>().ok())
        .expect("a commit count");
    assert!(commits >= 4, "{commits} commits");
    drop(held);

    // No client string reaches the exposition; every label value is from a fixed set.
    for needle in ["evil", "injected", "leasekit_fake", "no-such-lease", "ünï"] {
        assert!(!body.contains(needle), "{needle} in the exposition");
    }
    promtool_check(&body);
}

#[test]
fn the_endpoint_answers_only_get_metrics() {
    let d = start(json!({}), &[]);
    let addr = metrics_addr(&d);
    let (status, _) = split(&http(addr, b"GET / HTTP/1.1\r\nHost: x\r\n\r\n").unwrap());
    assert_eq!(status, 404);
    let (status, _) = split(&http(addr, b"POST /metrics HTTP/1.1\r\nHost: x\r\n\r\n").unwrap());
    assert_eq!(status, 405);
    let answer = http(
        addr,
        b"GET /metrics HTTP/1.1\r\nHost: x\r\nAccept: application/openmetrics-text; version=1.0.0\r\n\r\n",
    )
    .unwrap();
    let (status, body) = split(&answer);
    assert_eq!(status, 200);
    assert!(String::from_utf8_lossy(&answer).contains("application/openmetrics-text"));
    assert!(body.trim_end().ends_with("# EOF"), "{body}");
}

#[test]
fn hostile_scrapers_are_bounded_and_never_slow_the_governor() {
    let d = start(json!({}), &[]);
    let addr = metrics_addr(&d);

    // A 1 MiB header: refused (431 or a close), the daemon unharmed.
    let mut huge = b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: ".to_vec();
    huge.extend(std::iter::repeat_n(b'a', 1 << 20));
    huge.extend_from_slice(b"\r\n\r\n");
    let (status, _) = split(&http(addr, &huge).unwrap());
    assert_ne!(status, 200, "a 1 MiB header was served");
    // A 1 MiB request line.
    let mut line = b"GET /metrics?".to_vec();
    line.extend(std::iter::repeat_n(b'q', 1 << 20));
    line.extend_from_slice(b" HTTP/1.1\r\nHost: x\r\n\r\n");
    let (status, _) = split(&http(addr, &line).unwrap());
    assert_ne!(status, 200, "a 1 MiB request line was served");
    scrape(addr);

    // Silent scrapers take every slot (8) and one more is refused at once...
    let silent: Vec<TcpStream> = (0..8).map(|_| TcpStream::connect(addr).unwrap()).collect();
    std::thread::sleep(Duration::from_millis(300));
    let extra = http(addr, b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
    assert!(extra.is_empty(), "a scrape over the cap was served");
    // ...while the governor answers at once.
    let t = Instant::now();
    assert!(d.client().status().is_ok());
    assert!(t.elapsed() < Duration::from_secs(2), "{:?}", t.elapsed());
    // The read timeout (5 s) frees the slots: scrapes are served again.
    let deadline = Instant::now() + Duration::from_secs(15);
    let body = loop {
        let (status, body) =
            split(&http(addr, b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n").unwrap());
        if status == 200 {
            break body;
        }
        assert!(Instant::now() < deadline, "the scrape slots never freed");
        std::thread::sleep(Duration::from_millis(200));
    };
    drop(silent);
    let s = parse(&body);
    assert!(value(&s, "leasekit_metrics_scrapes_refused_total", &[]) >= 1.0);

    // Many scrapers at once: each is served or refused, none hangs, the daemon goes on.
    let answers: Vec<u16> = std::thread::scope(|sc| {
        let hs: Vec<_> = (0..32)
            .map(|_| {
                sc.spawn(move || {
                    split(&http(addr, b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n").unwrap()).0
                })
            })
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert!(answers.iter().all(|s| *s == 200 || *s == 0), "{answers:?}");
    assert!(answers.contains(&200));
    let after = parse(&scrape(addr));
    let refused = value(&after, "leasekit_metrics_scrapes_refused_total", &[]);
    let served = answers.iter().filter(|s| **s == 200).count() as f64;
    assert_eq!(
        served + refused - value(&s, "leasekit_metrics_scrapes_refused_total", &[]),
        32.0
    );
    assert!(d.client().status().is_ok());
}

#[test]
fn a_non_loopback_address_needs_the_allow_flag() {
    let dir = daemon::temp_dir("metrics-remote");
    let err = Daemon::try_start_in(&dir, vec!["--metrics-listen".into(), "0.0.0.0:0".into()])
        .err()
        .expect("a non-loopback metrics address was accepted");
    assert!(err.contains("--metrics-allow-remote"), "{err}");
    assert!(err.contains("not a loopback address"), "{err}");
    // With the flag it starts (bound to every address: the admin asked for it).
    let d = Daemon::try_start_in(
        &daemon::temp_dir("metrics-remote-ok"),
        vec![
            "--metrics-listen".into(),
            "0.0.0.0:0".into(),
            "--metrics-allow-remote".into(),
        ],
    )
    .unwrap();
    scrape(SocketAddr::from(([127, 0, 0, 1], metrics_addr(&d).port())));
}

/// The inodes of the TCP sockets a process holds.
fn tcp_sockets_of(pid: i32) -> Vec<String> {
    let mut tcp = String::new();
    for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
        tcp.push_str(&std::fs::read_to_string(table).unwrap_or_default());
    }
    let inodes: Vec<&str> = tcp
        .lines()
        .skip(1)
        .filter_map(|l| l.split_whitespace().nth(9))
        .collect();
    std::fs::read_dir(format!("/proc/{pid}/fd"))
        .unwrap()
        .filter_map(|e| std::fs::read_link(e.ok()?.path()).ok())
        .filter_map(|l| {
            let l = l.to_string_lossy().into_owned();
            let inode = l.strip_prefix("socket:[")?.strip_suffix(']')?.to_string();
            inodes.contains(&inode.as_str()).then_some(inode)
        })
        .collect()
}

#[test]
fn without_the_flag_no_tcp_port_is_opened() {
    let plain = Daemon::start(&[]);
    assert!(tcp_sockets_of(plain.pid()).is_empty());
    let with = start(json!({}), &[]);
    assert_eq!(tcp_sockets_of(with.pid()).len(), 1);
}

#[test]
fn a_failed_store_commit_is_counted() {
    let d = start(json!({}), &[]);
    let addr = metrics_addr(&d);
    let client = leasekit::governor::client::GovernorClient::with_options(
        &d.socket,
        leasekit::governor::client::ClientOptions {
            fallback: leasekit::governor::client::FallbackMode::Off,
            timeout: Duration::from_secs(60),
            ..Default::default()
        },
    );
    let acquire = || leasekit::governor::wire::AcquireRequest {
        actor_id: "a".into(),
        workspace_id: "w".into(),
        estimated_cost_cents: 1,
        ..Default::default()
    };
    assert!(client.acquire(acquire()).unwrap().granted);
    let before = parse(&scrape(addr));
    assert_eq!(value(&before, "leasekit_store_errors_total", &[]), 0.0);
    // The test holds SQLite's write lock: the daemon's commit waits out its busy timeout and
    // fails.
    let mut lock = rusqlite::Connection::open(d.state.join("governor.db")).unwrap();
    let tx = lock
        .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
        .unwrap();
    let e = client.acquire(acquire()).unwrap_err();
    assert_eq!(e.details()["reason"], "store_unavailable", "{e}");
    tx.rollback().unwrap();
    drop(lock);
    let after = parse(&scrape(addr));
    assert_eq!(value(&after, "leasekit_store_errors_total", &[]), 1.0);
    assert_eq!(
        value(
            &after,
            "leasekit_commands_total",
            &[("command", "Acquire"), ("result", "failure")]
        ),
        1.0
    );
}
