//! The (item, annotator) pairs a [`super::Collector`] has kept, to refuse a second
//! annotation by the same annotator of the same item.
//!
//! A set of `item << 32 | annotator` in one hash table (the plain version, kept in the tests
//! as the oracle) costs a random access into a table of every annotation per row. Here each
//! item's kept annotators are a chain through the rows kept so far (`prev`): a check walks
//! the item's own few rows, which are the last rows read when the file is grouped by item
//! (the usual shape). An item past [`SMALL`] annotators moves to a hash set, so an item with
//! many annotators costs no more than it did in the one table.

/// Annotators an item may have before its pairs move to the hash set.
const SMALL: u32 = 16;

/// The kept pairs (see the module doc).
#[derive(Debug, Default)]
pub(super) struct Pairs {
    /// Per item: 1 + the index of its last kept row (0: none).
    last: Vec<u32>,
    /// Per kept row: 1 + the index of the item's previous kept row (0: none), and its
    /// annotator.
    rows: Vec<(u32, u32)>,
    /// Per item: its kept rows.
    count: Vec<u32>,
    /// `item << 32 | annotator` of the items with more than [`SMALL`] kept rows.
    big: hashbrown::HashSet<u64>,
}

fn key(item: u32, annotator: u32) -> u64 {
    (u64::from(item) << 32) | u64::from(annotator)
}

impl Pairs {
    /// Whether `annotator`'s annotation of `item` was kept.
    pub(super) fn contains(&self, item: u32, annotator: u32) -> bool {
        let i = item as usize;
        if self.count(item) > SMALL {
            return self.big.contains(&key(item, annotator));
        }
        let mut k = self.last.get(i).copied().unwrap_or(0);
        while k != 0 {
            let (prev, a) = self.rows[k as usize - 1];
            if a == annotator {
                return true;
            }
            k = prev;
        }
        false
    }

    /// The kept rows of `item`.
    pub(super) fn count(&self, item: u32) -> u32 {
        self.count.get(item as usize).copied().unwrap_or(0)
    }

    /// Room for `rows` more kept rows over `items` more items.
    pub(super) fn reserve(&mut self, rows: usize, items: usize) {
        self.rows.reserve(rows);
        self.last.reserve(items);
        self.count.reserve(items);
    }

    /// Keeps the pair; `false` (and nothing kept) when it already was.
    pub(super) fn insert(&mut self, item: u32, annotator: u32) -> bool {
        if self.contains(item, annotator) {
            return false;
        }
        let i = item as usize;
        if self.last.len() <= i {
            self.last.resize(i + 1, 0);
            self.count.resize(i + 1, 0);
        }
        self.rows.push((self.last[i], annotator));
        self.last[i] = self.rows.len() as u32;
        self.count[i] += 1;
        if self.count[i] == SMALL + 1 {
            // The item's whole chain moves to the set.
            let mut k = self.last[i];
            while k != 0 {
                let (prev, a) = self.rows[k as usize - 1];
                self.big.insert(key(item, a));
                k = prev;
            }
        } else if self.count[i] > SMALL + 1 {
            self.big.insert(key(item, annotator));
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]
        /// Any sequence of checks and inserts answers as one hash set of pairs does (items
        /// past SMALL annotators included).
        #[test]
        fn pairs_equal_a_hash_set(ops in prop::collection::vec((any::<bool>(), 0..6u32, 0..40u32), 0..400)) {
            let mut fast = Pairs::default();
            let mut plain = std::collections::HashSet::new();
            for (insert, item, annotator) in ops {
                if insert {
                    prop_assert_eq!(fast.insert(item, annotator), plain.insert(key(item, annotator)));
                } else {
                    prop_assert_eq!(fast.contains(item, annotator), plain.contains(&key(item, annotator)));
                }
            }
            for item in 0..6 {
                for annotator in 0..40 {
                    prop_assert_eq!(fast.contains(item, annotator), plain.contains(&key(item, annotator)));
                }
            }
        }
    }
}
