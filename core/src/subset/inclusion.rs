//! Inclusion of one child pattern's language in the union of parent patterns' languages
//! (SEMANTICS 9): a breadth-first search of the product of the automata for a string the
//! child accepts and no parent does, bounded in states and in work, failing closed.
//!
//! From each product state only the characters that can make a difference are tried: the
//! characters some live literal position expects next, the separators, and one character
//! that no live position expects (every other character has the same effect). So a pattern
//! with a thousand distinct characters costs no more per state than its live positions.

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

    /// Work units of preparing it (a few allocations, a pass over the elements, and one
    /// closure per `**` for the universal positions).
    fn cost(pattern: &Pattern) -> u64 {
        let n = pattern.as_str().len() as u64 + 1;
        n * n.div_ceil(64) + 4 * n + 256
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
        if self.autos[k].get().is_none() && !work.charge(Auto::cost(self.patterns[k])) {
            return None;
        }
        Some(self.autos[k].get_or_init(|| Auto::new(self.patterns[k])))
    }
}

/// Decides whether the language of `child` is contained in the union of `parents`, within
/// the state bound and what is left of `work`.
pub(crate) fn included(child: &Pattern, parents: &Parents, work: &mut Work) -> Inclusion {
    if !work.charge(parents.patterns.len() as u64 + 1) {
        return Inclusion::Undecided;
    }
    if parents
        .patterns
        .iter()
        .any(|p| p.as_str() == child.as_str())
    {
        return Inclusion::Included;
    }
    let cp = child.prefix();
    let candidates: Vec<usize> = (0..parents.patterns.len())
        .filter(|&k| {
            let pp = parents.patterns[k].prefix();
            cp.starts_with(pp) || pp.starts_with(cp)
        })
        .collect();
    if child.is_literal() {
        // One automaton run per candidate over the child's text.
        let text = child.as_str();
        let cost: u64 = candidates
            .iter()
            .map(|&k| (text.len() as u64 + 1) * parents.patterns[k].words() as u64)
            .sum();
        if !work.charge(cost) {
            return Inclusion::Undecided;
        }
        return if candidates
            .iter()
            .any(|&k| parents.patterns[k].matches(text))
        {
            Inclusion::Included
        } else {
            Inclusion::Witness(text.to_string())
        };
    }
    if !work.charge(Auto::cost(child)) {
        return Inclusion::Undecided;
    }
    let child_auto = Auto::new(child);
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

/// Characters tried for "any character no live position expects", in order.
const OTHER: &str = "xzqjkvw0123456789_-~XZQ\u{e000}\u{e001}\u{e002}\u{e003}";

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

    /// The characters worth trying from state `s`: those live literal positions expect, the
    /// separators, and one character none of them is. Returns the work units spent beyond
    /// one read of the state (sorting the non-ASCII characters).
    fn moves(&self, s: &[u64], out: &mut Vec<char>) -> u64 {
        out.clear();
        let mut ascii = [0u64; 2];
        ascii[0] |= (1 << b'/') | (1 << b'.');
        for (i, a) in self.autos.iter().enumerate() {
            for (w, &word) in self.slot(s, i).iter().enumerate() {
                let mut bits = word;
                while bits != 0 {
                    let p = w * 64 + bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    match a.lead.get(p) {
                        Some(Some(c)) if c.is_ascii() => {
                            ascii[*c as usize / 64] |= 1 << (*c as u32 % 64);
                        }
                        Some(Some(c)) => out.push(*c),
                        _ => {}
                    }
                }
            }
        }
        let sorted = out.len() as u64;
        out.sort_unstable();
        out.dedup();
        let wide = out.len();
        for (k, &bits) in ascii.iter().enumerate() {
            let mut bits = bits;
            while bits != 0 {
                out.push(char::from(k as u8 * 64 + bits.trailing_zeros() as u8));
                bits &= bits - 1;
            }
        }
        let taken = |c: char| {
            if c.is_ascii() {
                ascii[c as usize / 64] >> (c as u32 % 64) & 1 == 1
            } else {
                out[..wide].binary_search(&c).is_ok()
            }
        };
        if let Some(other) = OTHER.chars().find(|&c| !taken(c)) {
            out.push(other);
        }
        sorted * 4
    }

    /// Steps every automaton on the UTF-8 bytes of `c` into `out`; `false` when the child
    /// dies.
    fn step(&self, s: &[u64], c: char, out: &mut [u64], scratch: &mut [Vec<u64>; 2]) -> bool {
        let mut buf = [0u8; 4];
        let bytes = c.encode_utf8(&mut buf).as_bytes();
        for i in 0..self.autos.len() {
            let nfa = &self.autos[i].nfa;
            let n = nfa.words();
            let at = self.offsets[i];
            let cur = &s[at..at + n];
            let dst = &mut out[at..at + n];
            if n == 1 {
                let mut x = cur[0];
                for &byte in bytes {
                    if x == 0 {
                        break;
                    }
                    x = nfa.step_word(x, byte);
                }
                dst[0] = x;
            } else if cur.iter().all(|&w| w == 0) {
                dst.fill(0);
            } else if let [byte] = bytes {
                nfa.step(cur, *byte, dst);
            } else {
                let [a, b] = scratch;
                a[..n].copy_from_slice(cur);
                for &byte in bytes {
                    nfa.step(&a[..n], byte, &mut b[..n]);
                    std::mem::swap(a, b);
                }
                dst.copy_from_slice(&a[..n]);
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
        child.start_at(prefix.len(), &mut start[..child.words()]);
        if !work.charge(width * (prefix.len() as u64 + 1)) {
            return Inclusion::Undecided;
        }
        for k in 1..self.autos.len() {
            let nfa = &self.autos[k].nfa;
            let n = nfa.words();
            let [a, b] = &mut scratch;
            nfa.start_at(0, &mut a[..n]);
            let mut alive = true;
            for &byte in prefix {
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
        let mut seen: HashMap<Rc<[u64]>, u32, Seeded> = HashMap::with_hasher(Seeded::new());
        let mut trail: Vec<(u32, char)> = vec![(u32::MAX, '\0')];
        seen.insert(start.clone(), 0);
        let mut states = vec![start];
        let mut queue = VecDeque::from([0u32]);
        let mut next = vec![0u64; self.width];
        let mut moves = Vec::new();
        while let Some(idx) = queue.pop_front() {
            let state = &states[idx as usize];
            // Finding the moves reads every word and live position of the state.
            if !work.charge(2 * width) {
                return Inclusion::Undecided;
            }
            let sorting = self.moves(state, &mut moves);
            if !work.charge(sorting) {
                return Inclusion::Undecided;
            }
            for &c in &moves {
                // Stepping every automaton on the character's bytes, then testing, hashing and
                // comparing the state.
                if !work.charge(width * (c.len_utf8() as u64 + 2)) {
                    return Inclusion::Undecided;
                }
                if !self.step(&states[idx as usize], c, &mut next, &mut scratch) {
                    continue;
                }
                if self.covered(&next) || seen.contains_key(next.as_slice()) {
                    continue;
                }
                let id = states.len() as u32;
                trail.push((idx, c));
                if self.is_counterexample(&next) {
                    return Inclusion::Witness(prefix_text + &witness(&trail, id));
                }
                if states.len() >= MAX_EXPLORED_STATES
                    || (states.len() as u64 + 1) * width > MAX_STORED_WORDS
                    || !work.charge(width)
                {
                    return Inclusion::Undecided;
                }
                let stored: Rc<[u64]> = next.as_slice().into();
                seen.insert(stored.clone(), id);
                states.push(stored);
                queue.push_back(id);
            }
        }
        Inclusion::Included
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
