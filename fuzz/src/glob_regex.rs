//! A second implementation of the pattern language (SEMANTICS 4): the pattern translated to a
//! regular expression, for the differential targets. The `regex` crate never backtracks, so it
//! is safe on hostile patterns.
//!
//! Reading of section 4 used here: a pattern splits at the separators S into segments; `*` in
//! a segment is `[^S]*`; `**` inside a segment with other characters is `.*`; a whole-segment
//! `**` after `P s` is `(s.*)?`, before `s Q` is `(.*s)?`, between `P s` and `s Q` is
//! `s(.*s)?`, and alone is `.*`; a run of whole-segment `**` (`**/**`) reads as one.

use regex::{Regex, RegexBuilder};

/// The separators of a capability (SEMANTICS 3).
pub fn separators(capability: &str) -> &'static [char] {
    if capability == "tool.call" {
        &['.', '/']
    } else {
        &['/']
    }
}

/// The anchored regular expression of a stored pattern; `None` when it is too large to build.
pub fn glob_regex(pattern: &str, seps: &[char]) -> Option<Regex> {
    RegexBuilder::new(&glob_source(pattern, seps))
        .size_limit(1 << 26)
        .dfa_size_limit(1 << 26)
        .build()
        .ok()
}

/// The source text of [`glob_regex`].
pub fn glob_source(pattern: &str, seps: &[char]) -> String {
    // (separator before, segment)
    let mut segs: Vec<(Option<char>, &str)> = Vec::new();
    let mut start = 0;
    let mut before = None;
    for (i, c) in pattern.char_indices() {
        if seps.contains(&c) {
            push(&mut segs, before, &pattern[start..i]);
            before = Some(c);
            start = i + c.len_utf8();
        }
    }
    push(&mut segs, before, &pattern[start..]);
    let class: String = seps.iter().map(|c| regex::escape(&c.to_string())).collect();
    let one = format!("[^{class}]*");
    let esc = |c: Option<char>| c.map(|c| regex::escape(&c.to_string())).unwrap_or_default();
    let mut out = String::from("(?s)^(?:");
    let mut consumed = false;
    for (i, &(sep, seg)) in segs.iter().enumerate() {
        let sep = if consumed { None } else { sep };
        consumed = false;
        if seg == "**" {
            match (segs.get(i + 1), sep) {
                (Some(&(next, _)), _) => {
                    out.push_str(&esc(sep));
                    out.push_str(&format!("(?:.*{})?", esc(next)));
                    consumed = true;
                }
                (None, Some(s)) => out.push_str(&format!("(?:{}.*)?", esc(Some(s)))),
                (None, None) => out.push_str(".*"),
            }
            continue;
        }
        out.push_str(&esc(sep));
        let mut rest = seg;
        while !rest.is_empty() {
            if let Some(r) = rest.strip_prefix("**") {
                out.push_str(".*");
                rest = r;
            } else if let Some(r) = rest.strip_prefix('*') {
                out.push_str(&one);
                rest = r;
            } else {
                let c = rest.chars().next().unwrap_or_default();
                out.push_str(&regex::escape(&c.to_string()));
                rest = &rest[c.len_utf8()..];
            }
        }
    }
    out.push_str(")$");
    out
}

fn push<'a>(segs: &mut Vec<(Option<char>, &'a str)>, before: Option<char>, seg: &'a str) {
    if seg == "**" && segs.last().is_some_and(|l| l.1 == "**") {
        return;
    }
    segs.push((before, seg));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(p: &str, seps: &[char], t: &str) -> bool {
        glob_regex(p, seps).unwrap().is_match(t)
    }

    #[test]
    fn section_4_examples() {
        let s: &[char] = &['/'];
        let tool: &[char] = &['.', '/'];
        assert!(m("web.*", tool, "web.search"));
        assert!(!m("web.*", tool, "web.search.advanced"));
        assert!(m("gpt-4*", s, "gpt-4.1"));
        assert!(m("/a/**", s, "/a"));
        assert!(m("/a/**", s, "/a/b/c"));
        assert!(!m("/a/**", s, "/ab"));
        assert!(m("**/b", s, "b"));
        assert!(m("**/b", s, "x/y/b"));
        assert!(m("/a/**/b", s, "/a/b"));
        assert!(!m("/a/**/b", s, "/a/xb"));
        assert!(m("s3://reports/**.csv", s, "s3://reports/2026/W19.csv"));
        assert!(m("**", s, ""));
        assert!(m("/x/**/**", s, "/x"));
        assert!(m("a.**/b", tool, "a.b"));
        assert!(!m("a*c", s, "abcd"));
        assert!(m("/a/[b]?", s, "/a/[b]?"));
        assert!(!m("/a/[b]?", s, "/a/b"));
    }
}
