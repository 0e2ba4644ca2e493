//! RFC 8785 (JCS) output written directly, for the records the governor itself builds:
//! strings, integers, booleans, string lists and nested objects of those (no floats, which is
//! why a direct writer is exact here). Object members are written in the order of the
//! caller's `BTreeMap` of ASCII keys, which is JCS's UTF-16 order for ASCII. Verification uses
//! a full JCS implementation (`serde_json_canonicalizer`) on what was written; a test checks
//! that the two agree.

use std::fmt::Write;

/// Appends `s` as a JCS string literal.
pub fn write_str(out: &mut String, s: &str) {
    out.push('"');
    let bytes = s.as_bytes();
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let esc: Option<&str> = match b {
            b'"' => Some("\\\""),
            b'\\' => Some("\\\\"),
            0x08 => Some("\\b"),
            b'\t' => Some("\\t"),
            b'\n' => Some("\\n"),
            0x0c => Some("\\f"),
            b'\r' => Some("\\r"),
            0..=0x1f => None,
            _ => continue,
        };
        out.push_str(&s[start..i]);
        match esc {
            Some(e) => out.push_str(e),
            None => {
                let _ = write!(out, "\\u{:04x}", b);
            }
        }
        start = i + 1;
    }
    out.push_str(&s[start..]);
    out.push('"');
}

/// A value of an audit record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AVal {
    /// A string.
    Str(String),
    /// An integer (|n| < 2^53, as JCS numbers must be).
    Int(i64),
    /// A boolean.
    Bool(bool),
    /// A list of strings.
    Strs(Vec<String>),
}

/// Appends one value.
pub fn write_val(out: &mut String, v: &AVal) {
    match v {
        AVal::Str(s) => write_str(out, s),
        AVal::Int(n) => {
            let _ = write!(out, "{n}");
        }
        AVal::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        AVal::Strs(list) => {
            out.push('[');
            for (i, s) in list.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_str(out, s);
            }
            out.push(']');
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agrees_with_the_jcs_crate() {
        for s in [
            "plain",
            "quote\"back\\slash",
            "ctl\u{1}\u{1f}\n\t\r\u{8}\u{c}",
            "é€😀",
            "\u{7f}",
        ] {
            let mut mine = String::new();
            write_str(&mut mine, s);
            let theirs = serde_json_canonicalizer::to_string(&serde_json::Value::from(s)).unwrap();
            assert_eq!(mine, theirs, "{s:?}");
        }
    }
}
