//! `subset_bruteforce`: the subset decision against brute-force enumeration of short strings;
//! `narrow`: the narrowed lease is a subset of both inputs.

use crate::glob_regex::{glob_regex, separators};
use arbitrary::Unstructured;
use leasekit::{
    ErrorCode, Lease, SubsetOptions, check_lease_subset, is_lease_subset, narrow_lease,
};
use regex::Regex;
use std::collections::BTreeMap;

/// The pattern alphabet: letters, both separators and the star.
const PATTERN_BYTES: &[u8] = b"ab/.*";
/// The enumeration alphabet (every class a pattern can tell apart, plus one it never names).
const STRING_BYTES: &[u8] = b"ab/.c";
/// Strings up to this length are enumerated (5^0 + ... + 5^5 = 3 906 strings).
const MAX_LEN: usize = 5;
/// Capabilities with different separators and pattern rules (fs patterns start with `/`).
const CAPS: &[&str] = &["model.use", "tool.call", "fs.read"];

fn pattern(u: &mut Unstructured, cap: &str) -> arbitrary::Result<String> {
    let len = u.int_in_range(1..=7)?;
    let mut s = if cap == "fs.read" {
        String::from("/")
    } else {
        String::new()
    };
    for _ in 0..len {
        s.push(char::from(*u.choose(PATTERN_BYTES)?));
    }
    Ok(s)
}

fn patterns(u: &mut Unstructured, cap: &str, min: usize) -> arbitrary::Result<Vec<String>> {
    let n = u.int_in_range(min..=3)?;
    (0..n).map(|_| pattern(u, cap)).collect()
}

fn lease(cap: &str, ps: &[String]) -> Option<Lease> {
    Lease::from_map(BTreeMap::from([(cap.to_string(), ps.to_vec())])).ok()
}

fn all_strings() -> Vec<String> {
    let mut out = vec![String::new()];
    let mut frontier = vec![String::new()];
    for _ in 0..MAX_LEN {
        let next: Vec<String> = frontier
            .iter()
            .flat_map(|s| {
                STRING_BYTES
                    .iter()
                    .map(move |&b| format!("{s}{}", char::from(b)))
            })
            .collect();
        out.extend(next.iter().cloned());
        frontier = next;
    }
    out
}

fn regexes(cap: &str, l: &Lease) -> Vec<(String, Regex)> {
    l.patterns(cap)
        .unwrap_or(&[])
        .iter()
        .map(|p| {
            (
                p.clone(),
                glob_regex(p, separators(cap)).expect("small pattern"),
            )
        })
        .collect()
}

/// Input: structure for one capability, 1-3 child and 0-3 parent patterns of up to 7 bytes
/// over `ab/.*`. When the subset check says yes, no enumerated string (`ab/.c`, up to 5
/// bytes) is matched by a child pattern and by no parent pattern; when it says no, its witness
/// is matched by the named child pattern and by no parent pattern. Every lease is a subset of
/// itself.
pub fn subset_bruteforce(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let Ok(cap) = u.choose(CAPS).copied() else {
        return;
    };
    let (Ok(c), Ok(p)) = (patterns(&mut u, cap, 1), patterns(&mut u, cap, 0)) else {
        return;
    };
    let (Some(child), Some(parent)) = (lease(cap, &c), lease(cap, &p)) else {
        return;
    };
    let (cre, pre) = (regexes(cap, &child), regexes(cap, &parent));
    let in_parent = |s: &str| pre.iter().any(|(_, r)| r.is_match(s));
    match check_lease_subset(&child, &parent, &SubsetOptions::default()) {
        Ok(()) => {
            for s in all_strings() {
                if cre.iter().any(|(_, r)| r.is_match(&s)) {
                    assert!(
                        in_parent(&s),
                        "{c:?} <= {p:?} but {s:?} is only in the child"
                    );
                }
            }
        }
        Err(e) => {
            assert_eq!(e.code(), ErrorCode::LeaseSubsetViolation, "{}", e.message());
            let d = e.details();
            let w = d.get("witness").and_then(|v| v.as_str());
            let named = d.get("pattern").and_then(|v| v.as_str());
            let w = w.unwrap_or_else(|| panic!("no witness for {c:?} vs {p:?}: {d:?}"));
            let named = named.expect("the violation names the child pattern");
            let (_, r) = cre
                .iter()
                .find(|(s, _)| s == named)
                .expect("a child pattern");
            assert!(r.is_match(w), "witness {w:?} is not matched by {named:?}");
            assert!(
                !in_parent(w),
                "witness {w:?} is matched by the parent {p:?}"
            );
        }
    }
    assert!(
        is_lease_subset(&child, &child, &SubsetOptions::default()),
        "{c:?} is not a subset of itself"
    );
}

fn small_lease(u: &mut Unstructured) -> arbitrary::Result<Lease> {
    let mut m = BTreeMap::new();
    for cap in CAPS {
        if u.arbitrary::<bool>()? {
            m.insert(cap.to_string(), patterns(u, cap, 0)?);
        }
    }
    if u.arbitrary::<bool>()? {
        let n = u.int_in_range(0..=2)?;
        let mut b = Vec::new();
        for _ in 0..n {
            let cur = *u.choose(&["USD", "EUR", "usd"])?;
            let amt = *u.choose(&["0", "1", "2.5", "10", "0.000000001"])?;
            b.push(format!("{cur}:{amt}"));
        }
        m.insert("cost.budget".to_string(), b);
    }
    Lease::from_map(m).map_err(|_| arbitrary::Error::IncorrectFormat)
}

/// Input: structure for two small leases (the three capabilities above and budgets in two
/// currencies). The narrowed lease is a subset of the request and of the ceiling (SEMANTICS
/// 10), narrowing is deterministic, and a lease narrowed by itself keeps its patterns and
/// budget.
pub fn narrow(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let (Ok(req), Ok(ceil)) = (small_lease(&mut u), small_lease(&mut u)) else {
        return;
    };
    let n = narrow_lease(&req, &ceil).expect("valid leases narrow");
    for (side, l) in [("request", &req), ("ceiling", &ceil)] {
        let r = check_lease_subset(&n.lease, l, &SubsetOptions::default());
        assert!(
            r.is_ok(),
            "narrow({req:?}, {ceil:?}) = {:?} is not within the {side}: {r:?}",
            n.lease
        );
    }
    let again = narrow_lease(&req, &ceil).expect("valid leases narrow");
    assert_eq!(again.lease, n.lease, "narrowing is not deterministic");
    let same = narrow_lease(&req, &req).expect("valid leases narrow");
    for cap in CAPS {
        let set = |l: &Lease| {
            l.patterns(cap)
                .map(|p| p.iter().cloned().collect::<std::collections::BTreeSet<_>>())
        };
        assert_eq!(
            set(&same.lease),
            set(&req),
            "narrow(x, x) changed {cap} of {req:?}"
        );
    }
    assert_eq!(
        same.lease.budget(),
        req.budget(),
        "narrow(x, x) changed the budget"
    );
}
