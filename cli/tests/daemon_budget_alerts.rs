//! Budget alerts through a real `leasekit serve` (SQLite store, manual clock, JSON logs,
//! metrics endpoint): a grant that brings a budget to a threshold writes its
//! `budget_threshold_crossed` record, one warn log line naming the record's `entryHash` and
//! counts in `leasekit_budget_alerts_total{scope, threshold}`; a client-declared workspace id
//! (with a newline and label syntax in it) reaches neither the log nor the metrics; a restart
//! after a crash does not raise the threshold again the same day; the next day does.

mod daemon;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::os::unix::net::UnixStream;
use std::time::Duration;

use daemon::{Daemon, envelope, frame, read_response};
use serde_json::{Value, json};

const WEIRD_WS: &str = "ws\"} 1\n{\"level\":\"ERROR\",\"message\":\"forged\"}";

fn raw(d: &Daemon, command: &str, payload: Value) -> Value {
    let mut s = UnixStream::connect(&d.socket).unwrap();
    s.write_all(&frame(&envelope(command, &payload))).unwrap();
    let env = read_response(&mut s).expect("an answer");
    assert_eq!(env["success"], true, "{command}: {env}");
    serde_json::from_str(env["payloadJson"].as_str().unwrap()).unwrap()
}

fn acquire(d: &Daemon, cents: u64) -> Value {
    let r = raw(
        d,
        "Acquire",
        json!({"actorId": "a", "workspaceId": WEIRD_WS, "estimatedCostCents": cents}),
    );
    assert_eq!(r["granted"], true, "{r}");
    r
}

/// The address of the metrics endpoint the daemon printed last (a restart prints a new one).
fn metrics_addr(d: &Daemon) -> SocketAddr {
    let log = d.log();
    let line = log
        .lines()
        .rev()
        .find_map(|l| l.split("metrics on http://").nth(1))
        .unwrap_or_else(|| panic!("no metrics address in the log:\n{log}"));
    let addr = line.split(['/', '"']).next().unwrap();
    addr.parse()
        .unwrap_or_else(|e| panic!("{e}: {addr:?} in {line:?}"))
}

fn scrape(addr: SocketAddr) -> String {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    s.write_all(b"GET /metrics HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
        .unwrap();
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    let text = String::from_utf8(out).unwrap();
    assert!(text.starts_with("HTTP/1.1 200"), "{text}");
    text.split_once("\r\n\r\n").unwrap().1.to_string()
}

/// The value of `leasekit_budget_alerts_total{scope, threshold}` (panics when absent).
fn alerts(body: &str, scope: &str, threshold: &str) -> f64 {
    let s = prometheus_parse::Scrape::parse(body.lines().map(|l| Ok(l.to_string()))).unwrap();
    let sample = s
        .samples
        .iter()
        .find(|x| {
            x.metric == "leasekit_budget_alerts_total"
                && x.labels.get("scope") == Some(scope)
                && x.labels.get("threshold") == Some(threshold)
        })
        .unwrap_or_else(|| panic!("no alert series {scope} {threshold} in:\n{body}"));
    match sample.value {
        prometheus_parse::Value::Counter(v) | prometheus_parse::Value::Untyped(v) => v,
        ref other => panic!("not a counter: {other:?}"),
    }
}

/// The daemon's JSON log lines of budget alerts.
fn alert_lines(d: &Daemon) -> Vec<Value> {
    d.log()
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|l| l["message"] == "budget threshold crossed")
        .collect()
}

/// The chain's `budget_threshold_crossed` records.
fn alert_records(d: &Daemon) -> Vec<Value> {
    raw(d, "ExportAudit", json!({}))["records"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["eventType"] == "budget_threshold_crossed")
        .cloned()
        .collect()
}

#[test]
fn an_alert_is_a_record_a_warn_line_and_a_metric_once_per_day() {
    let dir = daemon::temp_dir("alerts");
    let policy = dir.join("policy.json");
    std::fs::write(
        &policy,
        json!({"dailyBudgetCents": 100, "workspaceDailyBudgetCents": 100,
               "budgetAlertThresholdsPercent": [50, 80]})
        .to_string(),
    )
    .unwrap();
    let args: Vec<String> = [
        "--policy",
        policy.to_str().unwrap(),
        "--metrics-listen",
        "127.0.0.1:0",
        "--log-format",
        "json",
        "--log-level",
        "info",
        "--clock",
        "manual:2026-03-01T12:00:00Z",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let mut d = Daemon::start_in(&dir, args);

    acquire(&d, 60);
    let records = alert_records(&d);
    let scopes: Vec<(&str, i64)> = records
        .iter()
        .map(|r| {
            (
                r["scope"].as_str().unwrap(),
                r["thresholdPercent"].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(scopes, [("daily", 50), ("workspace", 50)]);
    assert_eq!(
        records[1]["scopeId"], WEIRD_WS,
        "the record names the budget"
    );

    let lines = alert_lines(&d);
    assert_eq!(lines.len(), 2, "{}", d.log());
    for (line, rec) in lines.iter().zip(&records) {
        assert_eq!(line["level"], "WARN");
        assert_eq!(line["scope"], rec["scope"]);
        assert_eq!(line["threshold_percent"], 50);
        assert_eq!(line["used_cents"], 60);
        assert_eq!(line["reserved_cents"], 60);
        assert_eq!(line["spent_cents"], 0);
        assert_eq!(line["limit_cents"], 100);
        assert_eq!(
            line["entry_hash"], rec["entryHash"],
            "the line finds its record"
        );
    }
    let log = d.log();
    assert!(
        !log.contains("forged"),
        "a client's id never reaches the log:\n{log}"
    );
    assert_eq!(
        log.lines()
            .filter(|l| l.contains("\"level\":\"ERROR\""))
            .count(),
        0
    );

    let body = scrape(metrics_addr(&d));
    assert_eq!(alerts(&body, "daily", "50"), 1.0);
    assert_eq!(alerts(&body, "workspace", "50"), 1.0);
    assert_eq!(
        alerts(&body, "daily", "80"),
        0.0,
        "a policy threshold is a series from 0"
    );
    assert_eq!(alerts(&body, "actor", "80"), 0.0);
    assert!(!body.contains("forged"), "no client id in a label:\n{body}");

    // A crash and a restart (same clock time, same day): the raised thresholds stay raised.
    d.kill9();
    d.restart();
    acquire(&d, 10);
    assert_eq!(alert_records(&d).len(), 2);
    assert_eq!(alert_lines(&d).len(), 2);
    assert_eq!(alerts(&scrape(metrics_addr(&d)), "daily", "50"), 0.0);

    // The next UTC day re-arms them.
    raw(&d, "TestSetClock", json!({"now": "2026-03-02T00:00:01Z"}));
    acquire(&d, 50);
    let records = alert_records(&d);
    assert_eq!(records.len(), 4, "{records:?}");
    assert_eq!(alert_lines(&d).len(), 4);
    let body = scrape(metrics_addr(&d));
    assert_eq!(alerts(&body, "daily", "50"), 1.0);
    assert_eq!(raw(&d, "VerifyAudit", json!({}))["ok"], true);
}

#[test]
fn a_policy_with_bad_thresholds_refuses_to_start_with_the_code() {
    for bad in [
        json!([0]),
        json!([80, 50]),
        json!([50.5]),
        json!((1..=101).collect::<Vec<u32>>()),
    ] {
        let dir = daemon::temp_dir("alerts-bad");
        let policy = dir.join("policy.json");
        std::fs::write(
            &policy,
            json!({"budgetAlertThresholdsPercent": bad}).to_string(),
        )
        .unwrap();
        let args = vec![
            "--policy".to_string(),
            policy.to_string_lossy().into_owned(),
        ];
        let err = match Daemon::try_start_in(&dir, args) {
            Ok(_) => panic!("started with {bad}"),
            Err(e) => e,
        };
        assert!(
            err.contains("invalid_budget_alert_thresholds: budgetAlertThresholdsPercent"),
            "{bad}: {err}"
        );
    }
}
