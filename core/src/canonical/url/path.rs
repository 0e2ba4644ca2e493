//! The path of a `net.fetch` URL (SEMANTICS 5.2): unreserved escapes decoded, others
//! upper-cased (`%2F` stays encoded), dot segments removed (RFC 3986 5.2.4), `//` collapsed.

use super::ambiguity::ambiguity;
use crate::error::{Error, Result};

fn is_unreserved(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~')
}

pub(super) fn canonical_url_path(p: &str) -> Result<String> {
    // 1. percent-escapes: decode unreserved, upper-case the rest (%2F stays encoded).
    let bytes = p.as_bytes();
    let mut decoded = String::with_capacity(p.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = |j: usize| bytes.get(j).and_then(|c| (*c as char).to_digit(16));
            let (Some(h), Some(l)) = (hex(i + 1), hex(i + 2)) else {
                return Err(Error::invalid(format!(
                    "invalid percent-escape in path {p:?}"
                )));
            };
            let v = (h * 16 + l) as u8;
            if is_unreserved(v) {
                decoded.push(v as char);
            } else {
                decoded.push('%');
                decoded.push_str(&format!("{v:02X}"));
            }
            i += 3;
        } else {
            let ch_len = utf8_len(bytes[i]);
            decoded.push_str(&p[i..i + ch_len]);
            i += ch_len;
        }
    }
    // 2. dot segments, 3. repeated slashes, 4. empty path.
    let removed = remove_dot_segments(&decoded);
    let mut out = String::with_capacity(removed.len() + 1);
    for c in removed.chars() {
        if c == '/' && out.ends_with('/') {
            continue;
        }
        out.push(c);
    }
    if out.is_empty() {
        out.push('/');
    }
    // 5. ambiguous paths are refused.
    if let Some(why) = ambiguity(&out) {
        return Err(Error::invalid(format!("ambiguous URL path {out:?}: {why}")));
    }
    Ok(out)
}

fn utf8_len(lead: u8) -> usize {
    match lead {
        0x00..=0x7f => 1,
        0xc0..=0xdf => 2,
        0xe0..=0xef => 3,
        _ => 4,
    }
}

/// RFC 3986 section 5.2.4 (empty segments count as segments).
fn remove_dot_segments(input: &str) -> String {
    let mut inp = input;
    let mut out = String::with_capacity(input.len());
    let pop = |out: &mut String| {
        let cut = out.rfind('/').unwrap_or(0);
        out.truncate(cut);
    };
    while !inp.is_empty() {
        if let Some(r) = inp.strip_prefix("../") {
            inp = r;
        } else if let Some(r) = inp.strip_prefix("./") {
            inp = r;
        } else if inp.starts_with("/./") {
            inp = &inp[2..];
        } else if inp == "/." {
            inp = "/";
        } else if inp.starts_with("/../") {
            inp = &inp[3..];
            pop(&mut out);
        } else if inp == "/.." {
            pop(&mut out);
            inp = "/";
        } else if inp == "." || inp == ".." {
            inp = "";
        } else {
            let start = usize::from(inp.starts_with('/'));
            let end = inp[start..].find('/').map_or(inp.len(), |i| i + start);
            out.push_str(&inp[..end]);
            inp = &inp[end..];
        }
    }
    out
}
