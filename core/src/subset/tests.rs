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

#[test]
fn a_character_no_pattern_names_is_tried_even_when_every_usual_stand_in_is_named() {
    // After `a`, the parents expect every one of the characters the search used to try as
    // "a character no live position expects" (and `.`, which is no separator here). `ab` is
    // still a string of the child that no parent matches.
    let mut parents = vec!["a".to_string(), "a.*".to_string()];
    for c in "xzqjkvw0123456789_-~XZQ\u{e000}\u{e001}\u{e002}\u{e003}".chars() {
        parents.push(format!("a{c}*"));
    }
    let refs: Vec<&str> = parents.iter().map(String::as_str).collect();
    let Inclusion::Witness(w) = inc(K::ModelUse, "a*", &refs) else {
        panic!("a* is not within {parents:?}");
    };
    assert!(Pattern::compile(K::ModelUse, "a*").unwrap().matches(&w));
    for p in &parents {
        assert!(
            !Pattern::compile(K::ModelUse, p).unwrap().matches(&w),
            "{p} matches {w:?}"
        );
    }
    assert!(!reference(K::ModelUse, "a*", &refs).0);
}

/// The unbounded reference: the product of the child's and every parent's automaton (no
/// literal-prefix start, no pruning, no shortcut), determinized breadth-first over every
/// character that can matter (those of the patterns, both separators and one character no
/// pattern has), each stepped byte by byte. Returns whether the child is included, the states
/// explored and the word steps taken.
fn reference(kind: K, child: &str, parents: &[&str]) -> (bool, usize, u64) {
    use std::collections::{HashSet, VecDeque};
    let nfas: Vec<crate::pattern::Nfa> = std::iter::once(child)
        .chain(parents.iter().copied())
        .map(|p| Pattern::compile(kind, p).unwrap().nfa().into_owned())
        .collect();
    let mut alphabet: Vec<char> = std::iter::once(child)
        .chain(parents.iter().copied())
        .flat_map(|p| p.chars())
        .filter(|&c| c != '*')
        .chain(['/', '.', '\u{10fffd}'])
        .collect();
    alphabet.sort_unstable();
    alphabet.dedup();
    let start: Vec<Vec<u64>> = nfas
        .iter()
        .map(|n| {
            let mut s = vec![0u64; n.words()];
            n.start_at(0, &mut s);
            s
        })
        .collect();
    let width: u64 = nfas.iter().map(|n| n.words() as u64).sum();
    let bad =
        |s: &[Vec<u64>]| nfas[0].accepts(&s[0]) && (1..nfas.len()).all(|k| !nfas[k].accepts(&s[k]));
    let mut seen = HashSet::from([start.clone()]);
    let mut queue = VecDeque::from([start]);
    let mut steps = 0u64;
    while let Some(s) = queue.pop_front() {
        if bad(&s) {
            return (false, seen.len(), steps);
        }
        for &c in &alphabet {
            let mut buf = [0u8; 4];
            let mut next = s.clone();
            for &b in c.encode_utf8(&mut buf).as_bytes() {
                for (k, n) in nfas.iter().enumerate() {
                    let cur = next[k].clone();
                    n.step(&cur, b, &mut next[k]);
                }
                steps += width;
            }
            if next[0].iter().any(|&w| w != 0) && seen.insert(next.clone()) {
                queue.push_back(next);
            }
        }
    }
    (true, seen.len(), steps)
}

#[test]
fn the_reference_agrees_with_the_semantics_examples() {
    for (kind, child, parents, want) in [
        (K::ModelUse, "gpt-4o-mini", vec!["gpt-4*"], true),
        (K::FsRead, "/a/**", vec!["/a/*"], false),
        (K::FsRead, "/a/b**", vec!["/a/*"], false),
        (K::ToolCall, "a*c", vec!["a*b*c"], false),
        (K::FsRead, "/x/**", vec!["/x", "/x/*", "/x/*/**"], true),
        (K::ModelUse, "*一*丁*丂", vec!["*"], true),
        (K::ModelUse, "*一*丁*丂", vec!["x*"], false),
    ] {
        assert_eq!(
            reference(kind, child, &parents).0,
            want,
            "{child} <= {parents:?}"
        );
        assert_eq!(yes(kind, child, &parents), want, "{child} <= {parents:?}");
    }
}

mod against_the_reference {
    use super::*;
    use proptest::prelude::*;

    const PIECES: &[&str] = &["a", "b", "é", "一", "丁", "/", ".", "*", "**", "x"];

    fn pattern() -> impl Strategy<Value = String> {
        proptest::collection::vec(proptest::sample::select(PIECES), 1..8)
            .prop_map(|v| v.concat())
            .prop_filter("valid", |p| !p.contains("***"))
    }

    fn kind() -> impl Strategy<Value = K> {
        proptest::sample::select(&[K::ModelUse, K::ToolCall][..])
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(1500))]

        /// Whenever the bounded check decides, it agrees with the reference (a witness is a
        /// string of the child no parent matches); and it decides every case whose reference
        /// exploration fits the bounds (all of these small ones).
        #[test]
        fn bounded_inclusion_agrees_with_the_unbounded_reference(
            kind in kind(),
            child in pattern(),
            parents in proptest::collection::vec(pattern(), 1..4),
            limit in 0u64..4000,
        ) {
            let refs: Vec<&str> = parents.iter().map(String::as_str).collect();
            let (want, states, steps) = reference(kind, &child, &refs);
            let c = Pattern::compile(kind, &child).unwrap();
            let ps: Vec<Pattern> =
                refs.iter().map(|p| Pattern::compile(kind, p).unwrap()).collect();
            let check = |got: &Inclusion| -> Result<(), TestCaseError> {
                match got {
                    Inclusion::Included => prop_assert!(want, "{child} <= {parents:?} claimed"),
                    Inclusion::Witness(w) => {
                        prop_assert!(!want, "{child} <= {parents:?} holds, witness {w:?}");
                        prop_assert!(c.matches(w), "{child} must match {w:?}");
                        prop_assert!(!ps.iter().any(|p| p.matches(w)), "a parent of {parents:?} matches {w:?}");
                    }
                    Inclusion::Undecided => {}
                }
                Ok(())
            };
            let fits = states <= MAX_EXPLORED_STATES && steps <= MAX_WORK_UNITS;
            let full = inc(kind, &child, &refs);
            if fits {
                prop_assert_ne!(&full, &Inclusion::Undecided, "{} <= {:?}", child, parents);
            }
            check(&full)?;
            let mut work = Work::with_limit(limit);
            let limited = included(&c, &Parents::new(ps.iter().collect()), &mut work);
            check(&limited)?;
            prop_assert!(work.used() <= limit);
        }
    }
}

#[test]
fn required_child_expiry_refuses_a_child_without_one() {
    let l = Lease::from_json(r#"{"tool.call": ["a"]}"#).unwrap();
    let parent = LeaseConstraints::from_json(r#"{"expires_at":"2030-01-01T00:00:00Z"}"#).unwrap();
    let none = LeaseConstraints::none();
    let opts = |c, p| SubsetOptions {
        child_constraints: Some(c),
        parent_constraints: Some(p),
        require_child_expiry: true,
        ..Default::default()
    };
    let e = check_lease_subset(&l, &l, &opts(&none, &parent)).unwrap_err();
    assert_eq!(e.code(), ErrorCode::LeaseSubsetViolation);
    assert_eq!(e.details()["capability"], "expires_at");
    assert!(check_lease_subset(&l, &l, &opts(&parent, &parent)).is_ok());
    assert!(check_lease_subset(&l, &l, &opts(&none, &none)).is_ok());
    assert!(check_lease_subset(&l, &l, &opts(&parent, &none)).is_ok());
    // without the option the omitted expiry is inherited
    let inherit = SubsetOptions {
        require_child_expiry: false,
        ..opts(&none, &parent)
    };
    assert!(check_lease_subset(&l, &l, &inherit).is_ok());
}

#[test]
fn strict_remaining_limits_every_currency_it_lists_and_zeroes_the_rest() {
    let parent = Lease::from_json(r#"{"cost.budget": ["USD:5"]}"#).unwrap();
    let eur = Lease::from_json(r#"{"cost.budget": ["EUR:2"]}"#).unwrap();
    let rem: BTreeMap<String, Decimal> = [("EUR".to_string(), "1".parse().unwrap())].into();
    let strict = SubsetOptions {
        parent_remaining: Some(&rem),
        strict_remaining: true,
        ..Default::default()
    };
    // an entry for a currency the parent does not budget limits the child
    let e = check_lease_subset(&eur, &parent, &strict).unwrap_err();
    assert_eq!(e.details()["currency"], "EUR");
    assert!(is_lease_subset(
        &eur,
        &parent,
        &SubsetOptions {
            strict_remaining: false,
            ..strict
        }
    ));
    // a currency absent from the map has nothing left
    let usd = Lease::from_json(r#"{"cost.budget": ["USD:1"]}"#).unwrap();
    assert!(!is_lease_subset(&usd, &parent, &strict));
    let usd0 = Lease::from_json(r#"{"cost.budget": ["USD:0"]}"#).unwrap();
    assert!(is_lease_subset(&usd0, &parent, &strict));
    // without a remaining map the option changes nothing
    let no_map = SubsetOptions {
        strict_remaining: true,
        ..Default::default()
    };
    assert!(is_lease_subset(&usd, &parent, &no_map));
}

#[test]
fn required_parent_currency_refuses_any_amount_of_an_ungranted_currency() {
    let parent = Lease::from_json(r#"{"cost.budget": ["USD:5"]}"#).unwrap();
    let granted = SubsetOptions {
        require_parent_currency: true,
        ..Default::default()
    };
    for child in [r#"["EUR:1"]"#, r#"["EUR:0"]"#] {
        let child = Lease::from_json(&format!(r#"{{"cost.budget": {child}}}"#)).unwrap();
        let e = check_lease_subset(&child, &parent, &granted).unwrap_err();
        assert_eq!(e.code(), ErrorCode::LeaseSubsetViolation);
        assert_eq!(e.details()["currency"], "EUR");
        // without the option a currency the parent does not budget is unlimited there
        assert!(is_lease_subset(&child, &parent, &SubsetOptions::default()));
    }
    // a granted currency is still limited by the parent's amount, and zero is within it
    let usd0 = Lease::from_json(r#"{"cost.budget": ["USD:0"]}"#).unwrap();
    assert!(is_lease_subset(&usd0, &parent, &granted));
    let usd6 = Lease::from_json(r#"{"cost.budget": ["USD:6"]}"#).unwrap();
    let e = check_lease_subset(&usd6, &parent, &granted).unwrap_err();
    assert_eq!(e.details()["parent_remaining"], "5");
    // a remaining amount (not strict) limits a currency the parent budgets
    let rem: BTreeMap<String, Decimal> = [("USD".to_string(), "1".parse().unwrap())].into();
    let usd2 = Lease::from_json(r#"{"cost.budget": ["USD:2"]}"#).unwrap();
    let with_rem = SubsetOptions {
        parent_remaining: Some(&rem),
        ..granted
    };
    assert!(!is_lease_subset(&usd2, &parent, &with_rem));
}

#[test]
fn required_parent_currency_with_strict_remaining_needs_an_entry() {
    let parent = Lease::from_json(r#"{"cost.budget": ["USD:5"]}"#).unwrap();
    let rem: BTreeMap<String, Decimal> = [("EUR".to_string(), "0".parse().unwrap())].into();
    let opts = SubsetOptions {
        parent_remaining: Some(&rem),
        strict_remaining: true,
        require_parent_currency: true,
        ..Default::default()
    };
    // listed (even at zero): a zero child amount fits
    let eur0 = Lease::from_json(r#"{"cost.budget": ["EUR:0"]}"#).unwrap();
    assert!(is_lease_subset(&eur0, &parent, &opts));
    // not listed: not granted, zero included (strict_remaining alone lets zero through)
    let usd0 = Lease::from_json(r#"{"cost.budget": ["USD:0"]}"#).unwrap();
    let e = check_lease_subset(&usd0, &parent, &opts).unwrap_err();
    assert_eq!(e.details()["currency"], "USD");
    assert!(is_lease_subset(
        &usd0,
        &parent,
        &SubsetOptions {
            require_parent_currency: false,
            ..opts
        }
    ));
}
