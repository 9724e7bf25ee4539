//! The item × annotator table, held sparse: per item, its list of (annotator, value), so
//! memory and every statistic built on it grow with the number of annotations, not with
//! items × annotators.
//!
//! Items keep their first-seen order; annotators and values are sorted (the order the dense
//! [`Matrix`] had), and each item's cells are sorted by annotator, so sums over an item run
//! in the same order as they did over a matrix column.

use crate::label::{Label, Matrix};

/// One rating: annotator and value as indices into [`Table::annotators`] / [`Table::values`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Cell {
    /// Index into [`Table::annotators`].
    pub annotator: u32,
    /// Index into [`Table::values`].
    pub value: u32,
}

/// Ratings of items by annotators, sparse (see the module doc).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Table {
    /// Item ids, first-seen order.
    pub items: Vec<String>,
    /// Annotator ids, sorted.
    pub annotators: Vec<String>,
    /// Distinct values, sorted (numbers before texts).
    pub values: Vec<Label>,
    /// Item i's cells are `cells[start[i]..start[i + 1]]`.
    start: Vec<usize>,
    cells: Vec<Cell>,
}

impl Table {
    /// From (item, annotator, value) index triples over the given names (annotators and
    /// values in any order; they are sorted here). At most one cell per (item, annotator).
    pub fn build(
        items: Vec<String>,
        annotators: Vec<String>,
        values: Vec<Label>,
        triples: &[(u32, u32, u32)],
    ) -> Table {
        Table::build_on(items, annotators, values, triples, 1)
    }

    /// [`Table::build`], the cells of a large table put in order on up to `threads` threads
    /// (each a range of items): the same table on any number.
    pub fn build_on(
        items: Vec<String>,
        annotators: Vec<String>,
        values: Vec<Label>,
        triples: &[(u32, u32, u32)],
        threads: usize,
    ) -> Table {
        let rank = |n: usize, order: &[usize]| {
            let mut r = vec![0u32; n];
            for (k, &i) in order.iter().enumerate() {
                r[i] = k as u32;
            }
            r
        };
        let mut a_order: Vec<usize> = (0..annotators.len()).collect();
        a_order.sort_by(|&x, &y| annotators[x].cmp(&annotators[y]));
        let a_rank = rank(annotators.len(), &a_order);
        let mut v_order: Vec<usize> = (0..values.len()).collect();
        v_order.sort_by(|&x, &y| values[x].cmp(&values[y]));
        let v_rank = rank(values.len(), &v_order);
        // Counting sort by item.
        let mut start = vec![0usize; items.len() + 1];
        for &(i, _, _) in triples {
            start[i as usize + 1] += 1;
        }
        for i in 0..items.len() {
            start[i + 1] += start[i];
        }
        let mut fill = start.clone();
        let mut cells = vec![
            Cell {
                annotator: 0,
                value: 0
            };
            triples.len()
        ];
        for &(i, a, v) in triples {
            cells[fill[i as usize]] = Cell {
                annotator: a_rank[a as usize],
                value: v_rank[v as usize],
            };
            fill[i as usize] += 1;
        }
        let ranges = item_ranges(
            &start,
            if cells.len() < PARALLEL_CELLS {
                1
            } else {
                threads
            },
        );
        order_cells(&mut cells, &start, &ranges);
        let sorted = |names: Vec<String>, order: &[usize]| -> Vec<String> {
            let mut slots: Vec<Option<String>> = names.into_iter().map(Some).collect();
            order
                .iter()
                .map(|&k| slots[k].take().expect("each index once"))
                .collect()
        };
        let annotators = sorted(annotators, &a_order);
        let mut vslots: Vec<Option<Label>> = values.into_iter().map(Some).collect();
        let values = v_order
            .iter()
            .map(|&k| vslots[k].take().expect("each index once"))
            .collect();
        Table {
            items,
            annotators,
            values,
            start,
            cells,
        }
    }

    /// From a dense matrix (rows = annotators named "0", "1", …; items named by column).
    /// Annotator indices are kept: row k is annotator k.
    pub fn from_matrix(m: &Matrix) -> Table {
        let values = m.values();
        let mut triples = Vec::new();
        for i in 0..m.items() {
            for a in 0..m.annotators() {
                if let Some(l) = m.get(a, i) {
                    let v = values.binary_search(l).expect("value listed");
                    triples.push((i as u32, a as u32, v as u32));
                }
            }
        }
        // Names that sort like the row numbers.
        let w = m.annotators().to_string().len();
        let annotators = (0..m.annotators()).map(|a| format!("{a:0w$}")).collect();
        let items = (0..m.items()).map(|i| i.to_string()).collect();
        Table::build(items, annotators, values, &triples)
    }

    /// From annotation rows (a later row for the same item and annotator replaces an
    /// earlier one, as it did in the matrix).
    pub fn from_annotations(rows: &[crate::io::Annotation]) -> Table {
        use std::collections::{BTreeMap, HashMap};
        let mut items: HashMap<&str, u32> = HashMap::new();
        let mut item_names = Vec::new();
        let mut anns: HashMap<&str, u32> = HashMap::new();
        let mut ann_names = Vec::new();
        let mut values: BTreeMap<&Label, u32> = BTreeMap::new();
        let mut cell: HashMap<(u32, u32), usize> = HashMap::new();
        let mut triples: Vec<(u32, u32, u32)> = Vec::new();
        for r in rows {
            let n = items.len() as u32;
            let i = *items.entry(&r.item).or_insert_with(|| {
                item_names.push(r.item.clone());
                n
            });
            let n = anns.len() as u32;
            let a = *anns.entry(&r.annotator).or_insert_with(|| {
                ann_names.push(r.annotator.clone());
                n
            });
            let n = values.len() as u32;
            let v = *values.entry(&r.value).or_insert(n);
            match cell.get(&(i, a)) {
                Some(&k) => triples[k].2 = v,
                None => {
                    cell.insert((i, a), triples.len());
                    triples.push((i, a, v));
                }
            }
        }
        let mut vals: Vec<(u32, Label)> = values.into_iter().map(|(l, k)| (k, l.clone())).collect();
        vals.sort_by_key(|x| x.0);
        let vals = vals.into_iter().map(|x| x.1).collect();
        Table::build(item_names, ann_names, vals, &triples)
    }

    /// The cells of item `i`, sorted by annotator.
    pub fn item(&self, i: usize) -> &[Cell] {
        &self.cells[self.start[i]..self.start[i + 1]]
    }

    /// Number of ratings.
    pub fn len(&self) -> usize {
        self.cells.len()
    }

    /// No ratings.
    pub fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }

    /// Every value is a number.
    pub fn numeric(&self) -> bool {
        self.values.iter().all(|v| v.num().is_some())
    }

    /// Labels per annotator.
    pub fn labels_per_annotator(&self) -> Vec<usize> {
        let mut n = vec![0; self.annotators.len()];
        for c in &self.cells {
            n[c.annotator as usize] += 1;
        }
        n
    }
}

/// Cells a table needs for [`Table::build_on`] to use more than one thread: starting one
/// costs more than ordering a small table takes (in tests, small tables use them too).
const PARALLEL_CELLS: usize = if cfg!(test) { 4 } else { 1 << 16 };

/// `threads` ranges of items (start, end) over `start` (item i's cells begin at `start[i]`),
/// with about as many cells each; fewer when there are fewer items.
fn item_ranges(start: &[usize], threads: usize) -> Vec<(usize, usize)> {
    let items = start.len() - 1;
    let total = start[items];
    let mut ranges = Vec::new();
    let mut from = 0;
    for k in 1..threads.max(1) {
        // The first item whose cells begin at or past k/threads of all cells.
        let to = start
            .partition_point(|&c| c < total * k / threads)
            .min(items);
        if to > from {
            ranges.push((from, to));
            from = to;
        }
    }
    ranges.push((from, items));
    ranges
}

/// Sorts each item's cells (`cells[start[i]..start[i + 1]]`) by annotator, a range of items
/// (`ranges`) per thread, the last on the calling thread.
fn order_cells(cells: &mut [Cell], start: &[usize], ranges: &[(usize, usize)]) {
    std::thread::scope(|s| {
        let mut rest = cells;
        for (k, &(i0, i1)) in ranges.iter().enumerate() {
            let (part, tail) = std::mem::take(&mut rest).split_at_mut(start[i1] - start[i0]);
            rest = tail;
            let mut order = move || {
                let at = start[i0];
                for i in i0..i1 {
                    // An item has one cell per annotator: the annotator alone orders them.
                    part[start[i] - at..start[i + 1] - at].sort_unstable_by_key(|c| c.annotator);
                }
            };
            if k + 1 == ranges.len() {
                order();
            } else {
                s.spawn(order);
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_sort_by_annotator_and_names_are_sorted() {
        let t = Table::build(
            vec!["x".into(), "y".into()],
            vec!["b".into(), "a".into()],
            vec![Label::Text("z".into()), Label::Num(1.0)],
            &[(0, 0, 0), (1, 1, 1), (0, 1, 1)],
        );
        assert_eq!(t.annotators, ["a", "b"]);
        assert_eq!(t.values, [Label::Num(1.0), Label::Text("z".into())]);
        assert_eq!(
            t.item(0),
            [
                Cell {
                    annotator: 0,
                    value: 0
                },
                Cell {
                    annotator: 1,
                    value: 1
                }
            ]
        );
        assert_eq!(t.item(1).len(), 1);
        assert_eq!(t.labels_per_annotator(), [2, 1]);
    }

    proptest::proptest! {
        /// The table does not depend on the order of the triples (grouped by item or
        /// scattered), nor on the threads that order its cells.
        #[test]
        fn triple_order_does_not_change_the_table(
            cells in proptest::collection::btree_set((0..6u32, 0..5u32), 0..30),
            values in proptest::collection::vec(0..3u32, 30),
            seed in proptest::prelude::any::<u64>(),
        ) {
            use rand::seq::SliceRandom;
            use rand::SeedableRng;
            let mut triples: Vec<(u32, u32, u32)> = cells
                .iter()
                .zip(&values)
                .map(|(&(i, a), &v)| (i, a, v))
                .collect();
            let build = |t: &[(u32, u32, u32)]| {
                Table::build_on(
                    (0..6).map(|i| format!("i{i}")).collect(),
                    (0..5).map(|a| format!("a{}", 4 - a)).collect(),
                    (0..3).map(|v| Label::Num(f64::from(2 - v))).collect(),
                    t,
                    1,
                )
            };
            let grouped = build(&triples);
            triples.shuffle(&mut rand::rngs::ChaCha8Rng::seed_from_u64(seed));
            proptest::prop_assert_eq!(build(&triples), grouped.clone());
            proptest::prop_assert_eq!(Table::build_on(
                grouped.items.clone(),
                (0..5).map(|a| format!("a{}", 4 - a)).collect(),
                (0..3).map(|v| Label::Num(f64::from(2 - v))).collect(),
                &triples,
                3,
            ), grouped);
        }

        /// Item ranges cover every item once, in order, whatever the thread count.
        #[test]
        fn item_ranges_cover_the_items(counts in proptest::collection::vec(0..5usize, 0..40), threads in 1..6usize) {
            let mut start = vec![0];
            for c in counts {
                start.push(start.last().unwrap() + c);
            }
            let ranges = item_ranges(&start, threads);
            proptest::prop_assert!(ranges.len() <= threads);
            let mut next = 0;
            for &(a, b) in &ranges {
                proptest::prop_assert_eq!(a, next);
                proptest::prop_assert!(b >= a);
                next = b;
            }
            proptest::prop_assert_eq!(next, start.len() - 1);
        }
    }
}
