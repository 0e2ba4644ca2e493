//! The code behind core's only `unsafe` blocks (the SSE2 byte-class masks of
//! `canonical/bytes.rs`, which read strings in place with overlapping loads), reached through the
//! public API with every length the masks handle (0 to 65 bytes, so every load shape: empty,
//! 1-7 bytes through overlapping narrow loads, 8-15 through two words, 16-64 through full and
//! overlapping 16-byte blocks, and past the 64-byte limit) and bytes of every class. Small
//! enough for Miri: `cargo +nightly miri test -p leasekit --no-default-features --test
//! unsafe_paths` checks these reads for out-of-bounds and uninitialized memory.

use leasekit::canonicalize_target;

/// The canonical form by SEMANTICS 5.1, written out naively.
fn naive_path(t: &str) -> Option<String> {
    if t.is_empty() || !t.starts_with('/') || t.bytes().any(|b| b < 0x20 || b == 0x7f) {
        return None;
    }
    let mut out: Vec<&str> = Vec::new();
    for s in t.split('/') {
        match s {
            "" | "." => {}
            ".." => {
                out.pop();
            }
            s => out.push(s),
        }
    }
    Some(format!("/{}", out.join("/")))
}

#[test]
fn short_paths_of_every_length_and_byte_class_canonicalize_as_the_rule_says() {
    // '/', '.', a letter, a control byte, DEL, a two-byte character's bytes.
    let pieces = ["/", ".", "a", "\u{1}", "\u{7f}", "\u{e9}"];
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for len in 0..=66 {
        for _ in 0..6 {
            let mut t = String::from("/");
            while t.len() < len {
                t.push_str(pieces[(next() % pieces.len() as u64) as usize]);
            }
            let got = canonicalize_target("fs.read", &t).ok();
            assert_eq!(got, naive_path(&t), "{t:?}");
        }
    }
}

#[test]
fn canonical_short_paths_come_back_unchanged() {
    for len in 1..=66 {
        let t: String = (0..len)
            .map(|i| if i % 5 == 0 { '/' } else { 'x' })
            .collect();
        assert_eq!(
            canonicalize_target("fs.write", &t).ok(),
            naive_path(&t),
            "{t:?}"
        );
    }
}
