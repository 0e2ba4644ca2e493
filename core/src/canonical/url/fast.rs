//! A conservative one-pass check that a URL is already canonical, so the common case borrows
//! the target instead of rebuilding it.

use super::authority::is_reg_name_byte;

/// Bytes allowed in an already-canonical host: lower-case reg-name bytes.
const CANONICAL_HOST: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        t[b] = is_reg_name_byte(c) && !c.is_ascii_uppercase();
        b += 1;
    }
    t
};

/// A conservative single-pass check that `t` is already canonical: lower-case scheme and
/// reg-name host without an empty label, no userinfo, a port only when it is not the default
/// and has no leading zero, a non-empty path without `%`, `\`, `//`, dot segments or a
/// segment starting with `.;` or `..;`, and no fragment. `false` just means "take the full path" (`canonical_url`).
pub(crate) fn is_canonical_url(t: &str) -> bool {
    let b = t.as_bytes();
    let n = b.len();
    let mut i = 0;
    while i < n
        && (b[i].is_ascii_lowercase()
            || (i > 0 && (b[i].is_ascii_digit() || matches!(b[i], b'+' | b'-' | b'.'))))
    {
        i += 1;
    }
    if i == 0 || !b[i..].starts_with(b"://") {
        return false;
    }
    let scheme = &b[..i];
    i += 3;
    let host_start = i;
    // Empty labels (a leading or trailing '.', or '..') are refused by the full path.
    let mut empty_label = false;
    let mut dot_before = true;
    while i < n && CANONICAL_HOST[b[i] as usize] {
        let dot = b[i] == b'.';
        empty_label |= dot & dot_before;
        dot_before = dot;
        i += 1;
    }
    if i == host_start || empty_label || dot_before {
        return false;
    }
    if i < n && b[i] == b':' {
        let port_start = i + 1;
        i = port_start;
        while i < n && b[i].is_ascii_digit() {
            i += 1;
        }
        let p = &b[port_start..i];
        let default: &[u8] = match scheme {
            b"http" | b"ws" => b"80",
            b"https" | b"wss" => b"443",
            _ => b"",
        };
        if p.is_empty()
            || p.len() > 5
            || p[0] == b'0'
            || p == default
            || (p.len() == 5 && p > b"65535".as_slice())
        {
            return false;
        }
    }
    if i >= n || b[i] != b'/' {
        return false;
    }
    // Path, one pass: a segment ends at '/', '?' or the end; none may be "." or "..", none but
    // the last may be empty ("//"); no '%', fragment or control character anywhere.
    i += 1;
    let mut seg_start = i;
    loop {
        let end = i >= n;
        let c = if end { b'?' } else { b[i] };
        match c {
            b'/' | b'?' => {
                let seg = &b[seg_start..i];
                if seg == b"." || seg == b".." || (c == b'/' && seg.is_empty()) {
                    return false;
                }
                if end {
                    return true;
                }
                if c == b'?' {
                    return b[i..].iter().all(|&q| q >= 0x20 && q != 0x7f && q != b'#');
                }
                seg_start = i + 1;
            }
            // '%' and '\' (maybe ambiguous) and the fragment take the full path, as does a
            // segment starting with ".;" or "..;" (ambiguous).
            b'%' | b'#' | b'\\' => return false,
            b';' if matches!(&b[seg_start..i], b"." | b"..") => return false,
            c if c < 0x20 || c == 0x7f => return false,
            _ => {}
        }
        i += 1;
    }
}
