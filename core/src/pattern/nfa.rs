//! A position automaton for one pattern, simulated with bit sets (no backtracking).
//!
//! Positions `0..n` are elements; state `i` means "about to read element `i`", state `n`
//! accepts. Elements: a literal byte (advance on that byte), a loop (stay on any byte of its
//! class, or move on by epsilon), and an optional-group marker (epsilon to `i+1` and to `i+3`,
//! skipping a two-element group). Epsilon edges only go forward and their chains are short (at
//! most two edges for the element sequences `elements` builds), so the closure is one forward
//! pass over the words with that many shift rounds per word. Simulation costs
//! O(|target| * n/64) word operations, restricted to the words that hold live states.

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
    /// No transition at all: the accepting slot and padding of automata laid side by side
    /// (`batch`).
    Dead,
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
    /// Positions that stay on a separator byte (`LoopAny`).
    stay_sep: Vec<u64>,
    /// Positions that stay on any other byte (`LoopAny`, `LoopSegment`).
    stay_other: Vec<u64>,
    /// Positions with an epsilon edge to the next position (loops and group markers).
    eps1: Vec<u64>,
    /// Positions with an epsilon edge three positions on (group markers).
    eps3: Vec<u64>,
    /// The longest chain of epsilon edges: closure rounds needed per word.
    rounds: u32,
    seps: Separators,
}

impl Nfa {
    pub(crate) fn new(elems: Vec<Elem>, seps: Separators) -> Nfa {
        let n = elems.len() + 1;
        let words = n.div_ceil(64);
        let mut class_of = Box::new([0u16; 256]);
        let mut masks = vec![0u64; words]; // class 0
        let mut stay_sep = vec![0u64; words];
        let mut stay_other = vec![0u64; words];
        let mut eps1 = vec![0u64; words];
        let mut eps3 = vec![0u64; words];
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
                Elem::LoopAny => {
                    stay_sep[w] |= bit;
                    stay_other[w] |= bit;
                    eps1[w] |= bit;
                }
                Elem::LoopSegment => {
                    stay_other[w] |= bit;
                    eps1[w] |= bit;
                }
                Elem::Group => {
                    eps1[w] |= bit;
                    eps3[w] |= bit;
                }
                Elem::Dead => {}
            }
        }
        // Longest epsilon chain from each position, computed backwards (edges go forward).
        let mut depth = vec![0u32; n + 3];
        for i in (0..elems.len()).rev() {
            depth[i] = match elems[i] {
                Elem::Byte(_) | Elem::Dead => 0,
                Elem::LoopAny | Elem::LoopSegment => 1 + depth[i + 1],
                Elem::Group => 1 + depth[i + 1].max(depth[i + 3]),
            };
        }
        let rounds = depth.iter().copied().max().unwrap_or(0);
        Nfa {
            elems,
            words,
            class_of,
            masks,
            stay_sep,
            stay_other,
            eps1,
            eps3,
            rounds,
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

    /// The closure of word `w` holding `x`, given the epsilon bits carried in from word `w-1`.
    #[inline(always)]
    fn close_word(&self, w: usize, mut x: u64) -> u64 {
        let (e1, e3) = (self.eps1[w], self.eps3[w]);
        for _ in 0..self.rounds {
            x |= ((x & e1) << 1) | ((x & e3) << 3);
        }
        x
    }

    /// The epsilon bits word `w` (closed, holding `x`) carries into word `w+1`.
    #[inline(always)]
    fn carry_out(&self, w: usize, x: u64) -> u64 {
        ((x & self.eps1[w]) >> 63) | ((x & self.eps3[w]) >> 61)
    }

    /// Epsilon closure in place: one forward pass (edges only go forward).
    pub(crate) fn close(&self, d: &mut [u64]) {
        let mut carry = 0u64;
        for (w, word) in d.iter_mut().enumerate() {
            let x = self.close_word(w, *word | carry);
            carry = self.carry_out(w, x);
            *word = x;
        }
    }

    /// One step on byte `b` from `d` into `out` (closure included). Returns whether `out` is
    /// non-empty.
    pub(crate) fn step(&self, d: &[u64], b: u8, out: &mut [u64]) -> bool {
        count_work(self.words);
        self.step_range(d, b, out, 0, self.words);
        out.iter().any(|&w| w != 0)
    }

    /// One step on byte `b` from `d` into `out`, for the words `lo..hi` (the others of `out`
    /// are left alone: the caller knows they are zero). `d` must be zero outside `lo..hi-1`
    /// (a step moves states at most one word on, so `hi` is one past the last live word + 1).
    ///
    /// Written as passes over the words whose only loop-carried value is the previous input
    /// word (a first-order recurrence), so the compiler vectorizes them.
    #[inline]
    pub(crate) fn step_range(&self, d: &[u64], b: u8, out: &mut [u64], lo: usize, hi: usize) {
        let words = self.words;
        let m = &self.masks[self.class_of[b as usize] as usize * words..][..words];
        let stay = if self.seps.contains(b) {
            &self.stay_sep
        } else {
            &self.stay_other
        };
        let (d, m, stay, out) = (&d[lo..hi], &m[lo..hi], &stay[lo..hi], &mut out[lo..hi]);
        let (e1, e3) = (&self.eps1[lo..hi], &self.eps3[lo..hi]);
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx512f") {
            // SAFETY: the CPU supports AVX-512F (checked just above).
            unsafe { step_words_avx512(d, m, stay, e1, e3, self.rounds, out) };
            return;
        }
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU supports AVX2 (checked just above).
            unsafe { step_words_avx2(d, m, stay, e1, e3, self.rounds, out) };
            return;
        }
        step_words(d, m, stay, e1, e3, self.rounds, out);
    }

    /// One step of a one-word automaton (`words() == 1`) on byte `b`, closure included.
    #[inline]
    pub(crate) fn step_word(&self, d: u64, b: u8) -> u64 {
        count_work(1);
        let adv = d & self.masks[self.class_of[b as usize] as usize];
        let stay = d & if self.seps.contains(b) {
            self.stay_sep[0]
        } else {
            self.stay_other[0]
        };
        let mut x = (adv << 1) | stay;
        let (e1, e3) = (self.eps1[0], self.eps3[0]);
        for _ in 0..self.rounds {
            x |= ((x & e1) << 1) | ((x & e3) << 3);
        }
        x
    }

    /// Whether the automaton, started in state `start`, accepts `input`.
    pub(crate) fn run_from(&self, start: usize, input: &[u8]) -> bool {
        if self.words == 1 {
            return self.run_single(start, input);
        }
        count_work(input.len() * self.words);
        let mut a = vec![0u64; self.words];
        let mut b = vec![0u64; self.words];
        self.start_at(start, &mut a);
        // `a` is zero outside `lo..hi`, `b` is all zero; a step moves states at most one word on.
        let (mut lo, mut hi) = (start / 64, self.words);
        for &byte in input {
            let end = (hi + 1).min(self.words);
            self.step_range(&a, byte, &mut b, lo, end);
            a[lo..hi].fill(0);
            let Some(first) = b[lo..end].iter().position(|&w| w != 0) else {
                return false;
            };
            let last = b[lo..end].iter().rposition(|&w| w != 0).unwrap_or(first);
            (lo, hi) = (lo + first, lo + last + 1);
            std::mem::swap(&mut a, &mut b);
        }
        self.accepts(&a)
    }

    /// [`Nfa::run_from`] that counts its work (words stepped, cleared and scanned):
    /// `Some((accepted, units))` with `units <= limit`, `None` as soon as the run would take
    /// more.
    pub(crate) fn run_within(&self, start: usize, input: &[u8], limit: u64) -> Option<(bool, u64)> {
        let mut used = self.words as u64;
        if used > limit {
            return None;
        }
        let mut a = vec![0u64; self.words];
        let mut b = vec![0u64; self.words];
        self.start_at(start, &mut a);
        let (mut lo, mut hi) = (start / 64, self.words);
        for &byte in input {
            let end = (hi + 1).min(self.words);
            // The step, then clearing and scanning the band.
            used += 2 * (end - lo) as u64 + 1;
            if used > limit {
                return None;
            }
            count_work(end - lo);
            self.step_range(&a, byte, &mut b, lo, end);
            a[lo..hi].fill(0);
            let Some(first) = b[lo..end].iter().position(|&w| w != 0) else {
                return Some((false, used));
            };
            let last = b[lo..end].iter().rposition(|&w| w != 0).unwrap_or(first);
            (lo, hi) = (lo + first, lo + last + 1);
            std::mem::swap(&mut a, &mut b);
        }
        Some((self.accepts(&a), used))
    }

    /// Words of the automaton's tables (what building it writes besides the elements).
    pub(crate) fn table_words(&self) -> usize {
        self.masks.len() + 5 * self.words
    }

    fn run_single(&self, start: usize, input: &[u8]) -> bool {
        count_work(input.len());
        let (e1, e3) = (self.eps1[0], self.eps3[0]);
        let (ss, so) = (self.stay_sep[0], self.stay_other[0]);
        let masks = &self.masks;
        let class_of = &self.class_of;
        let seps = self.seps;
        // Specialized by closure depth so the rounds unroll.
        let round = |x: u64| x | ((x & e1) << 1) | ((x & e3) << 3);
        macro_rules! run {
            ($close:expr) => {{
                let close = $close;
                let mut d = close(1u64 << start);
                for &byte in input {
                    let adv = d & masks[class_of[byte as usize] as usize];
                    let stay = d & if seps.contains(byte) { ss } else { so };
                    d = close((adv << 1) | stay);
                    if d == 0 {
                        return false;
                    }
                }
                d
            }};
        }
        let d = match self.rounds {
            0 => run!(|x: u64| x),
            1 => run!(round),
            2 => run!(|x: u64| round(round(x))),
            rounds => run!(|x: u64| (0..rounds).fold(x, |x, _| round(x))),
        };
        d >> self.accept() & 1 == 1
    }

    /// Positions from which every continuation is accepted (a `LoopAny` whose epsilon-successor
    /// closure reaches the accepting state). Used to prune subset exploration. One backward
    /// pass over the elements (epsilon edges only go forward).
    pub(crate) fn universal_mask(&self) -> Vec<u64> {
        let n = self.elems.len();
        // reaches[i]: the accepting state is in the closure of {i}.
        let mut reaches = vec![false; n + 4];
        reaches[n] = true;
        for i in (0..n).rev() {
            reaches[i] = match self.elems[i] {
                Elem::LoopAny | Elem::LoopSegment => reaches[i + 1],
                Elem::Group => reaches[i + 1] || reaches[i + 3],
                Elem::Byte(_) | Elem::Dead => false,
            };
        }
        let mut out = vec![0u64; self.words];
        for (i, e) in self.elems.iter().enumerate() {
            if *e == Elem::LoopAny && reaches[i + 1] {
                out[i / 64] |= 1 << (i % 64);
            }
        }
        out
    }

    /// Whether byte `b` is one of this automaton's separators.
    pub(crate) fn is_separator(&self, b: u8) -> bool {
        self.seps.contains(b)
    }

    /// `out = close(d ∩ loops)`: the states after any one non-separator character that no
    /// literal position of `d` starts (every loop stays, nothing advances). Returns whether
    /// `out` is non-empty.
    pub(crate) fn stay_closed(&self, d: &[u64], out: &mut [u64]) -> bool {
        count_work(self.words);
        for ((o, &x), &s) in out.iter_mut().zip(d).zip(&self.stay_other) {
            *o = x & s;
        }
        self.close(out);
        out.iter().any(|&w| w != 0)
    }

    /// Calls `f` with every state of the closure of `{p}` (`p` first). Epsilon edges go one or
    /// three positions on and chains are at most `rounds` edges long, so the closure lies in
    /// `p..=p + 3 * rounds`.
    pub(crate) fn closure_of(&self, p: usize, mut f: impl FnMut(usize)) {
        let span = 3 * self.rounds as usize + 1;
        if span > 128 {
            // Not built by `elements`; the general closure (one pass over the words).
            let mut tmp = vec![0u64; self.words];
            self.start_at(p, &mut tmp);
            for (w, &word) in tmp.iter().enumerate() {
                let mut bits = word;
                while bits != 0 {
                    f(w * 64 + bits.trailing_zeros() as usize);
                    bits &= bits - 1;
                }
            }
            return;
        }
        let mut reach = 1u128;
        let mut j = 0;
        while j < 128 && reach >> j != 0 {
            if reach >> j & 1 == 1 {
                f(p + j);
                match self.elems.get(p + j) {
                    Some(Elem::LoopAny | Elem::LoopSegment) => reach |= 1 << (j + 1),
                    Some(Elem::Group) => reach |= (1 << (j + 1)) | (1 << (j + 3)),
                    _ => {}
                }
            }
            j += 1;
        }
    }
}

/// One step over a range of words: advance on the byte (mask `m`, a shift by one position
/// carried across words) or stay on a loop (`stay`), then `rounds` closure passes.
///
/// Written as passes whose only loop-carried value is the previous input word (a first-order
/// recurrence), so the compiler vectorizes them.
#[inline(always)]
fn step_words(
    d: &[u64],
    m: &[u64],
    stay: &[u64],
    e1: &[u64],
    e3: &[u64],
    rounds: u32,
    out: &mut [u64],
) {
    let n = out.len();
    let (d, m, stay, e1, e3) = (&d[..n], &m[..n], &stay[..n], &e1[..n], &e3[..n]);
    // One closure round of word `x` given the previous word `p` (both before the round).
    let round = |x: u64, p: u64, w: usize, pe1: u64, pe3: u64| {
        x | ((x & e1[w]) << 1) | ((p & pe1) >> 63) | ((x & e3[w]) << 3) | ((p & pe3) >> 61)
    };
    // The step and up to two closure rounds in one pass (chains are at most two edges long
    // for the element lists `elements` builds); the values carried from one word to the next
    // are the previous word at each stage.
    let (mut p_adv, mut p0, mut p1, mut pe1, mut pe3) = (0u64, 0u64, 0u64, 0u64, 0u64);
    match rounds {
        1 => {
            for w in 0..n {
                let adv = d[w] & m[w];
                let x0 = (adv << 1) | (p_adv >> 63) | (d[w] & stay[w]);
                out[w] = round(x0, p0, w, pe1, pe3);
                (p_adv, p0, pe1, pe3) = (adv, x0, e1[w], e3[w]);
            }
        }
        2 => {
            for w in 0..n {
                let adv = d[w] & m[w];
                let x0 = (adv << 1) | (p_adv >> 63) | (d[w] & stay[w]);
                let x1 = round(x0, p0, w, pe1, pe3);
                out[w] = round(x1, p1, w, pe1, pe3);
                (p_adv, p0, p1, pe1, pe3) = (adv, x0, x1, e1[w], e3[w]);
            }
        }
        _ => {
            for w in 0..n {
                let adv = d[w] & m[w];
                out[w] = (adv << 1) | (p_adv >> 63) | (d[w] & stay[w]);
                p_adv = adv;
            }
            for _ in 0..rounds {
                close_pass(out, e1, e3);
            }
        }
    }
}

/// [`step_words`] compiled for AVX2 (four words per operation).
///
/// # Safety
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn step_words_avx2(
    d: &[u64],
    m: &[u64],
    stay: &[u64],
    e1: &[u64],
    e3: &[u64],
    rounds: u32,
    out: &mut [u64],
) {
    step_words(d, m, stay, e1, e3, rounds, out);
}

/// [`step_words`] compiled for AVX-512F (eight words per operation).
///
/// # Safety
/// The CPU must support AVX-512F.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn step_words_avx512(
    d: &[u64],
    m: &[u64],
    stay: &[u64],
    e1: &[u64],
    e3: &[u64],
    rounds: u32,
    out: &mut [u64],
) {
    step_words(d, m, stay, e1, e3, rounds, out);
}

/// One closure round over `x` in place: every position with an epsilon edge adds its
/// successors (one on for `e1`, three on for `e3`), carried across words. The only value
/// carried from one word to the next is the previous word as it was before this round.
#[inline(always)]
pub(crate) fn close_pass(x: &mut [u64], e1: &[u64], e3: &[u64]) {
    let n = x.len();
    let (e1, e3) = (&e1[..n], &e3[..n]);
    let mut prev = 0u64;
    let mut prev_e1 = 0u64;
    let mut prev_e3 = 0u64;
    for w in 0..x.len() {
        let cur = x[w];
        x[w] = cur
            | ((cur & e1[w]) << 1)
            | ((prev & prev_e1) >> 63)
            | ((cur & e3[w]) << 3)
            | ((prev & prev_e3) >> 61);
        prev = cur;
        prev_e1 = e1[w];
        prev_e3 = e3[w];
    }
}

#[cfg(test)]
thread_local! {
    /// Word operations of automaton runs on this thread (tests assert bounded work with it).
    pub(crate) static WORK: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// Counts `n` word steps (tests only; nothing at all in other builds).
#[inline(always)]
pub(crate) fn count_work(n: usize) {
    #[cfg(test)]
    WORK.with(|w| w.set(w.get() + n as u64));
    #[cfg(not(test))]
    let _ = n;
}
