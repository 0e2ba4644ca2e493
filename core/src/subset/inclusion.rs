//! Inclusion of one child pattern's language in the union of parent patterns' languages
//! (SEMANTICS 9): a breadth-first search of the product of the automata for a string the
//! child accepts and no parent does, bounded in states and in work, failing closed.
//!
//! From each product state only the characters that can make a difference are tried: the
//! characters some live literal position expects next, the separators, and one character
//! that no live position expects (every other character has the same effect). The state
//! after that one character (every loop stays, nothing advances) is computed once per state;
//! the state after an expected character is that one plus the closures of the positions the
//! character completes, so it costs the positions that expect it, and a character whose
//! positions add nothing new (a `*` that already absorbs it) is recognized without stepping
//! or hashing anything. A child like `*a*b*c...` with hundreds of distinct characters thus
//! costs about its states times its width, not its states times its alphabet times its width.
//!
//! The work is charged as it is done (SEMANTICS 9: the bound is on work actually done): the
//! search stops when it passes the bound, and a decision whose exploration fits is made.

use super::MAX_EXPLORED_STATES;
use super::work::{MAX_STORED_WORDS, Work};
use crate::pattern::{Elem, Nfa, Pattern};
use std::borrow::Cow;
use std::cell::OnceCell;
use std::collections::hash_map::RandomState;
use std::collections::{HashMap, VecDeque};
use std::hash::{BuildHasher, Hasher};
use std::rc::Rc;

/// The answer for one child pattern.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Inclusion {
    /// Every string of the child is matched by some parent pattern.
    Included,
    /// A string the child matches and no parent does.
    Witness(String),
    /// Not decided within the state or work bound.
    Undecided,
}

/// One automaton prepared for the product: the automaton, its universal positions and the
/// character each literal position starts.
struct Auto<'a> {
    nfa: Cow<'a, Nfa>,
    /// Positions from which every continuation is accepted.
    universal: Vec<u64>,
    /// For each position whose element starts a character of the pattern, that character.
    lead: Vec<Option<char>>,
}

impl<'a> Auto<'a> {
    fn new(pattern: &'a Pattern) -> Auto<'a> {
        let nfa = pattern.nfa();
        let universal = nfa.universal_mask();
        let elems = &nfa.elems;
        let mut lead = vec![None; elems.len() + 1];
        let mut i = 0;
        while i < elems.len() {
            let Elem::Byte(b) = elems[i] else {
                i += 1;
                continue;
            };
            let len = match b {
                0x00..=0x7f => 1,
                0xc0..=0xdf => 2,
                0xe0..=0xef => 3,
                _ => 4,
            };
            let mut bytes = [0u8; 4];
            let mut got = 0;
            for e in &elems[i..(i + len).min(elems.len())] {
                let Elem::Byte(b) = e else { break };
                bytes[got] = *b;
                got += 1;
            }
            if let Some(c) = std::str::from_utf8(&bytes[..got])
                .ok()
                .and_then(|s| s.chars().next())
            {
                lead[i] = Some(c);
                i += len;
            } else {
                i += 1;
            }
        }
        Auto {
            nfa,
            universal,
            lead,
        }
    }

    /// Work units its preparation took: a pass over the elements for the characters and the
    /// universal positions, the automaton's tables when they were built here (a fast-path
    /// shape), and a few allocations.
    fn cost(&self) -> u64 {
        let built = match self.nfa {
            Cow::Owned(ref n) => n.table_words() as u64,
            Cow::Borrowed(_) => 0,
        };
        4 * self.lead.len() as u64 + self.universal.len() as u64 + built + 64
    }
}

/// The parent side of inclusion decisions, prepared once (lazily, per pattern) for many
/// child patterns.
pub(crate) struct Parents<'a> {
    patterns: Vec<&'a Pattern>,
    autos: Vec<OnceCell<Auto<'a>>>,
}

impl<'a> Parents<'a> {
    /// The union of `patterns`.
    pub(crate) fn new(patterns: Vec<&'a Pattern>) -> Parents<'a> {
        let autos = patterns.iter().map(|_| OnceCell::new()).collect();
        Parents { patterns, autos }
    }

    /// The automaton of parent `k`, charging its preparation once; `None` when the budget
    /// is spent.
    fn auto(&self, k: usize, work: &mut Work) -> Option<&Auto<'a>> {
        if work.exhausted() {
            return None;
        }
        if let Some(a) = self.autos[k].get() {
            return Some(a);
        }
        let a = self.autos[k].get_or_init(|| Auto::new(self.patterns[k]));
        work.charge(a.cost()).then_some(a)
    }
}

/// Decides whether the language of `child` is contained in the union of `parents`, within
/// the state bound and what is left of `work`.
pub(crate) fn included(child: &Pattern, parents: &Parents, work: &mut Work) -> Inclusion {
    // Comparing texts and literal prefixes: a unit per pattern, and one per 32 bytes
    // compared (a vectorized comparison).
    let text = child.as_str();
    let cp = child.prefix();
    let compared: u64 = parents
        .patterns
        .iter()
        .map(|p| {
            let equal_len = p.as_str().len() == text.len();
            let same = if equal_len { text.len() } else { 0 };
            1 + (same + cp.len().min(p.prefix().len())) as u64 / 32
        })
        .sum();
    if !work.charge(compared + 1) {
        return Inclusion::Undecided;
    }
    if parents.patterns.iter().any(|p| p.as_str() == text) {
        return Inclusion::Included;
    }
    let candidates: Vec<usize> = (0..parents.patterns.len())
        .filter(|&k| {
            let pp = parents.patterns[k].prefix();
            cp.starts_with(pp) || pp.starts_with(cp)
        })
        .collect();
    if child.is_literal() {
        // One automaton run per candidate over the child's text, each stopped past what is
        // left of the budget.
        for &k in &candidates {
            match parents.patterns[k].matches_within(text, work.left()) {
                Some((true, used)) => {
                    return if work.charge(used) {
                        Inclusion::Included
                    } else {
                        Inclusion::Undecided
                    };
                }
                Some((false, used)) if work.charge(used) => {}
                _ => {
                    work.exhaust();
                    return Inclusion::Undecided;
                }
            }
        }
        return Inclusion::Witness(text.to_string());
    }
    if work.exhausted() {
        return Inclusion::Undecided;
    }
    let child_auto = Auto::new(child);
    if !work.charge(child_auto.cost()) {
        return Inclusion::Undecided;
    }
    let mut autos = vec![&child_auto];
    for &k in &candidates {
        match parents.auto(k, work) {
            Some(a) => autos.push(a),
            None => return Inclusion::Undecided,
        }
    }
    Product::new(autos).explore(cp, work)
}

/// The product automaton of one child (slot 0) and its candidate parents.
struct Product<'p, 'a> {
    autos: Vec<&'p Auto<'a>>,
    /// Offsets of each automaton's words in a flattened state.
    offsets: Vec<usize>,
    width: usize,
}

/// Characters tried first for "any character no live position expects", in order; when all
/// are expected, a private-use character from U+E000 on (one of them is always free).
const OTHER: &str = "xzqjkvw0123456789_-~XZQ";

/// A literal position some automaton of the product is in: the character it starts, the
/// automaton's slot and the position.
type Lead = (char, u32, u32);

/// The characters the live positions of one state start.
#[derive(Default)]
struct Taken {
    ascii: [u64; 2],
    wide: Vec<char>,
}

impl Taken {
    fn clear(&mut self) {
        self.ascii = [0; 2];
        self.wide.clear();
    }

    fn mark(&mut self, c: char) {
        if c.is_ascii() {
            self.ascii[c as usize / 64] |= 1 << (c as u32 % 64);
        } else {
            self.wide.push(c);
        }
    }

    /// A character none of them is and that is no separator: one of [`OTHER`], or else the
    /// first private-use character from U+E000 on that is free (of the `wide.len() + 1`
    /// first, one is). Returns it and the work units of finding it.
    fn other(&self) -> (char, u64) {
        if let Some(c) = OTHER
            .chars()
            .find(|&c| self.ascii[c as usize / 64] >> (c as u32 % 64) & 1 == 0)
        {
            return (c, 1);
        }
        let n = self.wide.len() + 1;
        let mut used = vec![false; n];
        for &c in &self.wide {
            if let Some(k) = (c as u32).checked_sub(0xe000)
                && (k as usize) < n
            {
                used[k as usize] = true;
            }
        }
        let k = used.iter().position(|u| !u).unwrap_or(0) as u32;
        (
            char::from_u32(0xe000 + k).unwrap_or('\u{e000}'),
            2 * n as u64,
        )
    }
}

impl<'p, 'a> Product<'p, 'a> {
    fn new(autos: Vec<&'p Auto<'a>>) -> Product<'p, 'a> {
        let mut offsets = Vec::with_capacity(autos.len());
        let mut width = 0;
        for a in &autos {
            offsets.push(width);
            width += a.nfa.words();
        }
        Product {
            autos,
            offsets,
            width,
        }
    }

    fn slot<'s>(&self, state: &'s [u64], i: usize) -> &'s [u64] {
        &state[self.offsets[i]..self.offsets[i] + self.autos[i].nfa.words()]
    }

    /// The child accepts and no parent does.
    fn is_counterexample(&self, s: &[u64]) -> bool {
        self.autos[0].nfa.accepts(self.slot(s, 0))
            && (1..self.autos.len()).all(|k| !self.autos[k].nfa.accepts(self.slot(s, k)))
    }

    /// Some parent is in a state from which it accepts every continuation.
    fn covered(&self, s: &[u64]) -> bool {
        (1..self.autos.len()).any(|k| {
            self.slot(s, k)
                .iter()
                .zip(&self.autos[k].universal)
                .any(|(a, b)| a & b != 0)
        })
    }

    /// The live literal positions of state `s` that would add a state to `base` (the state
    /// after a character no live position starts), sorted by the character they start, into
    /// `out`; every character a live position starts is marked in `taken`. Returns the work
    /// units spent beyond reading the state's words.
    fn leads(&self, s: &[u64], base: &[u64], out: &mut Vec<Lead>, taken: &mut Taken) -> u64 {
        out.clear();
        taken.clear();
        let mut live = 0u64;
        for (i, a) in self.autos.iter().enumerate() {
            let at = self.offsets[i];
            for (w, &word) in self.slot(s, i).iter().enumerate() {
                let mut bits = word;
                while bits != 0 {
                    let p = w * 64 + bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    let Some(Some(c)) = a.lead.get(p) else {
                        continue;
                    };
                    live += 1;
                    taken.mark(*c);
                    let mut grows = false;
                    a.nfa.closure_of(p + c.len_utf8(), |q| {
                        grows |= base[at + q / 64] >> (q % 64) & 1 == 0;
                    });
                    if grows {
                        out.push((*c, i as u32, p as u32));
                    }
                }
            }
        }
        out.sort_unstable();
        let n = out.len() as u64;
        4 * live + n * (u64::from(64 - n.leading_zeros()) + 1)
    }

    /// The state after any non-separator character that no live position starts: in every
    /// automaton the loops stay and nothing advances. `false` when the child dies on it.
    fn stay(&self, s: &[u64], out: &mut [u64]) -> bool {
        let mut child_alive = true;
        for (i, a) in self.autos.iter().enumerate() {
            let (at, n) = (self.offsets[i], a.nfa.words());
            let alive = a.nfa.stay_closed(&s[at..at + n], &mut out[at..at + n]);
            if i == 0 {
                child_alive = alive;
            }
        }
        child_alive
    }

    /// Steps every automaton on the one-byte character `b` (a separator) into `out`; `false`
    /// when the child dies.
    fn step(&self, s: &[u64], b: u8, out: &mut [u64]) -> bool {
        for i in 0..self.autos.len() {
            let nfa = &self.autos[i].nfa;
            let n = nfa.words();
            let at = self.offsets[i];
            let cur = &s[at..at + n];
            let dst = &mut out[at..at + n];
            if n == 1 {
                dst[0] = if cur[0] == 0 {
                    0
                } else {
                    nfa.step_word(cur[0], b)
                };
            } else if cur.iter().all(|&w| w == 0) {
                dst.fill(0);
            } else {
                nfa.step(cur, b, dst);
            }
            if i == 0 && dst.iter().all(|&w| w == 0) {
                return false;
            }
        }
        true
    }

    /// Explores from the state after the child's literal prefix (every child string starts
    /// with it, so there is nothing to branch on before it).
    fn explore(&self, prefix: &[u8], work: &mut Work) -> Inclusion {
        let width = self.width as u64;
        let max_words = self.autos.iter().map(|a| a.nfa.words()).max().unwrap_or(1);
        let mut scratch = [vec![0u64; max_words], vec![0u64; max_words]];
        let mut start = vec![0u64; self.width];
        let child = &self.autos[0].nfa;
        if !work.charge(width) {
            return Inclusion::Undecided;
        }
        child.start_at(prefix.len(), &mut start[..child.words()]);
        // Each parent stepped over the prefix, each byte charged as it is stepped.
        for k in 1..self.autos.len() {
            let nfa = &self.autos[k].nfa;
            let n = nfa.words();
            let [a, b] = &mut scratch;
            nfa.start_at(0, &mut a[..n]);
            let mut alive = true;
            for &byte in prefix {
                if !work.charge(n as u64 + 1) {
                    return Inclusion::Undecided;
                }
                alive = nfa.step(&a[..n], byte, &mut b[..n]);
                std::mem::swap(a, b);
                if !alive {
                    break;
                }
            }
            if alive {
                start[self.offsets[k]..self.offsets[k] + n].copy_from_slice(&a[..n]);
            }
        }
        let prefix_text = String::from_utf8_lossy(prefix).into_owned();
        if self.covered(&start) {
            return Inclusion::Included;
        }
        if self.is_counterexample(&start) {
            return Inclusion::Witness(prefix_text);
        }
        let start: Rc<[u64]> = start.into();
        let mut search = Search {
            seen: HashMap::with_hasher(Seeded::new()),
            trail: vec![(u32::MAX, '\0')],
            states: vec![start.clone()],
            queue: VecDeque::from([0u32]),
            prefix: prefix_text,
        };
        search.seen.insert(start, 0);
        let mut base = vec![0u64; self.width];
        let mut next = vec![0u64; self.width];
        let mut leads = Vec::new();
        let mut taken = Taken::default();
        let separators: Vec<char> = ['/', '.']
            .into_iter()
            .filter(|&c| self.autos[0].nfa.is_separator(c as u8))
            .collect();
        while let Some(idx) = search.queue.pop_front() {
            let state = search.states[idx as usize].clone();
            // The state after a character no live position starts (one closure pass per
            // automaton), then reading the state for its live literal positions.
            if !work.charge(3 * width) {
                return Inclusion::Undecided;
            }
            let child_alive = self.stay(&state, &mut base);
            let spent = self.leads(&state, &base, &mut leads, &mut taken);
            if !work.charge(spent) {
                return Inclusion::Undecided;
            }
            // 1. Every non-separator character no live position starts: one move.
            if child_alive {
                let (c, spent) = taken.other();
                if !work.charge(spent) {
                    return Inclusion::Undecided;
                }
                if let Some(found) = search.visit(self, &base, idx, c, work) {
                    return found;
                }
            }
            // 2. Each character whose live positions add states to that: the state after it
            // is that state plus the closures of the positions past the character (a
            // character whose positions add nothing leads to the state of step 1).
            for group in leads.chunk_by(|a, b| a.0 == b.0) {
                let c = group[0].0;
                if c.is_ascii() && self.autos[0].nfa.is_separator(c as u8) {
                    continue; // step 3
                }
                if !work.charge(width + 4 * group.len() as u64) {
                    return Inclusion::Undecided;
                }
                next.copy_from_slice(&base);
                for &(_, slot, p) in group {
                    let (nfa, at) = (&self.autos[slot as usize].nfa, self.offsets[slot as usize]);
                    nfa.closure_of(p as usize + c.len_utf8(), |q| {
                        next[at + q / 64] |= 1u64 << (q % 64);
                    });
                }
                let child_words = self.autos[0].nfa.words();
                if next[..child_words].iter().all(|&w| w == 0) {
                    continue;
                }
                if let Some(found) = search.visit(self, &next, idx, c, work) {
                    return found;
                }
            }
            // 3. The separators: every automaton stepped on the byte.
            for &c in &separators {
                if !work.charge(width * 2) {
                    return Inclusion::Undecided;
                }
                if !self.step(&state, c as u8, &mut next) {
                    continue;
                }
                if let Some(found) = search.visit(self, &next, idx, c, work) {
                    return found;
                }
            }
        }
        Inclusion::Included
    }
}

/// Work units of storing a new state beyond its words: an allocation, a copy, a table insert
/// and the table's amortized growth (which hashes every stored state again), measured at
/// about 3 units per word plus this much per state.
const STORE_UNITS: u64 = 32;

/// The breadth-first search of one inclusion decision: the states found, the move that
/// found each (for the witness) and the queue.
struct Search {
    seen: HashMap<Rc<[u64]>, u32, Seeded>,
    trail: Vec<(u32, char)>,
    states: Vec<Rc<[u64]>>,
    queue: VecDeque<u32>,
    prefix: String,
}

impl Search {
    /// Records `next`, reached from state `from` on `c`, unless it is covered or known.
    /// `Some` ends the decision: a witness, or undecided past a bound.
    fn visit(
        &mut self,
        product: &Product,
        next: &[u64],
        from: u32,
        c: char,
        work: &mut Work,
    ) -> Option<Inclusion> {
        let width = product.width as u64;
        // Testing coverage, hashing and comparing the state.
        if !work.charge(2 * width) {
            return Some(Inclusion::Undecided);
        }
        if product.covered(next) || self.seen.contains_key(next) {
            return None;
        }
        let id = self.states.len() as u32;
        self.trail.push((from, c));
        if product.is_counterexample(next) {
            return Some(Inclusion::Witness(
                std::mem::take(&mut self.prefix) + &witness(&self.trail, id),
            ));
        }
        if self.states.len() >= MAX_EXPLORED_STATES
            || (self.states.len() as u64 + 1) * width > MAX_STORED_WORDS
            || !work.charge(3 * width + STORE_UNITS)
        {
            return Some(Inclusion::Undecided);
        }
        let stored: Rc<[u64]> = next.into();
        self.seen.insert(stored.clone(), id);
        self.states.push(stored);
        self.queue.push_back(id);
        None
    }
}

/// A fast hash of product states (word slices), seeded at random per decision so that no
/// lease can be built to make states collide (every probe would then compare many states).
#[derive(Clone, Copy)]
struct Seeded(u64);

impl Seeded {
    fn new() -> Seeded {
        Seeded(RandomState::new().hash_one(0x9e37_79b9_7f4a_7c15u64) | 1)
    }
}

impl BuildHasher for Seeded {
    type Hasher = WordHasher;
    fn build_hasher(&self) -> WordHasher {
        WordHasher(self.0)
    }
}

/// Multiply-rotate over 64-bit words (bytes are folded in eight at a time).
struct WordHasher(u64);

impl Hasher for WordHasher {
    fn finish(&self) -> u64 {
        let h = self.0;
        (h ^ (h >> 29)).wrapping_mul(0xbf58_476d_1ce4_e5b9) ^ (h >> 32)
    }

    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut w = [0u8; 8];
            w[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(w));
        }
    }

    fn write_u64(&mut self, w: u64) {
        self.0 = (self.0 ^ w)
            .wrapping_mul(0x9e37_79b9_7f4a_7c15)
            .rotate_left(26);
    }

    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }
}

fn witness(trail: &[(u32, char)], mut id: u32) -> String {
    let mut chars = Vec::new();
    while id != 0 {
        let (prev, c) = trail[id as usize];
        chars.push(c);
        id = prev;
    }
    chars.into_iter().rev().collect()
}
