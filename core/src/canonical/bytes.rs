//! Byte-class masks of short strings: where the `/`, `.` and control bytes are, one bit per
//! byte, computed without a per-byte branch (SSE2 on x86_64, eight bytes per word operation
//! elsewhere), so an already-canonical short path is recognized in a handful of operations.

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGH: u64 = 0x8080_8080_8080_8080;
const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;

/// Bit `k` set when byte `k` of `w` (little-endian) is zero. Exact (no borrow between bytes).
fn zero_bytes(w: u64) -> u64 {
    let high = !(((w & LOW7) + LOW7) | w) & HIGH;
    // Gather bit 7 of every byte into the top byte, then shift it down.
    (high >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56
}

/// Bit `k` set when byte `k` of `w` equals `byte`.
fn equal_bytes(w: u64, byte: u8) -> u64 {
    zero_bytes(w ^ (u64::from(byte) * ONES))
}

/// Where `/`, `.` and control bytes (U+0000-U+001F, U+007F) are in a string of at most 64
/// bytes: bit `i` stands for byte `i`.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Classes {
    pub(crate) slash: u64,
    pub(crate) dot: u64,
    pub(crate) control: u64,
}

/// The classes of `b`; `None` when it is longer than 64 bytes.
pub(crate) fn classes(b: &[u8]) -> Option<Classes> {
    if b.len() > 64 {
        return None;
    }
    let mut buf = [0u8; 64];
    buf[..b.len()].copy_from_slice(b);
    #[cfg(target_arch = "x86_64")]
    let c = sse2::classes(&buf, b.len());
    #[cfg(not(target_arch = "x86_64"))]
    let c = swar_classes(&buf, b.len());
    // The zero padding past the end is not part of the string.
    let valid = if b.is_empty() {
        0
    } else {
        u64::MAX >> (64 - b.len())
    };
    Some(Classes {
        slash: c.slash & valid,
        dot: c.dot & valid,
        control: c.control & valid,
    })
}

/// SSE2 (part of every x86_64): compare 16 bytes at once, one mask bit per byte.
#[cfg(target_arch = "x86_64")]
mod sse2 {
    use super::Classes;
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8,
        _mm_setzero_si128, _mm_subs_epu8,
    };

    /// The classes of the first `len` bytes of `buf` (16-byte blocks past them are skipped).
    pub(super) fn classes(buf: &[u8; 64], len: usize) -> Classes {
        let mut c = Classes {
            slash: 0,
            dot: 0,
            control: 0,
        };
        for i in 0..len.div_ceil(16).min(4) {
            // SAFETY: SSE2 is always present on x86_64; the load reads bytes 16i..16i+16 of a
            // 64-byte array (unaligned loads are allowed).
            let (slash, dot, control) = unsafe {
                let v = _mm_loadu_si128(buf.as_ptr().add(16 * i).cast::<__m128i>());
                let slash = _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(b'/' as i8)));
                let dot = _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(b'.' as i8)));
                // byte <= 0x1f exactly when the saturating byte - 0x1f is zero
                let low =
                    _mm_cmpeq_epi8(_mm_subs_epu8(v, _mm_set1_epi8(0x1f)), _mm_setzero_si128());
                let del = _mm_cmpeq_epi8(v, _mm_set1_epi8(0x7f));
                let control = _mm_movemask_epi8(_mm_or_si128(low, del));
                (slash, dot, control)
            };
            let at = 16 * i;
            c.slash |= u64::from(slash as u16) << at;
            c.dot |= u64::from(dot as u16) << at;
            c.control |= u64::from(control as u16) << at;
        }
        c
    }
}

/// The portable version: eight bytes per word operation.
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
fn swar_classes(buf: &[u8; 64], len: usize) -> Classes {
    let (words, _) = buf.as_chunks::<8>();
    let mut c = Classes {
        slash: 0,
        dot: 0,
        control: 0,
    };
    for (i, word) in words.iter().take(len.div_ceil(8)).enumerate() {
        let w = u64::from_le_bytes(*word);
        let at = 8 * i;
        c.slash |= equal_bytes(w, b'/') << at;
        c.dot |= equal_bytes(w, b'.') << at;
        c.control |= (zero_bytes(w & (0xe0 * ONES)) | equal_bytes(w, 0x7f)) << at;
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naive(b: &[u8]) -> Classes {
        let mask = |f: &dyn Fn(u8) -> bool| {
            b.iter()
                .enumerate()
                .fold(0u64, |m, (i, &c)| m | (u64::from(f(c)) << i))
        };
        Classes {
            slash: mask(&|c| c == b'/'),
            dot: mask(&|c| c == b'.'),
            control: mask(&|c| c < 0x20 || c == 0x7f),
        }
    }

    #[test]
    fn classes_agree_with_a_byte_loop() {
        let alphabet = [
            0u8, 0x1f, 0x20, b'.', b'/', b'a', 0x7e, 0x7f, 0x80, 0xc2, 0xff,
        ];
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        for len in 0..=64 {
            for _ in 0..200 {
                let s: Vec<u8> = (0..len)
                    .map(|_| {
                        seed ^= seed << 13;
                        seed ^= seed >> 7;
                        seed ^= seed << 17;
                        alphabet[(seed % alphabet.len() as u64) as usize]
                    })
                    .collect();
                assert_eq!(classes(&s), Some(naive(&s)), "{s:?}");
                let mut buf = [0u8; 64];
                buf[..s.len()].copy_from_slice(&s);
                let valid = if s.is_empty() {
                    0
                } else {
                    u64::MAX >> (64 - s.len())
                };
                let w = swar_classes(&buf, s.len());
                let want = naive(&s);
                assert_eq!(
                    (w.slash & valid, w.dot & valid, w.control & valid),
                    (want.slash, want.dot, want.control),
                    "{s:?}"
                );
            }
        }
        assert_eq!(classes(&[b'a'; 65]), None);
    }
}
