use super::*;
use crate::expiry::{ManualClock, parse_expires_at};

fn t(s: &str) -> Timestamp {
    parse_expires_at(s).unwrap()
}

fn guard(lease: &str, expires: Option<&str>) -> (LeaseGuard, Arc<ManualClock>) {
    let clock = Arc::new(ManualClock::new(t("2026-01-01T00:00:00Z")));
    let c = LeaseConstraints {
        expires_at: expires.map(t),
    };
    (
        LeaseGuard::new(Lease::from_json(lease).unwrap(), c, clock.clone()),
        clock,
    )
}

fn d(s: &str) -> Decimal {
    s.parse().unwrap()
}

#[test]
fn check_order() {
    let (g, clock) = guard(
        r#"{"fs.read": ["/data/**"], "cost.budget": ["USD:1"]}"#,
        Some("2026-01-02T00:00:00Z"),
    );
    assert_eq!(g.authorize("fs.read", "/data/x/../y").unwrap(), "/data/y");
    assert_eq!(
        g.authorize("fs.read", "/etc/passwd").unwrap_err().code(),
        ErrorCode::PermissionDenied
    );
    assert_eq!(
        g.authorize("fs.read", "relative").unwrap_err().code(),
        ErrorCode::InvalidRequest
    );
    assert_eq!(
        g.authorize("bogus", "/x").unwrap_err().code(),
        ErrorCode::InvalidRequest
    );
    assert_eq!(
        g.authorize("cost.budget", "USD").unwrap_err().code(),
        ErrorCode::InvalidRequest
    );
    g.record_metric("cost.llm", "1.00", "USD").unwrap();
    assert_eq!(
        g.authorize("bogus", "/x").unwrap_err().code(),
        ErrorCode::BudgetExhausted
    );
    clock.set(t("2026-01-02T00:00:00Z"));
    assert_eq!(
        g.authorize("fs.read", "/data/x").unwrap_err().code(),
        ErrorCode::LeaseExpired
    );
    // spend is still recorded after expiry and exhaustion
    assert!(g.record_metric("cost.llm", "1", "USD").is_ok());
    assert_eq!(g.remaining()["USD"], d("-1"));
}

#[test]
fn models() {
    let (g, _) = guard(r#"{"tool.call": ["x"]}"#, None);
    assert_eq!(
        g.authorize_model("gpt-4o").unwrap_err().code(),
        ErrorCode::PermissionDenied
    );
    let lease = Lease::from_json(r#"{"tool.call": ["x"]}"#).unwrap();
    let opts = GuardOptions {
        allow_any_model: true,
        ..Default::default()
    };
    let g = LeaseGuard::with_options(
        lease,
        LeaseConstraints::none(),
        Arc::new(crate::SystemClock),
        opts,
    );
    assert!(g.authorize_model("gpt-4o").is_ok());
    let (g, _) = guard(r#"{"model.use": ["gpt-4*"]}"#, None);
    assert!(g.authorize_model("gpt-4.1").is_ok());
    assert!(g.authorize_model("claude").is_err());
}

#[test]
fn emission_steps() {
    let (g, _) = guard(r#"{"cost.budget": ["USD:1.00"]}"#, None);
    let emit = |v: &str| g.record_metric("cost.llm", v, "USD").unwrap();
    assert!(emit("0.04").is_empty());
    assert_eq!(emit("0.01")[0].value, d("0.95")); // reaches 5 %
    assert!(emit("0.01").is_empty());
    let m = emit("0.30"); // 36 %: steps 10..35 at once, one emission
    assert_eq!(m.len(), 1);
    assert_eq!(m[0].value, d("0.64"));
    assert!(
        g.record_metric("cost.budget.remaining", "0.5", "USD")
            .unwrap()
            .is_empty()
    );
    assert!(g.record_metric("latency", "abc", "USD").unwrap().is_empty());
    assert!(g.record_metric("cost.llm", "5", "EUR").unwrap().is_empty());
    assert_eq!(
        g.record_metric("cost.llm", "-1", "USD").unwrap_err().code(),
        ErrorCode::InvalidRequest
    );
    assert_eq!(g.remaining()["USD"], d("0.64"));
    let m = emit("0.64");
    assert_eq!((m.len(), m[0].value), (1, d("0")));
    assert!(emit("1").is_empty());
}

#[test]
fn zero_budget_emits_once() {
    let (g, _) = guard(r#"{"cost.budget": ["tokens:0"], "tool.call": ["a"]}"#, None);
    assert_eq!(
        g.authorize("tool.call", "a").unwrap_err().code(),
        ErrorCode::BudgetExhausted
    );
    assert_eq!(
        g.record_metric("cost.tokens", "0", "tokens").unwrap().len(),
        1
    );
    assert!(
        g.record_metric("cost.tokens", "3", "tokens")
            .unwrap()
            .is_empty()
    );
}

#[test]
fn reserve() {
    let (g, clock) = guard(
        r#"{"cost.budget": ["USD:1.00"]}"#,
        Some("2026-01-02T00:00:00Z"),
    );
    assert_eq!(g.reserve("USD", d("0.50")).unwrap().len(), 1);
    assert_eq!(
        g.reserve("USD", d("0.51")).unwrap_err().code(),
        ErrorCode::BudgetExhausted
    );
    assert_eq!(g.remaining()["USD"], d("0.50"));
    assert_eq!(
        g.reserve("EUR", d("1")).unwrap_err().code(),
        ErrorCode::InvalidRequest
    );
    assert_eq!(
        g.reserve("USD", d("-1")).unwrap_err().code(),
        ErrorCode::InvalidRequest
    );
    clock.set(t("2027-01-01T00:00:00Z"));
    assert!(g.reserve("USD", d("0.50")).is_ok()); // no expiry check; exactly zero is fine
    assert_eq!(g.reserve("USD", d("0")).unwrap().len(), 0);
}

#[test]
fn delegation_reserves_and_returns() {
    let (p, _) = guard(
        r#"{"tool.call": ["web.*"], "cost.budget": ["USD:5.00", "EUR:1"]}"#,
        Some("2026-06-01T00:00:00Z"),
    );
    p.record_metric("cost.x", "3", "USD").unwrap();
    let child =
        Lease::from_json(r#"{"tool.call": ["web.search"], "cost.budget": ["USD:2.50"]}"#).unwrap();
    let e = p.delegate(child, LeaseConstraints::none()).unwrap_err();
    assert_eq!(e.code(), ErrorCode::LeaseSubsetViolation);
    let child =
        Lease::from_json(r#"{"tool.call": ["web.search"], "cost.budget": ["USD:1.50"]}"#).unwrap();
    let c = p.delegate(child, LeaseConstraints::none()).unwrap();
    assert_eq!(c.expires_at(), p.expires_at());
    assert_eq!(p.remaining()["USD"], d("0.5"));
    assert_eq!(c.remaining()["USD"], d("1.5"));
    // EUR is shared with the parent
    c.record_metric("cost.x", "0.25", "EUR").unwrap();
    assert_eq!(p.remaining()["EUR"], d("0.75"));
    c.record_metric("cost.x", "1", "USD").unwrap();
    assert!(c.authorize("tool.call", "web.search").is_ok());
    assert!(c.authorize("tool.call", "web.fetch").is_err());
    c.close();
    assert_eq!(p.remaining()["USD"], d("1"));
    assert_eq!(
        c.authorize("tool.call", "web.search").unwrap_err().code(),
        ErrorCode::LeaseExpired
    );
    c.record_metric("cost.x", "0.5", "USD").unwrap(); // charged to the parent now
    assert_eq!(p.remaining()["USD"], d("0.5"));
    assert!(c.close().is_empty());
    // later expiry than the parent
    let child = Lease::from_json(r#"{"tool.call": ["web.search"]}"#).unwrap();
    let late = LeaseConstraints {
        expires_at: Some(t("2026-07-01T00:00:00Z")),
    };
    assert_eq!(
        p.delegate(child.clone(), late).unwrap_err().code(),
        ErrorCode::LeaseSubsetViolation
    );
    let past = LeaseConstraints {
        expires_at: Some(t("2025-07-01T00:00:00Z")),
    };
    assert_eq!(
        p.delegate(child, past).unwrap_err().code(),
        ErrorCode::InvalidRequest
    );
}

#[test]
fn is_exhausted_follows_the_counters_and_the_gate() {
    let (g, _) = guard(
        r#"{"tool.call": ["web.*"], "cost.budget": ["USD:1", "EUR:2"]}"#,
        None,
    );
    assert!(!g.is_exhausted());
    assert_eq!(g.exhausted_currency(), None);
    g.record_metric("cost.x", "1", "EUR").unwrap();
    assert!(!g.is_exhausted());
    g.record_metric("cost.x", "1.5", "USD").unwrap(); // overspend: -0.5
    assert!(g.is_exhausted());
    assert_eq!(g.exhausted_currency(), Some("USD"));
    let e = g.authorize("tool.call", "web.search").unwrap_err();
    assert_eq!(e.code(), ErrorCode::BudgetExhausted);
    assert_eq!(e.details()["currency"].as_str(), Some("USD"));
    // a lease without a budget is never exhausted; a zero budget is at once
    let (free, _) = guard(r#"{"tool.call": ["web.*"]}"#, None);
    assert!(!free.is_exhausted());
    let (zero, _) = guard(r#"{"cost.budget": ["USD:0"]}"#, None);
    assert!(zero.is_exhausted());
    // a closed child's own counter went back to the parent: exhausted for the child only
    let (p, _) = guard(r#"{"cost.budget": ["USD:5"]}"#, None);
    let c = p
        .delegate(
            Lease::from_json(r#"{"cost.budget": ["USD:1"]}"#).unwrap(),
            LeaseConstraints::none(),
        )
        .unwrap();
    assert!(!c.is_exhausted());
    c.close();
    assert!(c.is_exhausted() && !p.is_exhausted());
}

#[test]
fn dropping_a_child_returns_its_budget() {
    let (p, _) = guard(r#"{"cost.budget": ["USD:5"]}"#, None);
    {
        let _c = p
            .delegate(
                Lease::from_json(r#"{"cost.budget": ["USD:4"]}"#).unwrap(),
                LeaseConstraints::none(),
            )
            .unwrap();
        assert_eq!(p.remaining()["USD"], d("1"));
    }
    assert_eq!(p.remaining()["USD"], d("5"));
}

#[test]
fn authorize_cow_borrows_only_when_the_target_is_already_canonical() {
    let (g, _) = guard(
        r#"{"fs.read": ["/data/**"], "net.fetch": ["https://a.example/**"], "tool.call": ["x"]}"#,
        None,
    );
    assert!(matches!(
        g.authorize_cow("fs.read", "/data/y"),
        Ok(Cow::Borrowed("/data/y"))
    ));
    assert!(matches!(
        g.authorize_cow("fs.read", "/data/x/../y"),
        Ok(Cow::Owned(ref s)) if s == "/data/y"
    ));
    assert!(matches!(
        g.authorize_cow("net.fetch", "https://a.example/p"),
        Ok(Cow::Borrowed(_))
    ));
    assert!(matches!(
        g.authorize_cow("net.fetch", "HTTPS://A.example:443/p"),
        Ok(Cow::Owned(ref s)) if s == "https://a.example/p"
    ));
    assert!(matches!(
        g.authorize_cow("tool.call", "x"),
        Ok(Cow::Borrowed("x"))
    ));
    assert_eq!(
        g.authorize_model_cow("gpt-4").unwrap_err().code(),
        ErrorCode::PermissionDenied
    );
    assert_eq!(
        g.authorize_cow("tool.call", "y").unwrap_err().code(),
        ErrorCode::PermissionDenied
    );
}

#[test]
fn authorize_kind_cow_answers_like_authorize_cow_by_name() {
    let lease = r#"{"fs.read": ["/data/**"], "fs.write": ["/out/*"], "net.fetch": ["https://a.example/**"],
        "tool.call": ["search.*"], "agent.delegate": ["helper"], "model.use": ["gpt-*"],
        "cost.budget": ["USD:1"], "x-vendor.acme.cap": ["q"]}"#;
    let targets = [
        "/data/y",
        "/data/x/../y",
        "/out/a",
        "/out/a/b",
        "relative",
        "https://a.example/p",
        "HTTPS://A.example:443/p",
        "search.web",
        "helper",
        "gpt-4",
        "claude",
        "USD:1",
        "",
        "/data/\u{7f}",
    ];
    for allow_any_model in [false, true] {
        let (g, _) = guard(lease, None);
        let empty = LeaseGuard::with_options(
            Lease::from_json("{}").unwrap(),
            LeaseConstraints::none(),
            Arc::new(crate::expiry::SystemClock),
            GuardOptions {
                grace_millis: 0,
                allow_any_model,
            },
        );
        for g in [&g, &empty] {
            for (index, name) in RESERVED_CAPABILITIES.iter().enumerate() {
                let kind = CapabilityKind::reserved(index).unwrap();
                for target in targets {
                    let by_kind = g.authorize_kind_cow(kind, target);
                    let by_name = g.authorize_cow(name, target);
                    match (&by_kind, &by_name) {
                        (Ok(a), Ok(b)) => assert_eq!(a, b, "{name} {target:?}"),
                        (Err(a), Err(b)) => {
                            assert_eq!(a.to_json(), b.to_json(), "{name} {target:?}")
                        }
                        _ => panic!("{name} {target:?}: {by_kind:?} vs {by_name:?}"),
                    }
                }
            }
        }
    }
    let (g, _) = guard(lease, None);
    assert_eq!(g.authorize_cow("x-vendor.acme.cap", "q").unwrap(), "q");
    assert_eq!(
        g.authorize_kind_cow(CapabilityKind::Vendor, "q")
            .unwrap_err()
            .code(),
        ErrorCode::InvalidRequest
    );
}
