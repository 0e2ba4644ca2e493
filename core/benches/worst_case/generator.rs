//! Worst-case inputs within SEMANTICS 2 and 5 bounds (at most 1024 patterns of 4096 bytes and
//! 65 536 bytes per capability, targets of 16 384 bytes), built from the shapes that make the
//! automata work hardest: many `*` between literals (every loop stays live), `**` between
//! literals (every alignment stays live), many distinct characters (large alphabets), and
//! targets that keep every pattern alive to the last byte without matching.
//!
//! Shared by `benches/worst_case.rs` (times) and the core's work-bound tests (counters).

#![allow(dead_code)]

/// Largest target (SEMANTICS 5).
pub const TARGET_BYTES: usize = 16_384;
/// Largest total of one capability's strings (SEMANTICS 2).
pub const CAPABILITY_BYTES: usize = 65_536;

/// An `authorize` case: a lease of one capability and a target it does not grant.
pub struct AuthorizeCase {
    pub name: String,
    pub capability: &'static str,
    pub patterns: Vec<String>,
    pub target: String,
}

/// A subset or narrowing case: a child (requested) and a parent (ceiling) capability.
pub struct PairCase {
    pub name: String,
    pub capability: &'static str,
    pub child: Vec<String>,
    pub parent: Vec<String>,
}

/// Pattern lengths tried: one automaton word (63), just over (64, 65), a few words, and the
/// longest pattern.
pub const LENGTHS: [usize; 6] = [63, 64, 65, 128, 1000, 4096];

/// How many patterns of `len` bytes fit the bounds.
pub fn count_for(len: usize) -> usize {
    (CAPABILITY_BYTES / len).min(1024)
}

/// `n` distinct CJK characters starting at `from` (3 UTF-8 bytes each).
pub fn cjk(from: usize, n: usize) -> Vec<char> {
    (0..n)
        .filter_map(|i| char::from_u32(0x4e00 + ((from + i * 7) % 20_000) as u32))
        .collect()
}

/// `head`, then `unit` as often as fits, then `tail`, padded with `pad` (a one-byte string) to
/// exactly `len` bytes; the tail carries what makes patterns distinct and keeps them from
/// matching, so every position before it stays live.
fn build(head: &str, unit: &str, tail: &str, pad: &str, len: usize) -> String {
    let mut p = String::from(head);
    while !unit.is_empty() && p.len() + unit.len() + tail.len() <= len {
        p.push_str(unit);
    }
    while p.len() + tail.len() < len {
        p.push_str(pad);
    }
    p.push_str(tail);
    assert_eq!(p.len(), len, "{p}");
    p
}

/// Pads or cuts `p` to exactly `len` bytes with `fill` (then `x`).
fn fit(mut p: String, len: usize, fill: &str) -> String {
    while p.len() + fill.len() <= len {
        p.push_str(fill);
    }
    while p.len() < len {
        p.push('x');
    }
    while p.len() > len {
        p.pop();
    }
    p
}

/// Every `authorize` family at every length.
pub fn authorize_cases() -> Vec<AuthorizeCase> {
    let mut out = Vec::new();
    for len in LENGTHS {
        let n = count_for(len);
        // 1. `*a*a...*a` then a tag never in the target: every loop live, no match.
        out.push(AuthorizeCase {
            name: format!("stars/{len}"),
            capability: "model.use",
            patterns: (0..n)
                .map(|i| build("", "*a", &format!("*z{i:04}"), "a", len))
                .collect(),
            target: "a".repeat(TARGET_BYTES),
        });
        // 2. whole-segment `**` between literal segments, `*` inside: every alignment live.
        out.push(AuthorizeCase {
            name: format!("globstars/{len}"),
            capability: "fs.read",
            patterns: (0..n)
                .map(|i| build("", "/**/a*", &format!("/z{i:04}"), "a", len))
                .collect(),
            target: "/a".repeat(TARGET_BYTES / 2),
        });
        // 3. many distinct characters between stars, a target of those characters.
        let chars = cjk(0, 2000);
        out.push(AuthorizeCase {
            name: format!("distinct-chars/{len}"),
            capability: "model.use",
            patterns: (0..n)
                .map(|i| {
                    let tail = format!("*z{i:04}");
                    let mut p = String::new();
                    let mut j = i;
                    while p.len() + 4 + tail.len() <= len {
                        p.push('*');
                        p.push(chars[j % chars.len()]);
                        j += 3;
                    }
                    build(&p, "", &tail, "a", len)
                })
                .collect(),
            target: {
                let mut t = String::new();
                let mut j = 0;
                while t.len() + 3 <= TARGET_BYTES {
                    t.push(chars[j % chars.len()]);
                    j += 5;
                }
                t
            },
        });
        // 4. `**` then alternating `*` and literal segments; rare other segments in the target.
        out.push(AuthorizeCase {
            name: format!("segments/{len}"),
            capability: "fs.read",
            patterns: (0..n)
                .map(|i| build("/**", "/*/a", &format!("/t{i:04}"), "a", len))
                .collect(),
            target: (0..TARGET_BYTES / 2)
                .map(|k| if k % 97 == 0 { "/b" } else { "/a" })
                .collect(),
        });
    }
    // 5. a long URL that needs the full canonicalization, against many URL patterns.
    let mut url = String::from("https://h.example");
    while url.len() + 8 <= TARGET_BYTES {
        url.push_str("/%41/./b");
    }
    out.push(AuthorizeCase {
        name: "url-canonicalization".into(),
        capability: "net.fetch",
        patterns: (0..1024)
            .map(|i| format!("https://h.example/**/x{i:04}*"))
            .collect(),
        target: url,
    });
    out
}

/// Subset and narrowing families.
pub fn pair_cases() -> Vec<PairCase> {
    let mut out = Vec::new();
    // 1. A reported child: `/**/a/` then sixteen `*/` and ~1000 distinct characters, against an
    // ordinary `/workspace/**` parent; as many such children as the bounds allow.
    let child = |k: usize| {
        let mut p = String::from("/**/a/");
        for _ in 0..16 {
            p.push_str("*/");
        }
        p.extend(cjk(k * 1000, 1000));
        p.truncate(
            p.char_indices()
                .take_while(|(i, _)| *i < 3000)
                .last()
                .map_or(0, |(i, c)| i + c.len_utf8()),
        );
        p
    };
    out.push(PairCase {
        name: "reported-cjk/1".into(),
        capability: "fs.read",
        child: vec![child(0)],
        parent: vec!["/workspace/**".into()],
    });
    out.push(PairCase {
        name: "reported-cjk/21".into(),
        capability: "fs.read",
        child: (0..21).map(child).collect(),
        parent: vec!["/workspace/**".into()],
    });
    for len in LENGTHS {
        let n = count_for(len);
        // 2. star-heavy children against star-heavy parents that overlap them.
        out.push(PairCase {
            name: format!("stars/{len}"),
            capability: "tool.call",
            child: (0..n)
                .map(|i| fit(format!("*{i:04}"), len, "*a*b"))
                .collect(),
            parent: (0..n)
                .map(|i| fit(format!("*{i:04}*"), len, "a*b*"))
                .collect(),
        });
        // 3. globstars with distinct characters between them.
        let chars = cjk(0, 4000);
        out.push(PairCase {
            name: format!("globstar-chars/{len}"),
            capability: "fs.read",
            child: (0..n)
                .map(|i| {
                    let mut p = format!("/**/{i:04}");
                    let mut j = i;
                    while p.len() + 8 <= len {
                        p.push_str("/**/");
                        p.push(chars[j % chars.len()]);
                        j += 1;
                    }
                    fit(p, len, "/")
                })
                .collect(),
            parent: (0..n)
                .map(|i| {
                    let mut p = String::from("/**");
                    let mut j = i + 1;
                    while p.len() + 8 <= len {
                        p.push('/');
                        p.push(chars[j % chars.len()]);
                        p.push_str("*/**");
                        j += 1;
                    }
                    p
                })
                .collect(),
        });
    }
    out
}

/// A subset case within the bounds that exact inclusion decides, with its answer (SEMANTICS 9).
pub struct DecidableCase {
    pub name: String,
    pub capability: &'static str,
    pub child: Vec<String>,
    pub parent: Vec<String>,
    /// Whether the child is a subset of the parent.
    pub subset: bool,
}

/// `n` consecutive CJK characters from U+4E00 + `from` (3 UTF-8 bytes each).
pub fn cjk_run(from: u32, n: usize) -> Vec<char> {
    (0..n as u32)
        .filter_map(|i| char::from_u32(0x4e00 + from + i))
        .collect()
}

/// `head`, then `*c` for each character (a `sep` before every `every`-th one), then `tail`.
fn starred(head: &str, chars: &[char], sep: Option<(char, usize)>, tail: &str) -> String {
    let mut p = String::from(head);
    for (i, c) in chars.iter().enumerate() {
        if let Some((s, every)) = sep
            && i > 0
            && i % every == 0
        {
            p.push(s);
        }
        p.push('*');
        p.push(*c);
    }
    p.push_str(tail);
    p
}

/// Children with many distinct characters and long literal runs, with and without
/// separators, against the parents `*`, `**` and `x*` (and a few narrower ones): every one
/// decided, the answer being what exact inclusion says. The child of 512 distinct
/// characters between stars against `*` is the first.
pub fn decidable_cases() -> Vec<DecidableCase> {
    let case = |name: &str, cap: &'static str, child: Vec<String>, parent: &[&str], subset| {
        DecidableCase {
            name: name.into(),
            capability: cap,
            child,
            parent: parent.iter().map(|p| p.to_string()).collect(),
            subset,
        }
    };
    let m = "model.use";
    let c512 = cjk_run(0, 512); // U+4E00..=U+4FFF: `*一*丁*丂*...*俿`
    let c1023 = cjk_run(0, 1023); // 4092 bytes as `*c` pairs
    let stars512 = starred("", &c512, None, "");
    let stars1023 = starred("", &c1023, None, "");
    let run1365: String = cjk_run(0, 1365).into_iter().collect(); // 4095 bytes, no wildcard
    let run1000: String = cjk_run(0, 1000).into_iter().collect();
    let with_seps = starred("", &c512, Some(('/', 64)), "");
    vec![
        case(
            "cjk-stars-512 <= *",
            m,
            vec![stars512.clone()],
            &["*"],
            true,
        ),
        case(
            "cjk-stars-512 <= **",
            m,
            vec![stars512.clone()],
            &["**"],
            true,
        ),
        case(
            "cjk-stars-512 !<= x*",
            m,
            vec![stars512.clone()],
            &["x*"],
            false,
        ),
        case(
            "x-cjk-stars-512 <= x*",
            m,
            vec![format!("x{stars512}")],
            &["x*"],
            true,
        ),
        case(
            "cjk-stars-512-star <= *",
            m,
            vec![format!("{stars512}*")],
            &["*"],
            true,
        ),
        case(
            "cjk-stars-1023 <= *",
            m,
            vec![stars1023.clone()],
            &["*"],
            true,
        ),
        case(
            "cjk-stars-1023 <= **",
            m,
            vec![stars1023.clone()],
            &["**"],
            true,
        ),
        case("cjk-stars-1023 !<= x*", m, vec![stars1023], &["x*"], false),
        case(
            "cjk-stars-512 <= *一*",
            m,
            vec![stars512.clone()],
            &["*一*"],
            true,
        ),
        case(
            "cjk-stars-512 <= *俿",
            m,
            vec![stars512.clone()],
            &["*俿"],
            true,
        ),
        case(
            "cjk-stars-512 !<= *丁*一*",
            m,
            vec![stars512.clone()],
            &["*丁*一*"],
            false,
        ),
        case(
            "cjk-stars-512 <= itself",
            m,
            vec![stars512.clone()],
            &[&stars512],
            true,
        ),
        case(
            "cjk-seps-512 !<= *",
            m,
            vec![with_seps.clone()],
            &["*"],
            false,
        ),
        case(
            "cjk-seps-512 <= **",
            m,
            vec![with_seps.clone()],
            &["**"],
            true,
        ),
        case(
            "cjk-seps-512 !<= x*",
            m,
            vec![with_seps.clone()],
            &["x*"],
            false,
        ),
        case("cjk-seps-512 <= */**", m, vec![with_seps], &["*/**"], true),
        case("cjk-run-1365 <= *", m, vec![run1365.clone()], &["*"], true),
        case(
            "cjk-run-1365 <= **",
            m,
            vec![run1365.clone()],
            &["**"],
            true,
        ),
        case("cjk-run-1365 !<= x*", m, vec![run1365], &["x*"], false),
        case(
            "star-run-1000-star <= *",
            m,
            vec![format!("*{run1000}*")],
            &["*"],
            true,
        ),
        case(
            "star-run-1000-star <= **",
            m,
            vec![format!("*{run1000}*")],
            &["**"],
            true,
        ),
        case(
            "star-run-1000-star !<= x*",
            m,
            vec![format!("*{run1000}*")],
            &["x*"],
            false,
        ),
        case(
            "x-star-run-1000 <= x*",
            m,
            vec![format!("x*{run1000}")],
            &["x*"],
            true,
        ),
        case(
            "tool-cjk-stars-512 !<= *",
            "tool.call",
            vec![starred("", &c512, Some(('.', 128)), "")],
            &["*"],
            false,
        ),
        case(
            "tool-cjk-stars-512 <= **",
            "tool.call",
            vec![starred("", &c512, Some(('.', 128)), "")],
            &["**"],
            true,
        ),
        case(
            "fs-cjk-stars-512 <= /**",
            "fs.read",
            vec![starred("/", &c512, Some(('/', 64)), "")],
            &["/**"],
            true,
        ),
        case(
            "fs-cjk-stars-512 !<= /*",
            "fs.read",
            vec![starred("/", &c512, Some(('/', 64)), "")],
            &["/*"],
            false,
        ),
        case(
            "8x cjk-stars-512 <= *",
            m,
            (0..8)
                .map(|k| starred("", &cjk_run(512 * k, 512), None, ""))
                .collect(),
            &["*"],
            true,
        ),
    ]
}
