//! The compiled patterns of one capability, indexed so that matching a target does not cost
//! one automaton run per pattern: literal patterns sit in a hash set, the others in a radix
//! trie keyed by their literal prefix, so only patterns whose prefix starts the target are
//! tried. Cost grows with the target's length, not with the number of patterns.

use super::{Batch, Pattern, elements};
use crate::canonical::short_word;
use std::collections::HashSet;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::OnceLock;

/// Up to this many patterns a linear scan (each a prefix compare first) beats the index.
const LINEAR_LIMIT: usize = 16;

/// From this many candidates that need an automaton run, they run in lockstep (`Batch`).
const BATCH_MIN: usize = 4;

/// The compiled pattern list of one capability.
#[derive(Clone, Debug, Default)]
pub(crate) struct PatternSet {
    patterns: Vec<Pattern>,
    /// For the linear scan: the head of each pattern's literal prefix, side by side, so the
    /// scan reads one small array instead of chasing every pattern's text.
    heads: Vec<Head>,
    index: Option<Index>,
    /// The automata of the patterns that need one, side by side; built on first need.
    batch: OnceLock<Batch>,
    /// For each pattern, its index in the batch (`u32::MAX` for a fast-path shape).
    batch_slot: Vec<u32>,
}

/// The first (up to) 8 bytes of a pattern's literal prefix, as a little-endian word, and the
/// mask of those bytes: a target whose first 8 bytes differ under the mask cannot match.
#[derive(Clone, Copy, Debug, Default)]
struct Head {
    word: u64,
    mask: u64,
}

impl Head {
    fn of(pattern: &Pattern) -> Head {
        let prefix = pattern.prefix();
        let n = prefix.len().min(8);
        Head {
            word: leading_word(&prefix[..n]),
            mask: if n == 0 { 0 } else { u64::MAX >> (64 - 8 * n) },
        }
    }
}

/// The first 8 bytes of `b` as a little-endian word, zero past its end. A target shorter than
/// a head's bytes never passes it: pattern text holds no NUL byte.
fn leading_word(b: &[u8]) -> u64 {
    match b.first_chunk::<8>() {
        Some(w) => u64::from_le_bytes(*w),
        None => short_word(b),
    }
}

#[derive(Clone, Debug, Default)]
struct Index {
    literals: HashSet<Box<str>, BuildHasherDefault<Fnv>>,
    nodes: Vec<Node>,
}

/// A plain byte trie node under construction: (edges by byte, patterns ending here).
type TrieNode = (Vec<(u8, usize)>, Vec<u32>);

#[derive(Clone, Debug, Default)]
struct Node {
    /// Edge labels (non-empty byte strings with distinct first bytes), sorted by first byte.
    edges: Vec<(Box<[u8]>, u32)>,
    /// Non-literal patterns whose literal prefix ends here.
    patterns: Vec<u32>,
}

impl PatternSet {
    pub(crate) fn new(patterns: Vec<Pattern>) -> PatternSet {
        let index = (patterns.len() > LINEAR_LIMIT).then(|| Index::build(&patterns));
        let heads = match index {
            None => patterns.iter().map(Head::of).collect(),
            Some(_) => Vec::new(),
        };
        let mut general = 0u32;
        let batch_slot = patterns
            .iter()
            .map(|p| {
                if p.is_general() {
                    general += 1;
                    general - 1
                } else {
                    u32::MAX
                }
            })
            .collect();
        PatternSet {
            patterns,
            heads,
            index,
            batch: OnceLock::new(),
            batch_slot,
        }
    }

    pub(crate) fn patterns(&self) -> &[Pattern] {
        &self.patterns
    }

    /// Whether some pattern matches the canonical target.
    #[inline]
    pub(crate) fn matches(&self, target: &str) -> bool {
        let mut general = Candidates::default();
        let hit = match &self.index {
            None => {
                let head = leading_word(target.as_bytes());
                self.heads
                    .iter()
                    .zip(&self.patterns)
                    .enumerate()
                    .any(|(i, (h, p))| {
                        (head ^ h.word) & h.mask == 0
                            && self.try_pattern(i, p, target, &mut general)
                    })
            }
            Some(ix) => ix.matches(self, target, &mut general),
        };
        hit || (!general.slots.is_empty() && self.run_general(&general, target))
    }

    /// Matches a candidate whose literal head fits, or keeps it for the automaton run when it
    /// needs one.
    #[inline]
    fn try_pattern(&self, i: usize, p: &Pattern, target: &str, general: &mut Candidates) -> bool {
        if p.is_general() {
            if target.as_bytes().starts_with(p.prefix()) {
                general.push(self.batch_slot[i] as usize, i);
            }
            false
        } else {
            p.matches(target)
        }
    }

    /// Runs the automata of the kept candidates: one by one when they are few, else in
    /// lockstep.
    #[cold]
    fn run_general(&self, general: &Candidates, target: &str) -> bool {
        if general.slots.len() < BATCH_MIN {
            return general
                .patterns
                .iter()
                .any(|&i| self.patterns[i].matches(target));
        }
        let batch = self.batch.get_or_init(|| {
            let elems: Vec<_> = self
                .patterns
                .iter()
                .filter(|p| p.is_general())
                .map(|p| elements(p.as_str().as_bytes(), p.seps))
                .collect();
            Batch::new(&elems, self.patterns[general.patterns[0]].seps)
        });
        batch.matches_any(&general.slots, target.as_bytes())
    }
}

/// The candidates kept for an automaton run: slots in the batch and pattern indexes.
#[derive(Default)]
struct Candidates {
    slots: Vec<usize>,
    patterns: Vec<usize>,
}

impl Candidates {
    #[inline]
    fn push(&mut self, slot: usize, pattern: usize) {
        self.slots.push(slot);
        self.patterns.push(pattern);
    }
}

impl Index {
    fn build(patterns: &[Pattern]) -> Index {
        // A plain byte trie first, then chains of single-child, pattern-free nodes are merged
        // into multi-byte edge labels.
        let mut trie: Vec<TrieNode> = vec![(Vec::new(), Vec::new())];
        let mut literals = HashSet::default();
        for (i, p) in patterns.iter().enumerate() {
            if p.is_literal() {
                literals.insert(p.as_str().into());
                continue;
            }
            let mut node = 0;
            for &b in p.prefix() {
                node = match trie[node].0.iter().find(|e| e.0 == b) {
                    Some(e) => e.1,
                    None => {
                        trie.push((Vec::new(), Vec::new()));
                        let id = trie.len() - 1;
                        trie[node].0.push((b, id));
                        id
                    }
                };
            }
            trie[node].1.push(i as u32);
        }
        let mut ix = Index {
            literals,
            nodes: Vec::new(),
        };
        ix.compress(&trie, 0);
        ix
    }

    /// Copies trie node `at` (and below) into `self.nodes`, merging chains; returns its id.
    fn compress(&mut self, trie: &[TrieNode], at: usize) -> u32 {
        let id = self.nodes.len();
        self.nodes.push(Node {
            edges: Vec::new(),
            patterns: trie[at].1.clone(),
        });
        let mut edges = Vec::new();
        for &(b, mut child) in &trie[at].0 {
            let mut label = vec![b];
            while trie[child].1.is_empty() && trie[child].0.len() == 1 {
                let (nb, next) = trie[child].0[0];
                label.push(nb);
                child = next;
            }
            let cid = self.compress(trie, child);
            edges.push((label.into_boxed_slice(), cid));
        }
        edges.sort_by_key(|e| e.0[0]);
        self.nodes[id].edges = edges;
        id as u32
    }

    fn matches(&self, set: &PatternSet, target: &str, general: &mut Candidates) -> bool {
        if self.literals.contains(target) {
            return true;
        }
        let bytes = target.as_bytes();
        let mut node = 0usize;
        let mut depth = 0;
        loop {
            let n = &self.nodes[node];
            if n.patterns.iter().any(|&i| {
                let i = i as usize;
                set.try_pattern(i, &set.patterns[i], target, general)
            }) {
                return true;
            }
            let Some(&b) = bytes.get(depth) else {
                return false;
            };
            let Ok(k) = n.edges.binary_search_by_key(&b, |e| e.0[0]) else {
                return false;
            };
            let (label, child) = &n.edges[k];
            if !bytes[depth..].starts_with(label) {
                return false;
            }
            depth += label.len();
            node = *child as usize;
        }
    }
}

/// FNV-1a: a fast hash for short keys (pattern text is not attacker-chosen at lookup time in a
/// way that matters: a collision only costs a string compare).
#[derive(Default)]
struct Fnv(u64);

impl Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        let mut h = if self.0 == 0 {
            0xcbf2_9ce4_8422_2325
        } else {
            self.0
        };
        for &b in bytes {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        self.0 = h;
    }
}
