//! [`Numbering`]: the distinct strings of one column numbered 0, 1, 2, … in first-seen
//! order. The fast long reader numbers each row's annotator on its scanning thread, so the
//! [`super::Collector`] on the voting thread finds the annotator it interned through an
//! array indexed by the number ([`super::Collector::vote_numbered`]) instead of hashing and
//! comparing the string again: that lookup moves off the thread that bounds the read.

use std::hash::BuildHasher;

/// Distinct strings numbered in first-seen order, all held in one buffer.
#[derive(Default)]
pub(super) struct Numbering {
    /// The strings, one after another.
    bytes: String,
    /// Where each string ends in `bytes` (string k starts where k - 1 ends).
    ends: Vec<usize>,
    index: hashbrown::HashTable<u32>,
    hasher: hashbrown::DefaultHashBuilder,
}

impl Numbering {
    #[inline]
    fn text(&self, k: u32) -> &str {
        let k = k as usize;
        let start = if k == 0 { 0 } else { self.ends[k - 1] };
        &self.bytes[start..self.ends[k]]
    }

    /// `s`'s number: the one it was given when first seen, else the next.
    pub(super) fn number(&mut self, s: &str) -> u32 {
        let h = self.hasher.hash_one(s);
        let found = self.index.find(h, |&k| self.text(k) == s).copied();
        found.unwrap_or_else(|| {
            let k = self.ends.len() as u32;
            self.bytes.push_str(s);
            self.ends.push(self.bytes.len());
            let (bytes, ends, hasher) = (&self.bytes, &self.ends, &self.hasher);
            self.index.insert_unique(h, k, |&k| {
                let k = k as usize;
                let start = if k == 0 { 0 } else { ends[k - 1] };
                hasher.hash_one(&bytes[start..ends[k]])
            });
            k
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Numbers are first-seen positions among the distinct strings (a map of the
        /// strings seen so far is the oracle).
        #[test]
        fn numbers_are_first_seen_order(words in prop::collection::vec(prop::sample::select(vec!["", "a", "b", "ab", "가", "a\tb", "ba"]), 0..200)) {
            let mut n = Numbering::default();
            let mut seen: std::collections::HashMap<&str, u32> = std::collections::HashMap::new();
            for w in words {
                let next = seen.len() as u32;
                let want = *seen.entry(w).or_insert(next);
                prop_assert_eq!(n.number(w), want, "{:?}", w);
            }
        }
    }
}
