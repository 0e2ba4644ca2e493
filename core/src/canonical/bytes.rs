//! Byte-class masks of short strings: where the `/`, `.` and control bytes are, one bit per
//! byte, computed without a per-byte branch (SSE2 on x86_64, eight bytes per word operation
//! elsewhere), so an already-canonical short path is recognized in a handful of operations.
//!
//! The string is read in place, never copied to a padded buffer first: a wide load of bytes
//! just written by narrower stores cannot be forwarded from the store buffer and stalls (it
//! cost half of `canonicalize_for` on a 22-byte path). A tail shorter than a block is read
//! as a block that ends at the last byte (overlapping the one before), or, for strings under
//! eight bytes, as two overlapping narrow loads.

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

/// The bytes of `b` (at most 8) as a little-endian word, zero past the end; read with at most
/// two overlapping loads, no copy.
pub(crate) fn short_word(b: &[u8]) -> u64 {
    let n = b.len();
    debug_assert!(n <= 8);
    // Two loads of `w` bytes, one at the start and one ending at the last byte; where they
    // overlap they hold the same bytes, so OR-ing them is exact.
    let pair =
        |w: usize, load: fn(&[u8]) -> u64| load(&b[..w]) | (load(&b[n - w..]) << (8 * (n - w)));
    match n {
        8 => u64::from_le_bytes(b.try_into().unwrap_or([0; 8])),
        4..=7 => pair(4, |s| {
            u64::from(u32::from_le_bytes(s.try_into().unwrap_or([0; 4])))
        }),
        2..=3 => pair(2, |s| {
            u64::from(u16::from_le_bytes(s.try_into().unwrap_or([0; 2])))
        }),
        1 => u64::from(b[0]),
        _ => 0,
    }
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
    #[cfg(target_arch = "x86_64")]
    let c = sse2::classes(b);
    #[cfg(not(target_arch = "x86_64"))]
    let c = swar_classes(b);
    // Zero padding read past the end of a very short string is not part of it.
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
    use super::{Classes, short_word};
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_cvtsi64_si128, _mm_loadu_si128, _mm_movemask_epi8,
        _mm_or_si128, _mm_set_epi64x, _mm_set1_epi8, _mm_setzero_si128, _mm_subs_epu8,
    };

    /// The three 16-bit masks of one 16-byte block.
    fn block(v: __m128i) -> (u64, u64, u64) {
        // SAFETY: SSE2 is always present on x86_64; these only compute on registers.
        unsafe {
            let slash = _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(b'/' as i8)));
            let dot = _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(b'.' as i8)));
            // byte <= 0x1f exactly when the saturating byte - 0x1f is zero
            let low = _mm_cmpeq_epi8(_mm_subs_epu8(v, _mm_set1_epi8(0x1f)), _mm_setzero_si128());
            let del = _mm_cmpeq_epi8(v, _mm_set1_epi8(0x7f));
            let control = _mm_movemask_epi8(_mm_or_si128(low, del));
            (
                u64::from(slash as u16),
                u64::from(dot as u16),
                u64::from(control as u16),
            )
        }
    }

    /// The 16 bytes of `b` from `at` (`at + 16 <= b.len()`).
    fn load(b: &[u8], at: usize) -> __m128i {
        let chunk: &[u8; 16] = b[at..at + 16].try_into().expect("16 bytes");
        // SAFETY: SSE2 is always present; the load reads exactly the 16 bytes of `chunk`
        // (unaligned loads are allowed).
        unsafe { _mm_loadu_si128(chunk.as_ptr().cast::<__m128i>()) }
    }

    /// The classes of `b` (at most 64 bytes); bits past the end may be set for strings under
    /// 8 bytes (the caller masks them).
    pub(super) fn classes(b: &[u8]) -> Classes {
        let n = b.len();
        let mut c = Classes {
            slash: 0,
            dot: 0,
            control: 0,
        };
        let mut add = |(slash, dot, control): (u64, u64, u64), shift: usize| {
            c.slash |= slash << shift;
            c.dot |= dot << shift;
            c.control |= control << shift;
        };
        if n >= 16 {
            let full = n / 16;
            for i in 0..full {
                add(block(load(b, 16 * i)), 16 * i);
            }
            let rest = n % 16;
            if rest != 0 {
                // The last 16 bytes; the first 16 - rest of them were classified above.
                let (s, d, k) = block(load(b, n - 16));
                let drop = 16 - rest;
                add((s >> drop, d >> drop, k >> drop), 16 * full);
            }
        } else if n >= 8 {
            // Bytes 0..8 and n-8..n; the overlap classifies the same bytes twice.
            let lo = u64::from_le_bytes(b[..8].try_into().expect("8 bytes"));
            let hi = u64::from_le_bytes(b[n - 8..].try_into().expect("8 bytes"));
            // SAFETY: SSE2 is always present; register-only.
            let (s, d, k) = block(unsafe { _mm_set_epi64x(hi as i64, lo as i64) });
            add((s & 0xff, d & 0xff, k & 0xff), 0);
            add((s >> 8, d >> 8, k >> 8), n - 8);
        } else {
            // SAFETY: SSE2 is always present; register-only.
            add(block(unsafe { _mm_cvtsi64_si128(short_word(b) as i64) }), 0);
        }
        c
    }
}

/// The portable version: eight bytes per word operation.
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
fn swar_classes(b: &[u8]) -> Classes {
    let mut c = Classes {
        slash: 0,
        dot: 0,
        control: 0,
    };
    let (words, tail) = b.as_chunks::<8>();
    let tail_word = (!tail.is_empty()).then(|| short_word(tail));
    let all = words
        .iter()
        .map(|w| u64::from_le_bytes(*w))
        .chain(tail_word);
    for (i, w) in all.enumerate() {
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
                let valid = if s.is_empty() {
                    0
                } else {
                    u64::MAX >> (64 - s.len())
                };
                let w = swar_classes(&s);
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

    #[test]
    fn short_word_is_the_bytes_zero_padded() {
        let bytes: Vec<u8> = (1..=8).collect();
        for n in 0..=8 {
            let mut padded = [0u8; 8];
            padded[..n].copy_from_slice(&bytes[..n]);
            assert_eq!(
                short_word(&bytes[..n]),
                u64::from_le_bytes(padded),
                "{n} bytes"
            );
        }
    }
}
