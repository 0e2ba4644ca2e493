//! RFC 8785 (JCS) output written directly, for the records the governor itself builds:
//! strings, integers, booleans, string lists and nested objects of those (no floats, which is
//! why a direct writer is exact here). Object members are written in the order of the
//! caller's `BTreeMap` of ASCII keys, which is JCS's UTF-16 order for ASCII. Verification uses
//! a full JCS implementation (`serde_json_canonicalizer`) on what was written; a test checks
//! that the two agree.

use std::fmt::Write;

/// Appends `s` as a JCS string literal.
pub fn write_str(out: &mut String, s: &str) {
    // Most strings need no escape: one scan, one copy.
    // (A fold without an early exit, so the scan vectorizes.)
    let escapes = s.bytes().fold(false, |acc, b| {
        acc | (b < 0x20) | (b == b'"') | (b == b'\\')
    });
    if !escapes {
        out.reserve(s.len() + 2);
        out.push('"');
        out.push_str(s);
        out.push('"');
        return;
    }
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

/// Appends an integer (JCS writes integers in plain decimal).
pub fn write_int(out: &mut String, n: i64) {
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    let mut m = n.unsigned_abs();
    loop {
        i -= 1;
        digits[i] = b'0' + (m % 10) as u8;
        m /= 10;
        if m == 0 {
            break;
        }
    }
    if n < 0 {
        out.push('-');
    }
    out.push_str(std::str::from_utf8(&digits[i..]).expect("ASCII digits"));
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
        AVal::Int(n) => write_int(out, *n),
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
        for n in [
            0i64,
            7,
            -7,
            10,
            9_007_199_254_740_991,
            -9_007_199_254_740_991,
            i64::MIN,
        ] {
            let mut mine = String::new();
            write_int(&mut mine, n);
            assert_eq!(mine, n.to_string());
        }
    }
}
