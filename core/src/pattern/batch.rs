//! Many automata run in lockstep over one target. A lease may hold a thousand patterns that
//! each need an automaton run over a target of 16 384 bytes (SEMANTICS 8 bounds the time of
//! one `authorize`); one run per pattern pays a fixed cost per pattern and byte. Here the
//! automata sit side by side in one bit set, and every byte of the target is one pass over
//! the live words, a loop the compiler vectorizes.
//!
//! Laid out this way, no transition crosses from one automaton into the next: each pattern's
//! accepting slot is a dead element (no transition out of it), and every transition of a
//! pattern ends at or before its accepting slot. Only live blocks of words are stepped, so a
//! few candidates among many patterns cost little more than themselves.

use super::nfa::{Elem, Nfa, count_work};
use crate::capability::Separators;

/// Words per block: the unit of skipping dead parts of the bit set.
const BLOCK: usize = 8;

/// The automata of several patterns laid side by side.
#[derive(Clone, Debug)]
pub(crate) struct Batch {
    nfa: Nfa,
    /// First position of each pattern and one past its accepting slot (by its index in the
    /// list given to [`Batch::new`]).
    spans: Vec<(usize, usize)>,
    /// The start-state closure of every pattern, in place.
    starts: Vec<u64>,
    /// The accepting slot of every pattern.
    accept: Vec<u64>,
}

impl Batch {
    /// Lays out the automata of `patterns` (their element lists) side by side.
    pub(crate) fn new(patterns: &[Vec<Elem>], seps: Separators) -> Batch {
        let mut elems = Vec::new();
        let mut spans = Vec::with_capacity(patterns.len());
        for p in patterns {
            let from = elems.len();
            elems.extend_from_slice(p);
            elems.push(Elem::Dead);
            spans.push((from, elems.len()));
        }
        // `Nfa::new` adds an accepting slot of its own past the end, never reached.
        let nfa = Nfa::new(elems, seps);
        let words = nfa.words();
        let mut accept = vec![0u64; words];
        let mut starts = vec![0u64; words];
        let mut tmp = vec![0u64; words];
        for &(from, to) in &spans {
            let a = to - 1;
            accept[a / 64] |= 1 << (a % 64);
            nfa.start_at(from, &mut tmp);
            for (s, t) in starts[from / 64..].iter_mut().zip(&tmp[from / 64..]) {
                *s |= t;
            }
        }
        Batch {
            nfa,
            spans,
            starts,
            accept,
        }
    }

    /// Whether one of the patterns `which` (indexes into the list given to [`Batch::new`])
    /// matches the whole of `input`.
    pub(crate) fn matches_any(&self, which: &[usize], input: &[u8]) -> bool {
        let words = self.nfa.words();
        let blocks = words.div_ceil(BLOCK);
        let mut a = vec![0u64; words];
        let mut b = vec![0u64; words];
        let mut live = vec![false; blocks];
        for &k in which {
            // The start closure lies within the pattern's span.
            let (from, to) = self.spans[k];
            let span_mask = |w: usize| {
                let lo = if w == from / 64 {
                    u64::MAX << (from % 64)
                } else {
                    u64::MAX
                };
                let hi = if w == (to - 1) / 64 {
                    u64::MAX >> (63 - (to - 1) % 64)
                } else {
                    u64::MAX
                };
                lo & hi
            };
            let (first, last) = (from / 64, (to - 1) / 64);
            for (k, (x, s)) in a[first..=last]
                .iter_mut()
                .zip(&self.starts[first..=last])
                .enumerate()
            {
                *x |= s & span_mask(first + k);
            }
            for l in &mut live[from / 64 / BLOCK..=(to - 1) / 64 / BLOCK] {
                *l = true;
            }
        }
        let mut next = vec![false; blocks];
        for &byte in input {
            // Step each run of live blocks (plus the block after it, which may receive a
            // carry) as one range, so the inner loops stay long.
            let mut any = false;
            let mut i = 0;
            while i < blocks {
                if !live[i] {
                    i += 1;
                    continue;
                }
                // A run of live blocks; one dead block between two runs joins them (it would
                // be stepped anyway, as the block after the first run).
                let start = i;
                while i < blocks && (live[i] || (i + 1 < blocks && live[i + 1])) {
                    i += 1;
                }
                let lo = start * BLOCK;
                let hi = ((i + 1) * BLOCK).min(words);
                count_work(hi - lo);
                self.nfa.step_range(&a, byte, &mut b, lo, hi);
                a[lo..hi].fill(0);
                for (blk, chunk) in b[lo..hi].chunks(BLOCK).enumerate() {
                    let alive = chunk.iter().any(|&w| w != 0);
                    next[start + blk] |= alive;
                    any |= alive;
                }
            }
            if !any {
                return false;
            }
            std::mem::swap(&mut a, &mut b);
            std::mem::swap(&mut live, &mut next);
            next.fill(false);
        }
        a.iter().zip(&self.accept).any(|(s, acc)| s & acc != 0)
    }
}
