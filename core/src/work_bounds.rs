//! Bounded work on the worst cases of `benches/worst_case/generator.rs` (SEMANTICS 8 and 9),
//! asserted with counters, not clocks: the word steps the automata really do (`count_work`)
//! and the units subset and narrowing charge to their budget. The times are measured by
//! `cargo bench -p leasekit --bench worst_case`.

#[path = "../benches/worst_case/generator.rs"]
mod generator;

use crate::capability::CapabilityKind;
use crate::expiry::{LeaseConstraints, SystemClock};
use crate::guard::LeaseGuard;
use crate::lease::Lease;
use crate::narrow::narrow_within;
use crate::pattern::Pattern;
use crate::pattern::nfa::WORK;
use crate::subset::{MAX_WORK_UNITS, Work, check_patterns};
use std::sync::Arc;

/// Words of automaton state a lease within the bounds can hold: every pattern's elements
/// (at most its bytes) and accepting slot, plus one word.
const MAX_WORDS: u64 = (65_536 + 1024) / 64 + 1;

fn lease(cap: &str, patterns: &[String]) -> Lease {
    Lease::from_value(&serde_json::json!({ cap: patterns })).unwrap()
}

/// The first `n` bytes of `s` (on a character boundary).
fn head(s: &str, n: usize) -> &str {
    let mut n = n.min(s.len());
    while !s.is_char_boundary(n) {
        n -= 1;
    }
    &s[..n]
}

/// Word steps of one `authorize`.
fn authorize_work(guard: &LeaseGuard, cap: &str, target: &str) -> (u64, bool) {
    WORK.with(|w| w.set(0));
    let ok = guard.authorize(cap, target).is_ok();
    (WORK.with(|w| w.get()), ok)
}

#[test]
fn authorize_work_is_bounded_by_target_times_automaton_words() {
    for case in generator::authorize_cases() {
        let guard = LeaseGuard::new(
            lease(case.capability, &case.patterns),
            LeaseConstraints::none(),
            Arc::new(SystemClock),
        );
        // Debug builds are slow: the counters are checked on the first 2 KiB. At most two
        // passes (a block of words past each live run) over this lease's automata per byte.
        let words: u64 = case
            .patterns
            .iter()
            .map(|p| p.len() as u64 + 1)
            .sum::<u64>()
            / 64
            + 1;
        assert!(words <= MAX_WORDS);
        let target = head(&case.target, 2048);
        let (work, ok) = authorize_work(&guard, case.capability, target);
        assert!(!ok, "{}: the worst cases grant nothing", case.name);
        assert!(
            work <= target.len() as u64 * 2 * words,
            "{}: {work} word steps for {} bytes and {words} words",
            case.name,
            target.len()
        );
    }
}

#[test]
fn authorize_work_on_a_full_size_worst_case_is_bounded() {
    let case = generator::authorize_cases()
        .into_iter()
        .find(|c| c.name == "globstars/64")
        .unwrap();
    assert_eq!(case.target.len(), generator::TARGET_BYTES);
    let guard = LeaseGuard::new(
        lease(case.capability, &case.patterns),
        LeaseConstraints::none(),
        Arc::new(SystemClock),
    );
    let (work, ok) = authorize_work(&guard, case.capability, &case.target);
    assert!(!ok);
    assert!(
        work > 0 && work <= generator::TARGET_BYTES as u64 * 2 * MAX_WORDS,
        "{work}"
    );
}

#[test]
fn subset_and_narrow_charge_at_least_the_work_they_do_and_stop_at_the_bound() {
    // A smaller bound than MAX_WORK_UNITS keeps debug builds quick; the accounting is the same.
    const LIMIT: u64 = 400_000;
    for case in generator::pair_cases() {
        let child = lease(case.capability, &case.child);
        let parent = lease(case.capability, &case.parent);
        WORK.with(|w| w.set(0));
        let mut work = Work::with_limit(LIMIT);
        let r = check_patterns(&child, &parent, &mut work);
        let steps = WORK.with(|w| w.get());
        assert!(
            r.is_err(),
            "{}: none of these children is within its parent",
            case.name
        );
        assert!(work.used() <= LIMIT, "{}", case.name);
        assert!(
            steps <= work.used(),
            "{}: {steps} word steps done, {} charged",
            case.name,
            work.used()
        );
        WORK.with(|w| w.set(0));
        let mut work = Work::with_limit(LIMIT);
        let n = narrow_within(&child, &parent, &mut work).unwrap();
        let steps = WORK.with(|w| w.get());
        assert!(
            work.used() <= LIMIT && steps <= work.used(),
            "{}",
            case.name
        );
        // Whatever was kept is within both sides.
        assert!(
            check_patterns(&n.lease, &parent, &mut Work::new()).is_ok(),
            "{}",
            case.name
        );
    }
}

#[test]
fn past_the_bound_the_answer_is_not_a_subset_and_narrowing_drops() {
    let l = |s: &str| Lease::from_json(s).unwrap();
    let child = l(r#"{"fs.read": ["/workspace/a/**", "/workspace/b/*.txt"]}"#);
    let parent = l(r#"{"fs.read": ["/workspace/**"]}"#);
    assert!(check_patterns(&child, &parent, &mut Work::new()).is_ok());
    let e = check_patterns(&child, &parent, &mut Work::with_limit(3)).unwrap_err();
    assert_eq!(e.code(), crate::ErrorCode::LeaseSubsetViolation);
    assert!(e.details()["witness"].is_null());
    let n = narrow_within(&child, &parent, &mut Work::with_limit(3)).unwrap();
    assert_eq!(n.lease.patterns("fs.read").unwrap(), Vec::<String>::new());
    assert_eq!(n.reductions.len(), 2);
    let n = narrow_within(&child, &parent, &mut Work::new()).unwrap();
    assert_eq!(n.lease, child);
}

#[test]
fn the_default_bound_decides_ordinary_delegations() {
    // A parent of many URL prefixes and a child of as many narrower ones: decided (well within
    // the bound), as is the child against itself.
    let parent: Vec<String> = (0..1024)
        .map(|i| format!("https://api{i}.example.com/v1/**"))
        .collect();
    let child: Vec<String> = (0..1024)
        .map(|i| format!("https://api{i}.example.com/v1/users/*/items/*.json"))
        .collect();
    let (p, c) = (lease("net.fetch", &parent), lease("net.fetch", &child));
    let mut work = Work::new();
    assert!(check_patterns(&c, &p, &mut work).is_ok());
    assert!(work.used() < MAX_WORK_UNITS / 4, "{}", work.used());
    assert!(check_patterns(&c, &c, &mut Work::new()).is_ok());
    assert!(check_patterns(&p, &c, &mut Work::new()).is_err());
}

/// Work a decidable case may use: four fifths of the bound (the largest, eight children of
/// 512 distinct characters against `*`, takes about 6 300 000 units).
const DECIDABLE_WORK: u64 = MAX_WORK_UNITS / 5 * 4;

#[test]
fn many_distinct_characters_and_long_runs_are_decided_as_inclusion_says() {
    for case in generator::decidable_cases() {
        let (child, parent) = (
            lease(case.capability, &case.child),
            lease(case.capability, &case.parent),
        );
        let mut work = Work::new();
        let r = check_patterns(&child, &parent, &mut work);
        assert_eq!(r.is_ok(), case.subset, "{}: {r:?}", case.name);
        if let Err(e) = r {
            // Decided: a witness of the child that no parent pattern matches.
            let kind = CapabilityKind::of(case.capability).unwrap();
            let w = e.details()["witness"]
                .as_str()
                .unwrap_or_else(|| panic!("{}: not decided: {e}", case.name))
                .to_string();
            let p = e.details()["pattern"].as_str().unwrap();
            assert!(
                Pattern::compile(kind, p).unwrap().matches(&w),
                "{}",
                case.name
            );
            for q in &case.parent {
                assert!(
                    !Pattern::compile(kind, q).unwrap().matches(&w),
                    "{}",
                    case.name
                );
            }
        }
        assert!(
            work.used() <= DECIDABLE_WORK,
            "{}: {} work units",
            case.name,
            work.used()
        );
        // Narrowing keeps exactly the children that are subsets, within the same work.
        let mut work = Work::new();
        let n = narrow_within(&child, &parent, &mut work).unwrap();
        let kept = n.lease.patterns(case.capability).unwrap();
        for p in &case.child {
            assert_eq!(kept.contains(p), case.subset, "{}: narrowing", case.name);
        }
        assert!(
            work.used() <= MAX_WORK_UNITS,
            "{}: {}",
            case.name,
            work.used()
        );
    }
}

#[test]
fn the_worst_cases_are_still_refused_past_the_default_bound() {
    // Each family's largest product, at the full bound: not a subset, and undecided (no
    // witness) where the exploration passed the bound, having used at most the bound.
    for name in ["reported-cjk/1", "stars/63", "globstar-chars/128"] {
        let case = generator::pair_cases()
            .into_iter()
            .find(|c| c.name == name)
            .unwrap();
        let (child, parent) = (
            lease(case.capability, &case.child),
            lease(case.capability, &case.parent),
        );
        let mut work = Work::new();
        let e = check_patterns(&child, &parent, &mut work).unwrap_err();
        assert!(work.used() <= MAX_WORK_UNITS, "{name}");
        assert!(
            e.details()["witness"].is_null() && work.exhausted(),
            "{name}: decided within {} units: {e}",
            work.used()
        );
    }
}
