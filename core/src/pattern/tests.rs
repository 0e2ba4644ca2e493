use super::*;
use crate::capability::CapabilityKind as K;

fn m(kind: K, p: &str, t: &str) -> bool {
    Pattern::compile(kind, p).unwrap().matches(t)
}

#[test]
fn star_stays_in_segment() {
    assert!(m(
        K::NetFetch,
        "https://api.example.com/*",
        "https://api.example.com/v1"
    ));
    assert!(m(
        K::NetFetch,
        "https://api.example.com/*",
        "https://api.example.com/"
    ));
    assert!(!m(
        K::NetFetch,
        "https://api.example.com/*",
        "https://api.example.com/v1/users"
    ));
    assert!(m(K::ToolCall, "web.*", "web.search"));
    assert!(!m(K::ToolCall, "web.*", "web.search.advanced"));
    assert!(!m(K::ToolCall, "web.*", "web/search"));
    assert!(m(K::ModelUse, "gpt-4*", "gpt-4.1"));
    assert!(m(K::AgentDelegate, "pdf-renderer@*", "pdf-renderer@1.2.0"));
    assert!(m(K::FsRead, "/a/*.txt", "/a/b.txt"));
    assert!(!m(K::FsRead, "/a/*.txt", "/a/b/c.txt"));
}

#[test]
fn whole_segment_globstar() {
    let k = K::FsRead;
    assert!(m(k, "/a/**", "/a"));
    assert!(m(k, "/a/**", "/a/"));
    assert!(m(k, "/a/**", "/a/b/c"));
    assert!(!m(k, "/a/**", "/ab"));
    assert!(m(k, "/a/**/b", "/a/b"));
    assert!(m(k, "/a/**/b", "/a/x/y/b"));
    assert!(!m(k, "/a/**/b", "/a/xb"));
    assert!(m(k, "**/b", "b"));
    assert!(m(k, "**/b", "/x/b"));
    assert!(!m(k, "**/b", "xb"));
    assert!(m(k, "**", ""));
    assert!(m(k, "**", "/any/thing"));
    assert!(m(k, "**/**", "x/y"));
    assert!(m(k, "/x/**/**", "/x"));
    assert!(m(k, "/a/**/**/b", "/a/b"));
    assert!(m(K::ToolCall, "a.**.**", "a"));
    assert!(m(K::ToolCall, "mcp.**", "mcp"));
    assert!(m(K::ToolCall, "mcp.**", "mcp.github/issues.list"));
}

#[test]
fn in_segment_double_star_crosses() {
    assert!(m(
        K::NetFetch,
        "s3://reports/**.csv",
        "s3://reports/2026/W19.csv"
    ));
    assert!(!m(
        K::NetFetch,
        "s3://reports/**.csv",
        "s3://reports/2026/W19.json"
    ));
    assert!(m(K::FsRead, "/a**", "/a/b/c"));
    assert!(m(K::FsRead, "/a/b**", "/a/b/"));
}

#[test]
fn metacharacters_are_literal() {
    assert!(m(K::ToolCall, "a?[b]{c}\\", "a?[b]{c}\\"));
    assert!(!m(K::ToolCall, "a?", "ab"));
}

#[test]
fn adversarial_is_linear() {
    let p = Pattern::compile(K::ToolCall, "*a*a*a*a*a*a*a*a*a*a*a*a*c").unwrap();
    let t = "a".repeat(10_000);
    let start = std::time::Instant::now();
    assert!(!p.matches(&t));
    let mut t2 = t.clone();
    t2.push('c');
    assert!(p.matches(&t2));
    // Correctness is what is asserted; speed is measured in benches (this is a sanity bound
    // of a backtracking engine's failure mode, seconds, not a timing test).
    assert!(start.elapsed().as_secs() < 2);
}

#[test]
fn big_patterns_use_multiword_automata() {
    let p = format!("/{}*x", "a*".repeat(100));
    let pat = Pattern::compile(K::FsRead, &p).unwrap();
    assert!(pat.matches(&format!("/{}x", "a".repeat(100))));
    assert!(pat.matches(&format!("/{}zzzx", "ab".repeat(100))));
    assert!(!pat.matches(&format!("/{}", "a".repeat(99))));
    let long = format!("/{}", "b".repeat(4095));
    assert!(Pattern::compile(K::FsRead, &long).unwrap().matches(&long));
    assert!(Pattern::compile(K::FsRead, &format!("{long}b")).is_err());
}

#[test]
fn validation() {
    for (cap, bad) in [
        ("fs.read", "relative/*"),
        ("fs.read", ""),
        ("tool.call", "a***"),
        ("tool.call", "a\u{1}"),
        ("net.fetch", "https://user@host/"),
        ("net.fetch", "https://h:99999/"),
        ("cost.budget", "x"),
        ("nope", "x"),
    ] {
        assert!(validate_pattern(cap, bad).is_err(), "{cap} {bad}");
    }
    assert_eq!(
        validate_pattern("net.fetch", "HTTPS://API.example.com:443").unwrap(),
        "https://api.example.com/"
    );
    assert_eq!(
        validate_pattern("net.fetch", "HTTPS://**").unwrap(),
        "https://**"
    );
    assert_eq!(
        validate_pattern("net.fetch", "https://*.Example.com/**").unwrap(),
        "https://*.Example.com/**"
    );
    assert_eq!(validate_pattern("net.fetch", "*://x").unwrap(), "*://x");
    assert_eq!(
        validate_pattern("net.fetch", "https://h.com?x=1").unwrap(),
        "https://h.com/?x=1"
    );
    assert!(validate_pattern("fs.read", "*").is_ok());
}

#[test]
fn match_pattern_canonicalizes_target() {
    assert!(match_pattern("fs.read", "/safe/**", "/safe/../etc/passwd").is_ok_and(|b| !b));
    assert!(
        match_pattern("net.fetch", "https://h/v1/**", "https://h/v1/../admin").is_ok_and(|b| !b)
    );
    assert!(
        match_pattern(
            "net.fetch",
            "https://api.example.com/*",
            "HTTPS://API.EXAMPLE.COM:443/v1"
        )
        .unwrap()
    );
    assert!(match_pattern("fs.read", "/a/*", "a/b").is_err());
}

#[test]
fn index_agrees_with_linear_scan() {
    let pats: Vec<String> = (0..50)
        .map(|i| match i % 5 {
            0 => format!("/data/{i}/**"),
            1 => format!("/data/{i}/file.txt"),
            2 => format!("/data/{i}/*.csv"),
            3 => format!("/logs/{i}*"),
            _ => format!("**/{i}.bin"),
        })
        .collect();
    let compiled: Vec<Pattern> = pats
        .iter()
        .map(|p| Pattern::compile(K::FsRead, p).unwrap())
        .collect();
    let set = set::PatternSet::new(compiled.clone());
    for t in [
        "/data/0",
        "/data/0/x/y",
        "/data/1/file.txt",
        "/data/2/a.csv",
        "/data/2/a/b.csv",
        "/logs/3abc",
        "/logs/3/x",
        "/x/4.bin",
        "/none",
        "/data/11/file.txt",
        "/data/12/q.csv",
        "4.bin",
    ] {
        assert_eq!(set.matches(t), compiled.iter().any(|p| p.matches(t)), "{t}");
    }
}

#[test]
fn linear_scan_heads_never_skip_a_match() {
    // Small sets (the scan with 8-byte heads): prefixes of 0 to 12 bytes against targets
    // shorter, equal and longer than them; the set must answer like trying every pattern.
    let pool = [
        "*",
        "**",
        "/",
        "/a",
        "/a*",
        "/ab/**",
        "/abcdefg",
        "/abcdefgh",
        "/abcdefgh*",
        "/abcdefghij/*.c",
        "/abcdefgh/**",
        "/b**",
        "**/x",
        "/abcdefg*h",
    ];
    let targets = [
        "/",
        "/a",
        "/ab",
        "/ab/x",
        "/abcdefg",
        "/abcdefgh",
        "/abcdefghi",
        "/abcdefghij/q.c",
        "/abcdefgh/z",
        "/b",
        "/bzz/y",
        "/x",
        "/q/x",
        "/abcdefgXh",
        "/abcdefgh/",
    ];
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    for _ in 0..400 {
        let mut chosen = Vec::new();
        for p in pool {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            if seed.is_multiple_of(3) {
                chosen.push(Pattern::compile(K::FsRead, p).unwrap());
            }
        }
        let set = set::PatternSet::new(chosen.clone());
        for t in targets {
            let want = chosen.iter().any(|p| p.matches(t));
            assert_eq!(set.matches(t), want, "{t} against {chosen:?}");
        }
    }
}

#[test]
fn mixed_separator_globstar_runs_keep_outer_separators() {
    assert!(m(K::ToolCall, "a.**/**.b", "a.b"));
    assert!(m(K::ToolCall, "a.**/**.b", "a.x/y.b"));
    assert!(!m(K::ToolCall, "a.**/**.b", "a/b"));
}

#[test]
fn prefix_star_suffix_shape() {
    assert!(m(K::FsRead, "/r/*.csv", "/r/a.csv"));
    assert!(m(K::FsRead, "/r/*.csv", "/r/.csv"));
    assert!(!m(K::FsRead, "/r/*.csv", "/r/a/b.csv"));
    assert!(!m(K::FsRead, "/r/*.csv", "/r/a.csvx"));
    assert!(!m(K::FsRead, "/r/*.csv", "/r/csv"));
    assert!(m(K::FsRead, "/items/*/detail", "/items/42/detail"));
    assert!(!m(K::FsRead, "/items/*/detail", "/items/4/2/detail"));
    // prefix and suffix overlap in the target only when the star is empty
    assert!(m(K::ToolCall, "ab*ba", "abba"));
    assert!(!m(K::ToolCall, "ab*ba", "aba"));
    // tool.call: `.` is a separator too
    assert!(m(K::ToolCall, "web.*.x", "web.a.x"));
    assert!(!m(K::ToolCall, "web.*.x", "web.a.b.x"));
}
