//! Property tests: the matcher against a regex oracle written from SEMANTICS 4's sentences,
//! and subset against brute-force enumeration of short strings.

use leasekit::*;
use proptest::prelude::*;
use serde_json::json;

/// The SEMANTICS 4 expansions, as a regex, recursing on the first whole-segment `**`.
fn oracle(segs: &[&str], seps: &[char]) -> String {
    let plain = |segs: &[&str], seps: &[char]| {
        let mut r = String::new();
        for (i, seg) in segs.iter().enumerate() {
            if i > 0 {
                r.push_str(&regex::escape(&seps[i - 1].to_string()));
            }
            let mut rest = *seg;
            while !rest.is_empty() {
                if let Some(r2) = rest.strip_prefix("**") {
                    r.push_str(".*");
                    rest = r2;
                } else if let Some(r2) = rest.strip_prefix('*') {
                    r.push_str("[^/.]*".trim_start_matches(""));
                    rest = r2;
                } else {
                    let c = rest.chars().next().unwrap();
                    r.push_str(&regex::escape(&c.to_string()));
                    rest = &rest[c.len_utf8()..];
                }
            }
        }
        r
    };
    let Some(i) = segs.iter().position(|s| *s == "**") else {
        return plain(segs, seps);
    };
    let after = &segs[i + 1..];
    let esc = |c: char| regex::escape(&c.to_string());
    match (i, after.is_empty()) {
        (0, true) => ".*".to_string(),
        (0, false) => format!("(?:.*{})?{}", esc(seps[0]), oracle(after, &seps[1..])),
        (_, true) => format!(
            "{}(?:{}.*)?",
            plain(&segs[..i], &seps[..i - 1]),
            esc(seps[i - 1])
        ),
        (_, false) => format!(
            "{}{}(?:.*{})?{}",
            plain(&segs[..i], &seps[..i - 1]),
            esc(seps[i - 1]),
            esc(seps[i]),
            oracle(after, &seps[i + 1..])
        ),
    }
}

fn oracle_match(pattern: &str, target: &str, slash_dot: bool) -> bool {
    let is_sep = |c: char| c == '/' || (slash_dot && c == '.');
    let mut segs = Vec::new();
    let mut seps = Vec::new();
    let mut start = 0;
    for (i, c) in pattern.char_indices() {
        if is_sep(c) {
            segs.push(&pattern[start..i]);
            seps.push(c);
            start = i + 1;
        }
    }
    segs.push(&pattern[start..]);
    // `**/**` is `**` (zero or more whole segments): collapse runs, keeping the first separator.
    let mut i = 1;
    while i < segs.len() {
        if segs[i] == "**" && segs[i - 1] == "**" {
            segs.remove(i);
            seps.remove(i - 1);
        } else {
            i += 1;
        }
    }
    let mut body = oracle(&segs, &seps);
    let star = if slash_dot { "[^/.]*" } else { "[^/]*" };
    body = body.replace("[^/.]*", star);
    regex::Regex::new(&format!("(?s)^(?:{body})$"))
        .unwrap()
        .is_match(target)
}

fn pattern_strategy(alphabet: &'static [&'static str]) -> impl Strategy<Value = String> {
    proptest::collection::vec(proptest::sample::select(alphabet), 1..9)
        .prop_map(|v| v.concat())
        .prop_filter("valid", |p| !p.contains("***") && !p.is_empty())
}

fn target_strategy() -> impl Strategy<Value = String> {
    proptest::collection::vec(proptest::sample::select(&["a", "b", "/", "."][..]), 1..10)
        .prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn matcher_agrees_with_regex_oracle_tool_call(p in pattern_strategy(&["a", "b", "/", ".", "*", "**"]), t in target_strategy()) {
        let got = match_pattern("tool.call", &p, &t).unwrap();
        prop_assert_eq!(got, oracle_match(&p, &t, true), "pattern {:?} target {:?}", p, t);
    }

    #[test]
    fn matcher_agrees_with_regex_oracle_slash(p in pattern_strategy(&["a", "b", "/", ".", "*", "**"]), t in target_strategy()) {
        let got = match_pattern("x-vendor.test.cap", &p, &t).unwrap();
        prop_assert_eq!(got, oracle_match(&p, &t, false), "pattern {:?} target {:?}", p, t);
    }
}

fn all_strings(alphabet: &[char], max_len: usize) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut frontier = vec![String::new()];
    for _ in 0..max_len {
        let mut next = Vec::new();
        for s in &frontier {
            for c in alphabet {
                let mut t = s.clone();
                t.push(*c);
                next.push(t);
            }
        }
        out.extend(next.iter().cloned());
        frontier = next;
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(600))]

    #[test]
    fn subset_agrees_with_brute_force(
        child in pattern_strategy(&["a", "b", "/", "*", "**"]),
        parents in proptest::collection::vec(pattern_strategy(&["a", "b", "/", "*", "**"]), 1..4),
    ) {
        let cap = "x-vendor.test.cap";
        let child_lease = Lease::from_value(&json!({ cap: [child.clone()] })).unwrap();
        let parent_lease = Lease::from_value(&json!({ cap: parents.clone() })).unwrap();
        let matches = |p: &str, t: &str| match_pattern(cap, p, t).unwrap_or(false);
        match check_lease_subset(&child_lease, &parent_lease, &SubsetOptions::default()) {
            Ok(()) => {
                // sound: no short counterexample exists
                for s in all_strings(&['a', 'b', '/', 'x'], 5) {
                    if s.is_empty() { continue; }
                    if matches(&child, &s) {
                        prop_assert!(parents.iter().any(|p| matches(p, &s)),
                            "{:?} <= {:?} claimed, but {:?} is a counterexample", child, parents, s);
                    }
                }
            }
            Err(e) => {
                prop_assert_eq!(e.code(), ErrorCode::LeaseSubsetViolation);
                let w = e.details()["witness"].as_str().expect("a witness").to_string();
                // The witness may be empty; the raw languages include the empty string.
                let raw = |p: &str, t: &str| {
                    Lease::from_value(&json!({ cap: [p] })).is_ok() && (t.is_empty() && oracle_match(p, t, false) || !t.is_empty() && matches(p, t))
                };
                prop_assert!(raw(&child, &w), "witness {:?} must match child {:?}", w, child);
                prop_assert!(!parents.iter().any(|p| raw(p, &w)), "witness {:?} matched a parent of {:?}", w, parents);
            }
        }
    }
}

/// A target built from `pattern`: each `**` and `*` filled from `fills` (a `*` fill loses its
/// separators), then maybe one byte changed, so long patterns get both matches and near misses.
fn instantiate(
    pattern: &str,
    fills: &[String],
    slash_dot: bool,
    mutate: Option<(usize, char)>,
) -> String {
    let is_sep = |c: char| c == '/' || (slash_dot && c == '.');
    let mut out = String::new();
    let mut k = 0;
    let mut rest = pattern;
    while let Some(c) = rest.chars().next() {
        if let Some(r) = rest.strip_prefix("**") {
            out.push_str(&fills[k % fills.len()]);
            k += 1;
            rest = r;
        } else if let Some(r) = rest.strip_prefix('*') {
            out.extend(fills[k % fills.len()].chars().filter(|&c| !is_sep(c)));
            k += 1;
            rest = r;
        } else {
            out.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    if let Some((at, c)) = mutate
        && !out.is_empty()
    {
        let i = at % out.len();
        out.replace_range(i..i + 1, &c.to_string());
    }
    out
}

fn fills_strategy() -> impl Strategy<Value = Vec<String>> {
    proptest::collection::vec(
        proptest::collection::vec(
            proptest::sample::select(&["a", "b", "/", ".", "x"][..]),
            0..4,
        )
        .prop_map(|v| v.concat()),
        1..6,
    )
}

/// Patterns long enough to need several words of automaton state.
fn long_pattern_strategy() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        proptest::sample::select(&["a", "b", "/", ".", "*", "**", "ab", "/**/"][..]),
        30..140,
    )
    .prop_map(|v| v.concat())
    .prop_filter("valid", |p| !p.contains("***"))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn long_patterns_agree_with_regex_oracle(
        p in long_pattern_strategy(),
        fills in fills_strategy(),
        mutate in proptest::option::of((0usize..1000, proptest::sample::select(vec!['a', 'b', '/', '.', 'z']))),
        slash_dot in any::<bool>(),
    ) {
        let t = instantiate(&p, &fills, slash_dot, mutate);
        prop_assume!(!t.is_empty());
        let cap = if slash_dot { "tool.call" } else { "x-vendor.test.cap" };
        let got = match_pattern(cap, &p, &t).unwrap();
        prop_assert_eq!(got, oracle_match(&p, &t, slash_dot), "pattern {:?} target {:?}", p, t);
    }

    /// Many automaton patterns in one lease run in lockstep (`pattern::batch`); the answer must
    /// be that of the patterns one by one.
    #[test]
    fn lease_of_many_patterns_agrees_with_the_oracle(
        short in proptest::collection::vec(pattern_strategy(&["a", "b", "/", ".", "*", "**"]), 0..30),
        long in proptest::collection::vec(long_pattern_strategy(), 0..6),
        pick in any::<usize>(),
        fills in fills_strategy(),
        mutate in proptest::option::of((0usize..1000, proptest::sample::select(vec!['a', 'b', '/', '.', 'z']))),
        slash_dot in any::<bool>(),
    ) {
        let mut patterns: Vec<String> = short.into_iter().chain(long).collect();
        patterns.sort();
        patterns.dedup();
        prop_assume!(!patterns.is_empty());
        let cap = if slash_dot { "tool.call" } else { "x-vendor.test.cap" };
        let t = instantiate(&patterns[pick % patterns.len()], &fills, slash_dot, mutate);
        prop_assume!(!t.is_empty());
        let lease = Lease::from_value(&json!({ cap: patterns.clone() })).unwrap();
        let guard = LeaseGuard::new(lease, LeaseConstraints::none(), std::sync::Arc::new(SystemClock));
        let want = patterns.iter().any(|p| oracle_match(p, &t, slash_dot));
        prop_assert_eq!(guard.authorize(cap, &t).is_ok(), want, "patterns {:?} target {:?}", patterns, t);
    }
}
