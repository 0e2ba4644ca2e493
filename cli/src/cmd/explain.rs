//! `leasekit explain`: what a pattern matches, in words, with examples.
//!
//! The words come from the core's behaviour, not from a second pattern engine: the
//! pattern is validated (`validate_pattern`), cut into literal text and `*` runs, and
//! every statement is the answer of `match_pattern` on generated candidate targets.

use leasekit::{ErrorCode, canonicalize_target, match_pattern, validate_pattern};
use serde_json::{Value, json};

use crate::Report;
use crate::args::{ExplainArgs, Format};
use crate::failure::Failure;
use crate::style::Style;

/// Text put in place of a wildcard while probing another one.
const NEUTRAL: &str = "x";
/// The fillers tried for each wildcard: (label, text).
const PROBES: [(&str, &str); 5] = [
    ("empty", ""),
    ("plain", "x"),
    ("dot", "x.y"),
    ("slash", "x/y"),
    ("deep", "x/y/z"),
];
/// At most this many examples per list.
const MAX_EXAMPLES: usize = 8;

/// A piece of the pattern text: literal text or a run of `*`.
#[derive(Debug, Clone)]
enum Piece {
    Literal(String),
    Wildcard(String),
}

/// Cuts the pattern text into literals and `*` runs (lexing only; no matching).
fn pieces(pattern: &str) -> Vec<Piece> {
    let mut out: Vec<Piece> = Vec::new();
    for ch in pattern.chars() {
        match (ch == '*', out.last_mut()) {
            (true, Some(Piece::Wildcard(s))) | (false, Some(Piece::Literal(s))) => s.push(ch),
            (true, _) => out.push(Piece::Wildcard(ch.to_string())),
            (false, _) => out.push(Piece::Literal(ch.to_string())),
        }
    }
    out
}

/// Builds a candidate target: wildcard `i` gets `fill(i)`.
fn build(pieces: &[Piece], fill: impl Fn(usize) -> String) -> String {
    let mut out = String::new();
    let mut index = 0;
    for piece in pieces {
        match piece {
            Piece::Literal(s) => out.push_str(s),
            Piece::Wildcard(_) => {
                out.push_str(&fill(index));
                index += 1;
            }
        }
    }
    out
}

/// How one wildcard behaved under the probes.
struct WildcardFacts {
    token: String,
    /// (probe label, matched?) for each probe that produced a valid target.
    probes: Vec<(&'static str, bool)>,
}

impl WildcardFacts {
    fn matched(&self, label: &str) -> bool {
        self.probes.iter().any(|(l, m)| *l == label && *m)
    }

    /// The behaviour in words.
    fn words(&self) -> String {
        let reach = if self.matched("slash") || self.matched("deep") {
            "any text, '/' included"
        } else if self.matched("dot") {
            "any text without '/'"
        } else if self.matched("plain") {
            "any text without '/' or '.'"
        } else {
            return "no probe text matched here".to_string();
        };
        let empty = if self.matched("empty") {
            "may be empty"
        } else {
            "must not be empty"
        };
        format!("{reach} ({empty})")
    }
}

/// One classified candidate.
struct Example {
    target: String,
    canonical: Option<String>,
    outcome: Result<bool, ErrorCode>,
}

/// Runs `explain`.
pub fn run(args: &ExplainArgs, style: &Style) -> Result<Report, Failure> {
    let cap = args.capability.as_str();
    let stored = validate_pattern(cap, &args.pattern)
        .map_err(|e| Failure::core(&format!("pattern {:?}", args.pattern), &e))?;
    let parts = pieces(&stored);
    let wildcard_count = parts
        .iter()
        .filter(|p| matches!(p, Piece::Wildcard(_)))
        .count();
    let tokens: Vec<String> = parts
        .iter()
        .filter_map(|p| match p {
            Piece::Wildcard(t) => Some(t.clone()),
            Piece::Literal(_) => None,
        })
        .collect();

    let facts: Vec<WildcardFacts> = (0..wildcard_count)
        .map(|i| WildcardFacts {
            token: tokens[i].clone(),
            probes: PROBES
                .iter()
                .filter_map(|(label, text)| {
                    let candidate = build(&parts, |j| {
                        if j == i {
                            (*text).to_string()
                        } else {
                            NEUTRAL.to_string()
                        }
                    });
                    match_pattern(cap, &stored, &candidate)
                        .ok()
                        .map(|m| (*label, m))
                })
                .collect(),
        })
        .collect();

    let examples = classify(cap, &stored, &candidates(&parts, wildcard_count));
    let summary = summary(&parts, &facts, &examples);
    let stdout = match args.format {
        Format::Json => super::pretty(&to_json(args, &stored, &facts, &summary, &examples)),
        Format::Text => to_text(args, &stored, &facts, &summary, &examples, style),
    };
    Ok(Report::new(stdout, 0))
}

/// Candidate targets: every probe for every wildcard, the wildcard dropped with a
/// neighbouring character, and near misses of the plain form.
fn candidates(parts: &[Piece], wildcard_count: usize) -> Vec<String> {
    let mut out = Vec::new();
    let base = build(parts, |_| NEUTRAL.to_string());
    out.push(base.clone());
    for i in 0..wildcard_count {
        for (_, text) in PROBES {
            out.push(build(parts, |j| {
                if j == i {
                    text.to_string()
                } else {
                    NEUTRAL.to_string()
                }
            }));
        }
        // The wildcard together with the character before / after it.
        let marked = build(parts, |j| {
            if j == i {
                "\u{0}".to_string()
            } else {
                NEUTRAL.to_string()
            }
        });
        if let Some(at) = marked.find('\u{0}') {
            let (before, after) = (&marked[..at], &marked[at + 1..]);
            let mut b = before.to_string();
            b.pop();
            out.push(format!("{b}{after}"));
            let mut a = after.chars();
            a.next();
            out.push(format!("{before}{}", a.as_str()));
        }
    }
    for filler in ["", "report-1", "src/main.rs"] {
        out.push(build(parts, |_| filler.to_string()));
    }
    out.push(format!("{base}/extra"));
    out.push(format!("{base}x"));
    out.push(format!("/other{base}"));
    out.push(base.to_uppercase());
    let mut shorter = base.clone();
    shorter.pop();
    out.push(shorter);
    out.retain(|c| !c.is_empty() || wildcard_count > 0);
    out
}

/// Asks the core about every candidate, dropping duplicates of the same canonical target.
fn classify(cap: &str, stored: &str, candidates: &[String]) -> Vec<Example> {
    let mut seen = std::collections::BTreeSet::new();
    let mut out = Vec::new();
    for candidate in candidates {
        let canonical = canonicalize_target(cap, candidate).ok();
        let key = canonical.clone().unwrap_or_else(|| candidate.clone());
        if !seen.insert(key) {
            continue;
        }
        out.push(Example {
            target: candidate.clone(),
            canonical,
            outcome: match_pattern(cap, stored, candidate).map_err(|e| e.code()),
        });
    }
    out
}

/// One sentence: the shape of the matched targets.
fn summary(parts: &[Piece], facts: &[WildcardFacts], examples: &[Example]) -> String {
    if !examples.iter().any(|e| e.outcome == Ok(true)) {
        return "no generated target matched: this pattern may match nothing \
                (for example a relative path where targets are absolute)"
            .to_string();
    }
    if facts.is_empty() {
        let literal = build(parts, |_| String::new());
        return format!(
            "matches exactly the target `{literal}` (after canonicalization) and nothing else"
        );
    }
    let mut shape = Vec::new();
    let mut index = 0;
    for piece in parts {
        match piece {
            Piece::Literal(s) => shape.push(format!("`{s}`")),
            Piece::Wildcard(_) => {
                shape.push(letter(index));
                index += 1;
            }
        }
    }
    let wheres: Vec<String> = facts
        .iter()
        .enumerate()
        .map(|(i, f)| format!("{} (`{}`) is {}", letter(i), f.token, f.words()))
        .collect();
    format!("matches {} where {}", shape.join(" "), wheres.join("; "))
}

fn letter(i: usize) -> String {
    char::from(b'A' + (i % 26) as u8).to_string()
}

fn example_line(e: &Example) -> String {
    let shown = if e.target.is_empty() {
        "\"\" (the empty string)".to_string()
    } else {
        e.target.clone()
    };
    match (&e.canonical, e.outcome) {
        (_, Err(code)) => format!("{shown}  ({code})"),
        (Some(c), _) if *c != e.target => format!("{shown}  (canonical: {c})"),
        _ => shown,
    }
}

fn to_text(
    args: &ExplainArgs,
    stored: &str,
    facts: &[WildcardFacts],
    summary: &str,
    examples: &[Example],
    style: &Style,
) -> String {
    let mut out = format!(
        "{} {} {}\n",
        style.bold("pattern"),
        args.capability,
        args.pattern
    );
    if stored != args.pattern {
        out.push_str(&format!("  stored as: {stored}\n"));
    }
    out.push_str(&format!("  {summary}\n"));
    if !facts.is_empty() {
        out.push_str(&format!("{}\n", style.bold("wildcards")));
        for (i, f) in facts.iter().enumerate() {
            out.push_str(&format!("  {} `{}`: {}\n", letter(i), f.token, f.words()));
        }
    }
    // (title, wanted outcome): Some(true) matched, Some(false) did not, None invalid target.
    let sections = [
        ("matches", Some(true)),
        ("does not match", Some(false)),
        ("not a valid target", None),
    ];
    for (title, want) in sections {
        let picked: Vec<&Example> = examples
            .iter()
            .filter(|e| e.outcome.ok() == want)
            .take(MAX_EXAMPLES)
            .collect();
        if picked.is_empty() {
            continue;
        }
        let title = match want {
            Some(true) => style.good(title),
            Some(false) => style.bad(title),
            None => style.warn(title),
        };
        out.push_str(&format!("{title}\n"));
        for e in picked {
            out.push_str(&format!("  {}\n", example_line(e)));
        }
    }
    out
}

fn to_json(
    args: &ExplainArgs,
    stored: &str,
    facts: &[WildcardFacts],
    summary: &str,
    examples: &[Example],
) -> Value {
    let list = |want: Option<bool>| -> Vec<Value> {
        examples
            .iter()
            .filter(|e| e.outcome.ok() == want)
            .take(MAX_EXAMPLES)
            .map(|e| match e.outcome {
                Err(code) => json!({"target": e.target, "error": code.as_str()}),
                Ok(_) => json!({"target": e.target, "canonical": e.canonical}),
            })
            .collect()
    };
    let wildcards: Vec<Value> = facts
        .iter()
        .enumerate()
        .map(|(i, f)| {
            json!({
                "name": letter(i),
                "token": f.token,
                "matches_empty": f.matched("empty"),
                "matches_dot": f.matched("dot"),
                "matches_slash": f.matched("slash") || f.matched("deep"),
                "words": f.words(),
            })
        })
        .collect();
    json!({
        "capability": args.capability,
        "pattern": args.pattern,
        "stored": stored,
        "summary": summary,
        "wildcards": wildcards,
        "matches": list(Some(true)),
        "does_not_match": list(Some(false)),
        "invalid_targets": list(None),
    })
}

#[cfg(test)]
mod tests {
    use super::{Piece, build, pieces};

    #[test]
    fn lexes_star_runs_and_rebuilds() {
        let p = pieces("https://*.example.com/**");
        let kinds: Vec<String> = p
            .iter()
            .map(|x| match x {
                Piece::Literal(s) => format!("L{s}"),
                Piece::Wildcard(s) => format!("W{s}"),
            })
            .collect();
        assert_eq!(kinds, ["Lhttps://", "W*", "L.example.com/", "W**"]);
        assert_eq!(
            build(&p, |i| format!("<{i}>")),
            "https://<0>.example.com/<1>"
        );
        assert!(pieces("").is_empty());
    }
}
