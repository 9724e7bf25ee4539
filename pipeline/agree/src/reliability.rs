//! Annotator reliability: each annotator against the others, and KLUE STS's drop rule
//! ("annotators whose Pearson r < 0.80 or nominal α < 0.20 with others' annotations").

use crate::alpha::{Level, alpha};
use crate::label::{Label, Matrix};
use crate::table::{Cell, Table};
use serde::{Deserialize, Serialize};

/// One annotator's agreement with the others (each `None` where undefined).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Reliability {
    /// Row index in the matrix.
    pub annotator: usize,
    /// Items the annotator scored that at least one other annotator scored too.
    pub items_compared: usize,
    /// Pearson r of the annotator's scores against the mean of the others' on the same items.
    pub pearson_r: Option<f64>,
    /// Interval α of two rows: the annotator's scores and the others' mean on those items.
    pub alpha_interval_vs_mean_of_others: Option<f64>,
    /// Mean over every other annotator b of nominal α of the two rows [a; b].
    pub alpha_nominal_pairwise_mean: Option<f64>,
    /// Interval α of the matrix without this annotator.
    pub alpha_interval_leave_one_out: Option<f64>,
    /// Nominal α of the matrix without this annotator.
    pub alpha_nominal_leave_one_out: Option<f64>,
}

/// Pearson's r of paired values; `None` under two pairs or when either side is constant.
pub fn pearson(x: &[f64], y: &[f64]) -> Option<f64> {
    let n = x.len() as f64;
    if x.len() < 2 {
        return None;
    }
    let (mx, my) = (x.iter().sum::<f64>() / n, y.iter().sum::<f64>() / n);
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for (a, b) in x.iter().zip(y) {
        sxy += (a - mx) * (b - my);
        sxx += (a - mx) * (a - mx);
        syy += (b - my) * (b - my);
    }
    if sxx == 0.0 || syy == 0.0 {
        return None;
    }
    Some(sxy / (sxx * syy).sqrt())
}

/// Reliability of every annotator of a numeric matrix.
pub fn reliability(m: &Matrix) -> Vec<Reliability> {
    (0..m.annotators())
        .map(|a| {
            let (mut xs, mut ys) = (Vec::new(), Vec::new());
            for i in 0..m.items() {
                let Some(x) = m.get(a, i).and_then(Label::num) else {
                    continue;
                };
                let others: Vec<f64> = (0..m.annotators())
                    .filter(|&b| b != a)
                    .filter_map(|b| m.get(b, i).and_then(Label::num))
                    .collect();
                if others.is_empty() {
                    continue;
                }
                xs.push(x);
                ys.push(others.iter().sum::<f64>() / others.len() as f64);
            }
            let two = Matrix::new(vec![
                xs.iter().map(|x| Some(Label::Num(*x))).collect(),
                ys.iter().map(|y| Some(Label::Num(*y))).collect(),
            ]);
            let pairwise: Vec<f64> = (0..m.annotators())
                .filter(|&b| b != a)
                .filter_map(|b| {
                    alpha(
                        &Matrix::new(vec![m.rows[a].clone(), m.rows[b].clone()]),
                        Level::Nominal,
                    )
                    .ok()
                    .flatten()
                })
                .collect();
            let rest = m.without(a);
            Reliability {
                annotator: a,
                items_compared: xs.len(),
                pearson_r: pearson(&xs, &ys),
                alpha_interval_vs_mean_of_others: alpha(&two, Level::Interval).ok().flatten(),
                alpha_nominal_pairwise_mean: (!pairwise.is_empty())
                    .then(|| pairwise.iter().sum::<f64>() / pairwise.len() as f64),
                alpha_interval_leave_one_out: alpha(&rest, Level::Interval).ok().flatten(),
                alpha_nominal_leave_one_out: alpha(&rest, Level::Nominal).ok().flatten(),
            }
        })
        .collect()
}

/// One annotator's reliability from the sparse table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TableReliability {
    /// Labels the annotator gave.
    pub labels: usize,
    /// Of those, the labels on items someone else labelled too (counted for Pearson r,
    /// so 0 when the values are not all numbers).
    pub items_compared: usize,
    /// As [`Reliability::pearson_r`]; `None` unless every value is a number.
    pub pearson_r: Option<f64>,
    /// As [`Reliability::alpha_nominal_pairwise_mean`]: the mean over every annotator b who
    /// shares an item with a of nominal α of the two rows [a; b] (pairs sharing no item have
    /// no pairable unit, so their α is undefined and leaves the mean, as it did over the
    /// dense matrix).
    pub alpha_nominal_pairwise_mean: Option<f64>,
}

/// [`reliability`]'s Pearson r and pairwise nominal α for every annotator of a sparse table,
/// in time linear in Σ over items of (ratings per item)², with no items × annotators matrix:
/// two-rater nominal α needs, per pair, only the shared items, the disagreements among them
/// and the value counts.
///
/// The table is read in item order only (a per-annotator walk over its items jumps across
/// the whole cell array, a cache miss per visit once the table outgrows the cache). Each
/// pair of annotators a < b sharing an item is one record under a; a block of annotators at
/// a time (the records of a block take about as much memory as the table's cells), a scan
/// counting-sorts the block's records by b and a second pass, stably, by a, so each
/// annotator's records come grouped by b ascending with no comparison sort. The pair's α is
/// the same for a and b, so it is added to both running sums; a's sum receives the pairs
/// with b < a (earlier blocks, or earlier in this one) before its own, so each annotator's
/// α's are summed in ascending order of the other annotator, the order the figures were
/// always averaged in. The same scan lists each annotator's (own value, others' mean) in
/// item order for Pearson r.
pub fn reliability_table(t: &Table) -> Vec<TableReliability> {
    reliability_in_blocks(t, (t.len() * 2 * size_of::<Cell>()).max(1 << 22))
}

/// [`reliability_table`] with blocks of at most `budget` bytes of records (or one annotator).
fn reliability_in_blocks(t: &Table, budget: usize) -> Vec<TableReliability> {
    let mut pass = Pass::new(t);
    let na = t.annotators.len();
    let mut lo = 0;
    while lo < na {
        let block = pass.block(lo, budget);
        pass.records_by_b(&block);
        pass.records_by_a(&block);
        pass.add_block(&block);
        lo = block.hi;
    }
    pass.finish()
}

/// The running state of [`reliability_in_blocks`]: per annotator its counts, running sums
/// and Pearson r, and the buffers every block reuses.
struct Pass<'t> {
    t: &'t Table,
    /// Each value as a number, when all are.
    numeric: Option<Vec<f64>>,
    /// Per annotator: records as the lower annotator of a pair.
    low: Vec<usize>,
    /// Per annotator: Pearson points.
    points: Vec<usize>,
    /// Running sums of each annotator's pairwise α's. -0.0 is `Sum`'s start.
    sum: Vec<f64>,
    /// How many of each annotator's pairwise α's are defined.
    defined: Vec<usize>,
    pearson_r: Vec<Option<f64>>,
    /// The block's records `[a, a's value, b's value]`, grouped by b.
    by_b: Vec<[u32; 3]>,
    /// The block's records `[b, a's value, b's value]`, grouped by a, then b ascending.
    by_a: Vec<[u32; 3]>,
    /// The block's Pearson points: own value, the others' mean.
    xs: Vec<f64>,
    ys: Vec<f64>,
    /// Where each b's records start in `by_b` (one more entry: the end).
    b_start: Vec<usize>,
    /// Scratch counts per value.
    in_value: Vec<u64>,
}

/// The annotators `lo..hi` of one block, with the offsets of their records in `by_a` and
/// of their points in `xs`/`ys`.
struct Block {
    lo: usize,
    hi: usize,
    a_start: Vec<usize>,
    p_start: Vec<usize>,
}

impl Block {
    /// Whether the cell's annotator is in this block.
    #[inline]
    fn mine(&self, c: &Cell) -> bool {
        (self.lo..self.hi).contains(&(c.annotator as usize))
    }
}

impl<'t> Pass<'t> {
    fn new(t: &'t Table) -> Self {
        let na = t.annotators.len();
        let numeric: Option<Vec<f64>> = t.values.iter().map(Label::num).collect();
        let (mut low, mut points) = (vec![0usize; na], vec![0usize; na]);
        for i in 0..t.items.len() {
            let cells = t.item(i);
            for (k, c) in cells.iter().enumerate() {
                low[c.annotator as usize] += cells.len() - 1 - k;
                if numeric.is_some() && cells.len() > 1 {
                    points[c.annotator as usize] += 1;
                }
            }
        }
        Pass {
            t,
            numeric,
            low,
            points,
            sum: vec![-0.0f64; na],
            defined: vec![0usize; na],
            pearson_r: vec![None; na],
            by_b: Vec::new(),
            by_a: Vec::new(),
            xs: Vec::new(),
            ys: Vec::new(),
            b_start: vec![0usize; na + 1],
            in_value: vec![0u64; t.values.len()],
        }
    }

    /// The block from `lo`: at least one annotator, then as many as the budget takes.
    fn block(&self, lo: usize, budget: usize) -> Block {
        let na = self.t.annotators.len();
        // Bytes a block may hold: its records twice (by b, then by a) and its points.
        let cost = |a: usize| {
            2 * size_of::<[u32; 3]>() * self.low[a] + 2 * size_of::<f64>() * self.points[a]
        };
        let (mut hi, mut bytes) = (lo + 1, cost(lo));
        while hi < na && bytes + cost(hi) <= budget {
            bytes += cost(hi);
            hi += 1;
        }
        // Offsets of each block annotator's records and points.
        let offsets = |n: &[usize]| {
            let mut s = Vec::with_capacity(hi - lo + 1);
            s.push(0usize);
            for a in lo..hi {
                s.push(s[a - lo] + n[a]);
            }
            s
        };
        Block {
            lo,
            hi,
            a_start: offsets(&self.low),
            p_start: offsets(&self.points),
        }
    }

    /// The block's records by b (count, then fill in item order), and its Pearson points.
    fn records_by_b(&mut self, blk: &Block) {
        let (t, na, lo) = (self.t, self.t.annotators.len(), blk.lo);
        self.b_start.iter_mut().for_each(|x| *x = 0);
        for i in 0..t.items.len() {
            let cells = t.item(i);
            for (k, _) in cells.iter().enumerate().filter(|(_, c)| blk.mine(c)) {
                for d in &cells[k + 1..] {
                    self.b_start[d.annotator as usize + 1] += 1;
                }
            }
        }
        for b in 0..na {
            self.b_start[b + 1] += self.b_start[b];
        }
        let points = blk.p_start[blk.hi - lo];
        self.by_b.clear();
        self.by_b.resize(self.b_start[na], [0; 3]);
        self.xs.clear();
        self.xs.resize(points, 0.0);
        self.ys.clear();
        self.ys.resize(points, 0.0);
        let mut b_fill = self.b_start[..na].to_vec();
        let mut p_fill = blk.p_start[..blk.hi - lo].to_vec();
        for i in 0..t.items.len() {
            let cells = t.item(i);
            let others = cells.len().saturating_sub(1);
            let item_sum: Option<f64> = self
                .numeric
                .as_ref()
                .filter(|_| others > 0 && cells.iter().any(|c| blk.mine(c)))
                .map(|num| cells.iter().map(|c| num[c.value as usize]).sum());
            for (k, c) in cells.iter().enumerate().filter(|(_, c)| blk.mine(c)) {
                for d in &cells[k + 1..] {
                    let f = &mut b_fill[d.annotator as usize];
                    self.by_b[*f] = [c.annotator, c.value, d.value];
                    *f += 1;
                }
                if let (Some(num), Some(sum)) = (&self.numeric, item_sum) {
                    let x = num[c.value as usize];
                    let f = &mut p_fill[c.annotator as usize - lo];
                    self.xs[*f] = x;
                    self.ys[*f] = (sum - x) / others as f64;
                    *f += 1;
                }
            }
        }
    }

    /// Stably by a: each a's records grouped by b ascending.
    fn records_by_a(&mut self, blk: &Block) {
        let (na, lo) = (self.t.annotators.len(), blk.lo);
        self.by_a.clear();
        self.by_a.resize(self.b_start[na], [0; 3]);
        let mut a_fill = blk.a_start[..blk.hi - lo].to_vec();
        for b in 0..na {
            for r in &self.by_b[self.b_start[b]..self.b_start[b + 1]] {
                let f = &mut a_fill[r[0] as usize - lo];
                self.by_a[*f] = [b as u32, r[1], r[2]];
                *f += 1;
            }
        }
    }

    /// Each block annotator's pairwise α's (added to both annotators' sums) and Pearson r.
    fn add_block(&mut self, blk: &Block) {
        let lo = blk.lo;
        for a in lo..blk.hi {
            let recs = &self.by_a[blk.a_start[a - lo]..blk.a_start[a - lo + 1]];
            for run in recs.chunk_by(|p, q| p[0] == q[0]) {
                if let Some(alpha) = pair_alpha(run, &mut self.in_value) {
                    for x in [a, run[0][0] as usize] {
                        self.sum[x] += alpha;
                        self.defined[x] += 1;
                    }
                }
            }
            let (from, to) = (blk.p_start[a - lo], blk.p_start[a - lo + 1]);
            self.pearson_r[a] = self
                .numeric
                .as_ref()
                .and_then(|_| pearson(&self.xs[from..to], &self.ys[from..to]));
        }
    }

    fn finish(self) -> Vec<TableReliability> {
        let labels = self.t.labels_per_annotator();
        (0..self.t.annotators.len())
            .map(|a| TableReliability {
                labels: labels[a],
                items_compared: self.points[a],
                pearson_r: self.pearson_r[a],
                alpha_nominal_pairwise_mean: (self.defined[a] > 0)
                    .then(|| self.sum[a] / self.defined[a] as f64),
            })
            .collect()
    }
}

/// Nominal α of two annotators from their records on the items they share (`None` when
/// the expected disagreement is 0). `in_value` is zeroed scratch, left zeroed.
fn pair_alpha(run: &[[u32; 3]], in_value: &mut [u64]) -> Option<f64> {
    let s = run.len() as f64;
    let d = run.iter().filter(|p| p[1] != p[2]).count() as f64;
    // Σ over values of (its count among the run's 2s values)².
    for p in run {
        in_value[p[1] as usize] += 1;
        in_value[p[2] as usize] += 1;
    }
    let mut same = 0u64;
    for p in run {
        for v in [p[1], p[2]] {
            let n = std::mem::take(&mut in_value[v as usize]);
            same += n * n;
        }
    }
    let n = 2.0 * s;
    let (d_o, d_e) = (2.0 * d, n * n - same as f64);
    (d_e != 0.0).then(|| 1.0 - (n - 1.0) * d_o / d_e)
}

/// KLUE STS's rule: drop an annotator whose r against the others' mean is below `min_r`
/// or whose nominal α with the others (the pairwise mean) is below `min_alpha`. Returns
/// each dropped annotator with the reason.
pub fn klue_sts_drops(rel: &[Reliability], min_r: f64, min_alpha: f64) -> Vec<(usize, String)> {
    rel.iter()
        .filter_map(|r| {
            let low_r = r.pearson_r.is_none_or(|x| x < min_r);
            let low_a = r.alpha_nominal_pairwise_mean.is_none_or(|x| x < min_alpha);
            (low_r || low_a).then(|| {
                (r.annotator, format!(
                    "pearson r {} (min {min_r}), nominal alpha with others {} (min {min_alpha})",
                    r.pearson_r.map_or("undefined".into(), |x| format!("{x:.4}")),
                    r.alpha_nominal_pairwise_mean.map_or("undefined".into(), |x| format!("{x:.4}"))
                ))
            })
        })
        .collect()
}

/// KLUE STS's drops as decisions (`agree.annotator_unreliable`), one per dropped annotator.
pub fn drop_decisions(
    rel: &[Reliability],
    names: &[String],
    min_r: f64,
    min_alpha: f64,
) -> Vec<kcurate_core::Decision> {
    klue_sts_drops(rel, min_r, min_alpha)
        .into_iter()
        .map(|(a, why)| kcurate_core::Decision {
            score: rel.get(a).and_then(|r| r.pearson_r),
            ..crate::io::annotation_drop(
                names.get(a).cloned().unwrap_or_else(|| a.to_string()),
                kcurate_core::RuleId::new("agree.annotator_unreliable"),
                why,
                String::new(),
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::label::Label;
    use rand::{RngExt, SeedableRng};

    /// One annotator per block (every record crossing blocks) gives the same bits as the
    /// default blocks, on seeded sparse tables with numbers and with texts.
    #[test]
    fn blocks_do_not_change_any_bit() {
        for seed in 0..30u64 {
            let mut rng = rand::rngs::ChaCha8Rng::seed_from_u64(seed);
            let (na, ni) = (rng.random_range(2..12), rng.random_range(1..60));
            let text = seed % 3 == 0;
            let rows: Vec<Vec<Option<Label>>> = (0..na)
                .map(|_| {
                    (0..ni)
                        .map(|_| {
                            (rng.random::<f64>() < 0.5).then(|| {
                                let v = rng.random_range(0..5);
                                if text {
                                    Label::Text(format!("c{v}"))
                                } else {
                                    Label::Num(f64::from(v) / 3.0)
                                }
                            })
                        })
                        .collect()
                })
                .collect();
            let t = Table::from_matrix(&Matrix::new(rows));
            let whole = reliability_table(&t);
            assert_eq!(reliability_in_blocks(&t, 0), whole, "seed {seed}");
            assert_eq!(reliability_in_blocks(&t, 200), whole, "seed {seed}");
            if text {
                assert!(
                    whole
                        .iter()
                        .all(|r| r.pearson_r.is_none() && r.items_compared == 0)
                );
            }
        }
    }

    #[test]
    fn unreliable_annotators_are_dropped_as_decisions() {
        let good: Vec<f64> = vec![0., 1., 2., 3., 4., 5., 1., 2., 3., 4.];
        let noisy: Vec<f64> = vec![5., 0., 4., 1., 0., 2., 5., 0., 1., 0.];
        let row = |v: &[f64], d: f64| {
            v.iter()
                .map(|x| Some(Label::Num((x + d).min(5.0))))
                .collect()
        };
        // Six annotators who agree (up to integer rounding), one who answers at random.
        let mut rows: Vec<Vec<Option<Label>>> = (0..6)
            .map(|k| row(&good, if k == 5 { 1.0 } else { 0.0 }))
            .collect();
        rows.push(row(&noisy, 0.0));
        let rel = reliability(&Matrix::new(rows));
        let names: Vec<String> = ["a", "b", "c", "d", "e", "f", "spammer"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let d = drop_decisions(&rel, &names, 0.8, 0.2);
        // The random one fails both tests; the one who scores a point high keeps a high r but
        // agrees with nobody on the exact score, so nominal α drops it too (as in KLUE's rule).
        let dropped: Vec<&str> = d.iter().map(|x| x.item.as_str()).collect();
        assert_eq!(dropped, ["f", "spammer"], "{d:?}");
        assert!(d[0].score.unwrap() > 0.8 && d[1].score.unwrap() < 0.0);
        assert!(
            d.iter()
                .all(|x| x.rule.as_str() == "agree.annotator_unreliable")
        );
    }
}
