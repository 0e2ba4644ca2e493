use super::*;
use crate::capability::CapabilityKind as K;

fn inc(kind: K, child: &str, parents: &[&str]) -> Inclusion {
    let c = Pattern::compile(kind, child).unwrap();
    let ps: Vec<Pattern> = parents
        .iter()
        .map(|p| Pattern::compile(kind, p).unwrap())
        .collect();
    let refs: Vec<&Pattern> = ps.iter().collect();
    included(&c, &Parents::new(refs), &mut Work::new())
}

fn yes(kind: K, child: &str, parents: &[&str]) -> bool {
    inc(kind, child, parents) == Inclusion::Included
}

#[test]
fn semantics_examples() {
    assert!(yes(K::ModelUse, "gpt-4o-mini", &["gpt-4*"]));
    assert!(!yes(K::FsRead, "/a/**", &["/a/*"]));
    assert!(!yes(K::FsRead, "/a/b**", &["/a/*"]));
    assert!(!yes(K::ToolCall, "a*c", &["a*b*c"]));
    assert!(yes(K::FsRead, "/x/**", &["/x", "/x/*", "/x/*/**"]));
    assert!(!yes(K::FsRead, "/x/**", &["/x", "/x/*"]));
    assert!(yes(K::ToolCall, "web.search", &["web.*"]));
    assert!(yes(
        K::NetFetch,
        "https://api.example.com/v1/**",
        &["https://api.example.com/**"]
    ));
    assert!(!yes(K::ModelUse, "**", &["gpt-4*"]));
    assert!(yes(K::FsRead, "/a/*", &["/a/**"]));
    assert!(yes(
        K::NetFetch,
        "s3://reports/2026/**.csv",
        &["s3://reports/**"]
    ));
    assert!(!yes(K::FsRead, "*", &["/**"]));
}

#[test]
fn witnesses_are_real_counterexamples() {
    for (kind, child, parents) in [
        (K::FsRead, "/a/**", vec!["/a/*"]),
        (K::FsRead, "/a/b**", vec!["/a/*"]),
        (K::ToolCall, "a*c", vec!["a*b*c"]),
        (K::ToolCall, "web.**", vec!["web.*"]),
        (K::ModelUse, "gpt-*-mini-*", vec!["gpt-4*", "gpt-3*"]),
    ] {
        let Inclusion::Witness(w) = inc(kind, child, &parents) else {
            panic!("{child} should not be included in {parents:?}");
        };
        let c = Pattern::compile(kind, child).unwrap();
        assert!(c.matches(&w), "{child} must match its witness {w:?}");
        for p in &parents {
            assert!(
                !Pattern::compile(kind, p).unwrap().matches(&w),
                "{p} must not match {w:?}"
            );
        }
    }
}

#[test]
fn lease_level_rules() {
    let l = |s: &str| Lease::from_json(s).unwrap();
    let parent = l(
        r#"{"net.fetch": ["https://api.example.com/**"], "tool.call": ["web.*"], "cost.budget": ["USD:5.00"]}"#,
    );
    let child = l(
        r#"{"net.fetch": ["https://api.example.com/v1/**"], "tool.call": ["web.search"], "cost.budget": ["USD:2", "USD:1"]}"#,
    );
    let o = SubsetOptions::default();
    assert!(is_lease_subset(&child, &parent, &o));
    assert!(is_lease_subset(&parent, &parent, &o));
    assert!(!is_lease_subset(&parent, &child, &o));
    let rem: BTreeMap<String, Decimal> = [("USD".to_string(), "2.00".parse().unwrap())].into();
    let e = check_lease_subset(
        &child,
        &parent,
        &SubsetOptions {
            parent_remaining: Some(&rem),
            ..o
        },
    )
    .unwrap_err();
    assert_eq!(e.details()["currency"], "USD");
    // a currency the parent does not budget is unlimited there
    assert!(is_lease_subset(
        &l(r#"{"cost.budget": ["EUR:1000"]}"#),
        &parent,
        &o
    ));
    // a capability the parent lacks, even with [] in the child
    let e = check_lease_subset(&l(r#"{"fs.read": []}"#), &parent, &o).unwrap_err();
    assert_eq!(e.code(), ErrorCode::LeaseSubsetViolation);
    let e = check_lease_subset(&l(r#"{"tool.call": ["web.**"]}"#), &parent, &o).unwrap_err();
    assert_eq!(e.details()["pattern"], "web.**");
    assert!(e.details()["witness"].is_string());
}

#[test]
fn expiry_rules() {
    let l = Lease::from_json(r#"{"tool.call": ["a"]}"#).unwrap();
    let early = LeaseConstraints::from_json(r#"{"expires_at":"2030-01-01T00:00:00Z"}"#).unwrap();
    let late = LeaseConstraints::from_json(r#"{"expires_at":"2031-01-01T00:00:00Z"}"#).unwrap();
    let none = LeaseConstraints::none();
    let check = |c: &LeaseConstraints, p: &LeaseConstraints| {
        is_lease_subset(
            &l,
            &l,
            &SubsetOptions {
                child_constraints: Some(c),
                parent_constraints: Some(p),
                ..Default::default()
            },
        )
    };
    assert!(check(&early, &late));
    assert!(!check(&late, &early));
    assert!(check(&none, &early));
    assert!(check(&early, &none));
    assert!(check(&early, &early));
}

#[test]
fn fail_closed_beyond_the_bound() {
    // Many overlapping parents force a large product; the answer must be decided or refused,
    // never an unsound "included".
    let parents: Vec<String> = (0..40)
        .map(|i| format!("*{}*{}*", (b'a' + (i % 26) as u8) as char, i))
        .collect();
    let refs: Vec<&str> = parents.iter().map(String::as_str).collect();
    let r = inc(K::ToolCall, "*", &refs);
    assert_ne!(r, Inclusion::Included);
}
