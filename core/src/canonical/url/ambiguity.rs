//! Ambiguous URL paths (SEMANTICS 5.2): a canonical path that some parser or server between
//! the runtime and the resource would read as climbing out of it. WHATWG parsers (the one
//! behind `fetch`) read `\` as `/`; servers may decode `%2F` or `%5C` into separators, decode
//! twice (`%252e` -> `%2e` -> `.`), or drop `;` path parameters (`..;/` -> `../`).

/// Why `path` (a canonical `net.fetch` path) is ambiguous, or `None` when it is not: it holds
/// a `\`, or one of its pieces between `/`, `%2F` and `%5C` (any hex case), once `%25` is read
/// as `%` and then `%2E` as `.`, is `.` or `..` or starts with `.;` or `..;`.
pub(crate) fn ambiguity(path: &str) -> Option<&'static str> {
    let b = path.as_bytes();
    if b.contains(&b'\\') {
        return Some("a backslash in the path (WHATWG URL parsers read it as '/')");
    }
    if !b.iter().any(|&c| matches!(c, b'.' | b'%')) {
        return None; // no dot can appear: the common case costs one scan
    }
    let once = decode_percent_25(b);
    let mut start = 0;
    let mut i = 0;
    while i <= once.len() {
        let sep = match once.get(i) {
            None => 1,
            Some(b'/') => 1,
            Some(b'%')
                if is_escape(&once[i..], b'2', b'F') || is_escape(&once[i..], b'5', b'C') =>
            {
                3
            }
            Some(_) => 0,
        };
        if sep == 0 {
            i += 1;
            continue;
        }
        if is_dot_piece(&once[start..i]) {
            return Some(
                "a '.' or '..' path piece once %2F, %5C, %25 or ';' are read by a server (climbs out of the path)",
            );
        }
        i += sep;
        start = i;
    }
    None
}

/// `%25` read as `%`, once, left to right (`%2525` becomes `%25`).
fn decode_percent_25(b: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i..].starts_with(b"%25") {
            out.push(b'%');
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    out
}

/// Whether `b` starts with `%` `hi` `lo`, the hex digit `lo` in either case.
fn is_escape(b: &[u8], hi: u8, lo: u8) -> bool {
    b.len() >= 3 && b[0] == b'%' && b[1] == hi && b[2].eq_ignore_ascii_case(&lo)
}

/// Whether a piece, once `%2E` (any case) is read as `.`, is `.` or `..` or starts with `.;`
/// or `..;`.
fn is_dot_piece(piece: &[u8]) -> bool {
    // The first three characters after decoding, and whether the piece ends after each.
    let mut chars = [0u8; 3];
    let mut count = 0;
    let mut i = 0;
    while i < piece.len() && count < 3 {
        if is_escape(&piece[i..], b'2', b'E') {
            chars[count] = b'.';
            i += 3;
        } else {
            chars[count] = piece[i];
            i += 1;
        }
        count += 1;
    }
    let ended = i >= piece.len();
    match (count, chars) {
        (1, [b'.', _, _]) => ended,
        (2, [b'.', b'.', _]) => ended,
        (2 | 3, [b'.', b';', _]) => true,
        (3, [b'.', b'.', b';']) => true,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces() {
        for p in [
            "/..%2Fadmin",
            "/v1/%252e%252e/x",
            "/v1/\\..\\x",
            "/v1/a\\b",
            "/v1/..;/x",
            "/v1/.;/x",
            "/v1/..;jsessionid=1",
            "/v1/.;x",
            "/a%2F..",
            "/a%2f..%2fb",
            "/a%5C..%5Cb",
            "/a%5c.",
            "/%252E%252E",
            "/%252e.",
            "/.%252e/x",
            "/a%252F..",
            "/a%252f..%252fb",
            "/a%255C..",
            "/x/%252e;y",
            "/..%2F",
            "/%2E%2E",
            "/a%2F.%2Fb",
        ] {
            assert!(ambiguity(p).is_some(), "{p}");
        }
        for p in [
            "/",
            "/a/b",
            "/a%2Fb",
            "/x..",
            "/.well-known/x",
            "/..x",
            "/...",
            "/.x",
            "/a;b",
            "/x..;",
            "/...;",
            "/%2525",
            "/%252ex",
            "/%25252e%25252e",
            "/a%5Cb",
            "/a%2F...",
            "/caf\u{e9}/..\u{e9}",
        ] {
            assert_eq!(ambiguity(p), None, "{p}");
        }
    }
}
