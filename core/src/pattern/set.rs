//! The compiled patterns of one capability, indexed so that matching a target does not cost
//! one automaton run per pattern: literal patterns sit in a hash set, the others in a byte trie
//! keyed by their literal prefix, so only patterns whose prefix starts the target are tried.

use super::Pattern;
use std::collections::HashSet;

/// Below this many patterns a linear scan beats the index.
const LINEAR_LIMIT: usize = 8;

/// The compiled pattern list of one capability.
#[derive(Clone, Debug, Default)]
pub(crate) struct PatternSet {
    patterns: Vec<Pattern>,
    index: Option<Index>,
}

#[derive(Clone, Debug, Default)]
struct Index {
    literals: HashSet<Box<str>>,
    nodes: Vec<Node>,
}

#[derive(Clone, Debug, Default)]
struct Node {
    /// Sorted by byte.
    edges: Vec<(u8, u32)>,
    /// Non-literal patterns whose literal prefix ends here.
    patterns: Vec<u32>,
}

impl PatternSet {
    pub(crate) fn new(patterns: Vec<Pattern>) -> PatternSet {
        let index = (patterns.len() > LINEAR_LIMIT).then(|| Index::build(&patterns));
        PatternSet { patterns, index }
    }

    pub(crate) fn patterns(&self) -> &[Pattern] {
        &self.patterns
    }

    /// Whether some pattern matches the canonical target.
    pub(crate) fn matches(&self, target: &str) -> bool {
        match &self.index {
            None => self.patterns.iter().any(|p| p.matches(target)),
            Some(ix) => ix.matches(&self.patterns, target),
        }
    }
}

impl Index {
    fn build(patterns: &[Pattern]) -> Index {
        let mut ix = Index {
            literals: HashSet::new(),
            nodes: vec![Node::default()],
        };
        for (i, p) in patterns.iter().enumerate() {
            if p.is_literal() {
                ix.literals.insert(p.as_str().into());
                continue;
            }
            let mut node = 0usize;
            for &b in p.prefix() {
                node = match ix.nodes[node].edges.binary_search_by_key(&b, |e| e.0) {
                    Ok(k) => ix.nodes[node].edges[k].1 as usize,
                    Err(k) => {
                        let id = ix.nodes.len();
                        ix.nodes.push(Node::default());
                        ix.nodes[node].edges.insert(k, (b, id as u32));
                        id
                    }
                };
            }
            ix.nodes[node].patterns.push(i as u32);
        }
        ix
    }

    fn matches(&self, patterns: &[Pattern], target: &str) -> bool {
        if self.literals.contains(target) {
            return true;
        }
        let mut node = 0usize;
        let bytes = target.as_bytes();
        let mut depth = 0;
        loop {
            let n = &self.nodes[node];
            if n.patterns
                .iter()
                .any(|&i| patterns[i as usize].matches(target))
            {
                return true;
            }
            let Some(&b) = bytes.get(depth) else {
                return false;
            };
            match n.edges.binary_search_by_key(&b, |e| e.0) {
                Ok(k) => node = n.edges[k].1 as usize,
                Err(_) => return false,
            }
            depth += 1;
        }
    }
}
