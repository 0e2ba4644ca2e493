//! Input decoding: fields separated by `0xFF` (never a UTF-8 byte), a capability chosen by one
//! selector byte.

/// The capabilities a selector byte chooses from: the seven reserved ones and a vendor one.
pub const CAPABILITIES: &[&str] = &[
    "fs.read",
    "fs.write",
    "net.fetch",
    "tool.call",
    "agent.delegate",
    "model.use",
    "cost.budget",
    "x-vendor.acme.cap",
];

/// The field separator.
pub const SEP: u8 = 0xFF;

/// Splits `data` into exactly `n` fields at `0xFF` (the last one takes the rest, missing ones
/// are empty); `None` when a field is not UTF-8.
pub fn split(data: &[u8], n: usize) -> Option<Vec<&str>> {
    let mut out = Vec::with_capacity(n);
    let mut rest = data;
    for i in 0..n {
        let end = if i + 1 == n {
            rest.len()
        } else {
            rest.iter().position(|&b| b == SEP).unwrap_or(rest.len())
        };
        out.push(std::str::from_utf8(&rest[..end]).ok()?);
        rest = rest.get(end + 1..).unwrap_or(&[]);
    }
    Some(out)
}

/// A capability from a selector byte and the rest of the data.
pub fn capability(data: &[u8]) -> Option<(&'static str, &[u8])> {
    let (&sel, rest) = data.split_first()?;
    Some((CAPABILITIES[usize::from(sel) % CAPABILITIES.len()], rest))
}

/// The selector byte of `capability` (for seeds); `None` for a name not in [`CAPABILITIES`].
pub fn selector(capability: &str) -> Option<u8> {
    CAPABILITIES
        .iter()
        .position(|c| *c == capability)
        .and_then(|i| u8::try_from(i).ok())
}

/// Joins fields with the separator (for seeds).
pub fn join(fields: &[&[u8]]) -> Vec<u8> {
    let mut out = Vec::new();
    for (i, f) in fields.iter().enumerate() {
        if i > 0 {
            out.push(SEP);
        }
        out.extend_from_slice(f);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_round_trip() {
        let d = join(&[b"a", b"", b"c"]);
        assert_eq!(d, b"a\xff\xffc");
        assert_eq!(split(&d, 3).unwrap(), vec!["a", "", "c"]);
        assert!(
            split(b"a\xffb\xffc", 2).is_none(),
            "the last field takes the rest"
        );
        assert_eq!(split(b"x", 3).unwrap(), vec!["x", "", ""]);
        assert!(split(b"\xfe", 1).is_none());
        assert_eq!(capability(&[9, b'x']).unwrap().0, "fs.write");
        assert_eq!(selector("net.fetch"), Some(2));
    }
}
