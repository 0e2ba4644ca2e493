//! A position automaton for one pattern, simulated with bit sets (no backtracking).
//!
//! Positions `0..n` are elements; state `i` means "about to read element `i`", state `n`
//! accepts. Elements: a literal byte (advance on that byte), a loop (stay on any byte of its
//! class, or move on by epsilon), and an optional-group marker (epsilon to `i+1` and to `i+3`,
//! skipping a two-element group). Epsilon edges only go forward, so the closure is a short
//! fixpoint of shifts. Simulation costs O(|target| * n/64) word operations.

use crate::capability::Separators;

/// One element of the position sequence.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Elem {
    /// Exactly this byte.
    Byte(u8),
    /// Zero or more bytes that are not separators (`*`).
    LoopSegment,
    /// Zero or more of any byte (`**` inside a segment, or inside a whole-segment group).
    LoopAny,
    /// Optional group of the next two elements (a whole-segment `**` with its separator).
    Group,
}

/// A compiled automaton with per-byte transition masks.
#[derive(Clone, Debug)]
pub(crate) struct Nfa {
    pub(crate) elems: Vec<Elem>,
    words: usize,
    /// Byte -> index into `masks` (0 = the byte appears in no `Byte` element).
    class_of: Box<[u16; 256]>,
    /// `masks[class * words ..][..words]`: positions whose element is `Byte(b)`.
    masks: Vec<u64>,
    loop_any: Vec<u64>,
    loop_seg: Vec<u64>,
    group: Vec<u64>,
    seps: Separators,
}

impl Nfa {
    pub(crate) fn new(elems: Vec<Elem>, seps: Separators) -> Nfa {
        let n = elems.len() + 1;
        let words = n.div_ceil(64);
        let mut class_of = Box::new([0u16; 256]);
        let mut masks = vec![0u64; words]; // class 0
        let mut loop_any = vec![0u64; words];
        let mut loop_seg = vec![0u64; words];
        let mut group = vec![0u64; words];
        let mut classes = 1u16;
        for (i, e) in elems.iter().enumerate() {
            let (w, bit) = (i / 64, 1u64 << (i % 64));
            match *e {
                Elem::Byte(b) => {
                    if class_of[b as usize] == 0 {
                        class_of[b as usize] = classes;
                        classes += 1;
                        masks.extend(std::iter::repeat_n(0, words));
                    }
                    masks[class_of[b as usize] as usize * words + w] |= bit;
                }
                Elem::LoopAny => loop_any[w] |= bit,
                Elem::LoopSegment => loop_seg[w] |= bit,
                Elem::Group => group[w] |= bit,
            }
        }
        Nfa {
            elems,
            words,
            class_of,
            masks,
            loop_any,
            loop_seg,
            group,
            seps,
        }
    }

    /// Number of bit-set words a state set needs.
    pub(crate) fn words(&self) -> usize {
        self.words
    }

    /// The accepting state index.
    fn accept(&self) -> usize {
        self.elems.len()
    }

    /// Whether `set` contains the accepting state.
    pub(crate) fn accepts(&self, set: &[u64]) -> bool {
        let a = self.accept();
        set[a / 64] >> (a % 64) & 1 == 1
    }

    /// Writes the closure of `{state}` into `out`.
    pub(crate) fn start_at(&self, state: usize, out: &mut [u64]) {
        out.fill(0);
        out[state / 64] |= 1 << (state % 64);
        self.close(out);
    }

    /// Epsilon closure in place: loops and group markers move on by one, groups also skip three.
    pub(crate) fn close(&self, d: &mut [u64]) {
        if self.words == 1 {
            let (la, ls, g) = (self.loop_any[0], self.loop_seg[0], self.group[0]);
            let mut x = d[0];
            loop {
                let next = x | ((x & (la | ls | g)) << 1) | ((x & g) << 3);
                if next == x {
                    break;
                }
                x = next;
            }
            d[0] = x;
            return;
        }
        loop {
            let mut changed = false;
            // Edges go forward: walk words low to high, carrying bits shifted out of a word.
            let mut carry1 = 0u64;
            let mut carry3 = 0u64;
            for (w, word) in d.iter_mut().enumerate() {
                let eps1 = *word & (self.loop_any[w] | self.loop_seg[w] | self.group[w]);
                let eps3 = *word & self.group[w];
                let new = *word | (eps1 << 1) | carry1 | (eps3 << 3) | carry3;
                carry1 = eps1 >> 63;
                carry3 = eps3 >> 61;
                if new != *word {
                    *word = new;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
    }

    /// One step on byte `b` from `d` into `out` (closure included). Returns whether `out` is
    /// non-empty.
    pub(crate) fn step(&self, d: &[u64], b: u8, out: &mut [u64]) -> bool {
        let class = self.class_of[b as usize] as usize * self.words;
        let sep = self.seps.contains(b);
        let mut carry = 0u64;
        let mut any = 0u64;
        for w in 0..self.words {
            let adv = d[w] & self.masks[class + w];
            let stay = d[w] & (self.loop_any[w] | if sep { 0 } else { self.loop_seg[w] });
            out[w] = (adv << 1) | carry | stay;
            carry = adv >> 63;
            any |= out[w];
        }
        if any == 0 {
            return false;
        }
        self.close(out);
        true
    }

    /// Whether the automaton, started in state `start`, accepts `input`.
    pub(crate) fn run_from(&self, start: usize, input: &[u8]) -> bool {
        if self.words == 1 {
            return self.run_single(start, input);
        }
        let mut a = vec![0u64; self.words];
        let mut b = vec![0u64; self.words];
        self.start_at(start, &mut a);
        for &byte in input {
            if !self.step(&a, byte, &mut b) {
                return false;
            }
            std::mem::swap(&mut a, &mut b);
        }
        self.accepts(&a)
    }

    fn run_single(&self, start: usize, input: &[u8]) -> bool {
        let (la, ls, g) = (self.loop_any[0], self.loop_seg[0], self.group[0]);
        let eps = la | ls | g;
        let close = |mut x: u64| loop {
            let next = x | ((x & eps) << 1) | ((x & g) << 3);
            if next == x {
                return x;
            }
            x = next;
        };
        let mut d = close(1u64 << start);
        for &byte in input {
            let adv = d & self.masks[self.class_of[byte as usize] as usize];
            let stay = d & if self.seps.contains(byte) {
                la
            } else {
                la | ls
            };
            d = (adv << 1) | stay;
            if d == 0 {
                return false;
            }
            if d & eps != 0 {
                d = close(d);
            }
        }
        d >> self.accept() & 1 == 1
    }

    /// Positions from which every continuation is accepted (a `LoopAny` whose epsilon-successor
    /// closure reaches the accepting state). Used to prune subset exploration.
    pub(crate) fn universal_mask(&self) -> Vec<u64> {
        let mut out = vec![0u64; self.words];
        let mut tmp = vec![0u64; self.words];
        for (i, e) in self.elems.iter().enumerate() {
            if *e == Elem::LoopAny {
                self.start_at(i + 1, &mut tmp);
                if self.accepts(&tmp) {
                    out[i / 64] |= 1 << (i % 64);
                }
            }
        }
        out
    }
}
