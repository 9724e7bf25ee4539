//! Krippendorff's α (Krippendorff 2011, "Computing Krippendorff's alpha-reliability").
//!
//! With the pairable values only (units with at least two values): the coincidence matrix
//! o_ck adds n_uc·n_uk/(m_u − 1) per unit (n_uc(n_uc − 1)/(m_u − 1) on the diagonal),
//! n_c = Σ_k o_ck, n = Σ_c n_c, and α = 1 − (n − 1)·Σ o_ck δ²(c,k) / Σ n_c n_k δ²(c,k).

use crate::label::{Label, Matrix};
use crate::table::Table;
use rand::SeedableRng;
use rand_distr::{Binomial, Distribution};
use serde::{Deserialize, Serialize};

/// The level of measurement: which difference function δ² α uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// Categories: δ² = 0 when equal, 1 otherwise.
    Nominal,
    /// Ranks: δ² from the counts of the values between the two (sorted order of labels).
    Ordinal,
    /// Numbers: δ² = (c − k)².
    Interval,
    /// Numbers with a true zero: δ² = ((c − k) / (c + k))².
    Ratio,
}

/// A level name that is not one of `nominal`, `ordinal`, `interval`, `ratio`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown level {0:?} (nominal, ordinal, interval, ratio)")]
pub struct UnknownLevel(pub String);

impl std::str::FromStr for Level {
    type Err = UnknownLevel;
    fn from_str(s: &str) -> Result<Self, UnknownLevel> {
        match s {
            "nominal" => Ok(Level::Nominal),
            "ordinal" => Ok(Level::Ordinal),
            "interval" => Ok(Level::Interval),
            "ratio" => Ok(Level::Ratio),
            _ => Err(UnknownLevel(s.to_string())),
        }
    }
}

/// Per-unit value counts over a sorted value list: the only input α needs.
#[derive(Debug, Clone)]
pub struct UnitCounts {
    /// The distinct values, sorted; the columns of `counts`.
    pub values: Vec<Label>,
    /// One row per unit: count of each value.
    pub counts: Vec<Vec<f64>>,
}

impl UnitCounts {
    /// From annotators × items ratings: per item, how often each value was given.
    pub fn from_matrix(m: &Matrix) -> UnitCounts {
        let values = m.values();
        let mut counts = Vec::with_capacity(m.items());
        for i in 0..m.items() {
            let mut row = vec![0.0; values.len()];
            for l in m.column(i) {
                let k = values.binary_search(l).expect("value is listed");
                row[k] += 1.0;
            }
            counts.push(row);
        }
        UnitCounts { values, counts }
    }

    /// From an items × categories count table.
    pub fn from_table(categories: Vec<Label>, table: Vec<Vec<f64>>) -> UnitCounts {
        // Sort the categories (α's ordinal metric needs the order) and permute columns.
        let mut order: Vec<usize> = (0..categories.len()).collect();
        order.sort_by(|&a, &b| categories[a].cmp(&categories[b]));
        let values = order.iter().map(|&k| categories[k].clone()).collect();
        let counts = table
            .into_iter()
            .map(|r| {
                order
                    .iter()
                    .map(|&k| r.get(k).copied().unwrap_or(0.0))
                    .collect()
            })
            .collect();
        UnitCounts { values, counts }
    }
}

fn delta2(level: Level, c: usize, k: usize, values: &[Label], n: &[f64]) -> Option<f64> {
    if c == k {
        return Some(0.0);
    }
    Some(match level {
        Level::Nominal => 1.0,
        Level::Ordinal => {
            let (lo, hi) = if c < k { (c, k) } else { (k, c) };
            let s: f64 = n[lo..=hi].iter().sum();
            let d = s - (n[c] + n[k]) / 2.0;
            d * d
        }
        Level::Interval => {
            let d = values[c].num()? - values[k].num()?;
            d * d
        }
        Level::Ratio => {
            let (a, b) = (values[c].num()?, values[k].num()?);
            if a + b == 0.0 {
                0.0
            } else {
                ((a - b) / (a + b)).powi(2)
            }
        }
    })
}

/// α cannot be computed at the asked level.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum AlphaError {
    /// The interval and ratio levels need numbers; the value shown is not one.
    #[error("the {0:?} level needs numeric values; found {1:?}")]
    NotNumeric(Level, String),
}

/// Units grouped by their value counts: each distinct count vector is held once with the
/// number of units that have it (a 100k-item crowd file with 5 labels from 3 classes has 21),
/// so α, its bootstrap and Fleiss' κ cost one pass over the units plus work per group.
#[derive(Debug, Clone, Default)]
pub struct Units {
    /// The distinct values, sorted; value indices point into it.
    pub values: Vec<Label>,
    /// Per group: (value index, count) pairs, ascending by value, and the total m.
    groups: Vec<(Vec<(u32, f64)>, f64)>,
    /// Units per group.
    weight: Vec<f64>,
    /// Per unit (input order), its group.
    unit_group: Vec<u32>,
}

impl Units {
    /// From per-unit sparse counts, in unit order.
    pub fn from_sparse<'a>(
        values: Vec<Label>,
        units: impl IntoIterator<Item = &'a [(u32, f64)]>,
    ) -> Units {
        let mut g = Grouper::new(values);
        for counts in units {
            g.push(counts);
        }
        g.units
    }
    /// From dense per-unit counts.
    pub fn from_counts(c: &UnitCounts) -> Units {
        let rows: Vec<Vec<(u32, f64)>> = c
            .counts
            .iter()
            .map(|r| {
                r.iter()
                    .enumerate()
                    .filter(|(_, n)| **n > 0.0)
                    .map(|(k, n)| (k as u32, *n))
                    .collect()
            })
            .collect();
        Units::from_sparse(c.values.clone(), rows.iter().map(Vec::as_slice))
    }

    /// From the sparse table: a unit per item, values counted over its cells.
    pub fn from_table(t: &Table) -> Units {
        let mut g = Grouper::new(t.values.clone());
        g.units.unit_group.reserve(t.items.len());
        let mut vals: Vec<u32> = Vec::new();
        let mut row: Vec<(u32, f64)> = Vec::new();
        for i in 0..t.items.len() {
            vals.clear();
            vals.extend(t.item(i).iter().map(|c| c.value));
            vals.sort_unstable();
            row.clear();
            for &v in &vals {
                match row.last_mut() {
                    Some((k, n)) if *k == v => *n += 1.0,
                    _ => row.push((v, 1.0)),
                }
            }
            g.push(&row);
        }
        g.units
    }
    /// The counts of unit `u` (input order) and its total.
    pub fn unit(&self, u: usize) -> (&[(u32, f64)], f64) {
        let (c, m) = &self.groups[self.unit_group[u] as usize];
        (c, *m)
    }

    /// Distinct count vectors.
    pub fn groups(&self) -> usize {
        self.groups.len()
    }

    /// Per group: counts, total and number of units.
    pub fn weighted(&self) -> impl Iterator<Item = (&[(u32, f64)], f64, f64)> + '_ {
        self.groups
            .iter()
            .zip(&self.weight)
            .map(|((c, m), w)| (c.as_slice(), *m, *w))
    }

    fn check(&self, level: Level) -> Result<(), AlphaError> {
        if matches!(level, Level::Interval | Level::Ratio)
            && let Some(bad) = self.values.iter().find(|v| v.num().is_none())
        {
            return Err(AlphaError::NotNumeric(level, bad.to_string()));
        }
        Ok(())
    }

    /// The coincidences of every unit (pairable ones contribute).
    pub fn coincidences(&self) -> Coincidences {
        let mut ms: Vec<f64> = self.groups.iter().map(|g| g.1).collect();
        ms.extend(self.groups.iter().map(|g| g.1 - 1.0));
        let mut c = Coincidences::new(self.values.len(), ms);
        for (counts, m, w) in self.weighted() {
            c.add(counts, m, w);
        }
        c
    }
}

/// Builds [`Units`] a unit at a time: a unit's counts are looked up among the groups seen so
/// far (a hash of the counts, no allocation unless the group is new).
struct Grouper {
    units: Units,
    index: hashbrown::HashTable<u32>,
    hasher: hashbrown::DefaultHashBuilder,
}

impl Grouper {
    fn new(values: Vec<Label>) -> Grouper {
        Grouper {
            units: Units {
                values,
                ..Default::default()
            },
            index: hashbrown::HashTable::new(),
            hasher: hashbrown::DefaultHashBuilder::default(),
        }
    }

    fn push(&mut self, counts: &[(u32, f64)]) {
        use std::hash::BuildHasher;
        let hash = |h: &hashbrown::DefaultHashBuilder, c: &[(u32, f64)]| {
            let mut s = h.build_hasher();
            for &(k, n) in c {
                std::hash::Hasher::write_u32(&mut s, k);
                std::hash::Hasher::write_u64(&mut s, n.to_bits());
            }
            std::hash::Hasher::finish(&s)
        };
        let same = |a: &[(u32, f64)], b: &[(u32, f64)]| {
            a.len() == b.len()
                && a.iter()
                    .zip(b)
                    .all(|(x, y)| x.0 == y.0 && x.1.to_bits() == y.1.to_bits())
        };
        let u = &mut self.units;
        let h = hash(&self.hasher, counts);
        let groups = &u.groups;
        let g = match self.index.find(h, |&g| same(&groups[g as usize].0, counts)) {
            Some(&g) => g,
            None => {
                let g = u.groups.len() as u32;
                let m: f64 = counts.iter().map(|c| c.1).sum();
                u.groups.push((counts.to_vec(), m));
                u.weight.push(0.0);
                let (groups, hasher) = (&u.groups, &self.hasher);
                self.index
                    .insert_unique(h, g, |&k| hash(hasher, &groups[k as usize].0));
                g
            }
        };
        u.weight[g as usize] += 1.0;
        u.unit_group.push(g);
    }
}

/// The coincidence matrix kept as exact pair counts per unit size m: o_ck = Σ_m `P_m[c][k]` /
/// (m − 1). Pair counts of integer ratings are integers, so adding and removing units (the
/// bootstrap, leave-one-annotator-out) is exact, and "no pairable unit" is an exact zero.
#[derive(Debug, Clone)]
pub struct Coincidences {
    v: usize,
    /// Distinct unit sizes m ≥ 2, ascending.
    ms: Vec<f64>,
    /// ms.len() blocks of v × v pair counts.
    p: Vec<f64>,
}

impl Coincidences {
    fn new(v: usize, mut ms: Vec<f64>) -> Coincidences {
        ms.retain(|m| *m >= 2.0);
        ms.sort_by(f64::total_cmp);
        ms.dedup();
        let p = vec![0.0; ms.len() * v * v];
        Coincidences { v, ms, p }
    }

    /// Adds `w` units with these counts (m = their total; `w` may be negative).
    pub fn add(&mut self, counts: &[(u32, f64)], m: f64, w: f64) {
        if m < 2.0 {
            return;
        }
        let b = self
            .ms
            .binary_search_by(|x| x.total_cmp(&m))
            .expect("unit size listed");
        let (v, block) = (
            self.v,
            &mut self.p[b * self.v * self.v..(b + 1) * self.v * self.v],
        );
        for &(c, nc) in counts {
            for &(k, nk) in counts {
                let pairs = if c == k { nc * (nc - 1.0) } else { nc * nk };
                block[c as usize * v + k as usize] += w * pairs;
            }
        }
    }

    /// The coincidence matrix o (v × v).
    fn matrix(&self) -> Vec<f64> {
        let vv = self.v * self.v;
        let mut o = vec![0.0; vv];
        for (b, m) in self.ms.iter().enumerate() {
            for (x, p) in o.iter_mut().zip(&self.p[b * vv..(b + 1) * vv]) {
                *x += p / (m - 1.0);
            }
        }
        o
    }

    /// α over these coincidences (values checked numeric by the caller where needed).
    fn alpha(&self, values: &[Label], level: Level) -> Option<f64> {
        alpha_from_o(&self.matrix(), values, level)
    }
}

fn alpha_from_o(o: &[f64], values: &[Label], level: Level) -> Option<f64> {
    let v = values.len();
    let nc: Vec<f64> = (0..v).map(|c| (0..v).map(|k| o[c * v + k]).sum()).collect();
    let n: f64 = nc.iter().sum();
    if n == 0.0 {
        return None;
    }
    let (mut d_o, mut d_e) = (0.0, 0.0);
    for c in 0..v {
        for k in 0..v {
            if c == k {
                continue;
            }
            let d = delta2(level, c, k, values, &nc).expect("numeric values checked");
            d_o += o[c * v + k] * d;
            d_e += nc[c] * nc[k] * d;
        }
    }
    if d_e == 0.0 {
        return None;
    }
    Some(1.0 - (n - 1.0) * d_o / d_e)
}

/// α, or `None` when it is undefined (0/0: no pairable unit, or one value only).
pub fn alpha_counts(u: &UnitCounts, level: Level) -> Result<Option<f64>, AlphaError> {
    alpha_units(&Units::from_counts(u), level)
}

/// α over grouped units.
pub fn alpha_units(u: &Units, level: Level) -> Result<Option<f64>, AlphaError> {
    u.check(level)?;
    Ok(u.coincidences().alpha(&u.values, level))
}

/// α of annotators × items ratings, or `None` when it is undefined (0/0).
pub fn alpha(m: &Matrix, level: Level) -> Result<Option<f64>, AlphaError> {
    alpha_counts(&UnitCounts::from_matrix(m), level)
}

/// α without each annotator in turn (`None` where undefined): the full coincidences minus,
/// for each unit the annotator rated, that unit plus the unit without the annotator's
/// rating. That change depends only on the unit's group and the annotator's value, so one
/// pass over the items in order counts, per annotator, its ratings by (group, value), and
/// each annotator's coincidences are the full ones plus a change per distinct (group,
/// value), weighted by its count (pair counts are integers, so this is exact: the same
/// figures as a unit at a time). Costs one pass over the ratings, a sort of each
/// annotator's keys, and a v × v matrix per annotator.
pub fn alpha_leave_one_out(
    t: &Table,
    u: &Units,
    level: Level,
) -> Result<Vec<Option<f64>>, AlphaError> {
    u.check(level)?;
    let full = u.coincidences();
    let na = t.annotators.len();
    // Per annotator, its (group << 32 | value) keys, filled in item order.
    let mut start = vec![0usize; na + 1];
    for a in t.labels_per_annotator().iter().enumerate() {
        start[a.0 + 1] = start[a.0] + a.1;
    }
    let mut fill = start[..na].to_vec();
    let mut keys = vec![0u64; t.len()];
    for (i, &g) in u.unit_group.iter().enumerate() {
        for c in t.item(i) {
            let a = c.annotator as usize;
            keys[fill[a]] = (u64::from(g) << 32) | u64::from(c.value);
            fill[a] += 1;
        }
    }
    drop(fill);
    let mut out = Vec::with_capacity(na);
    let mut less: Vec<(u32, f64)> = Vec::new();
    for a in 0..na {
        let mine = &mut keys[start[a]..start[a + 1]];
        mine.sort_unstable();
        let mut c = full.clone();
        for run in mine.chunk_by(|x, y| x == y) {
            let (g, v) = ((run[0] >> 32) as usize, run[0] as u32);
            let w = run.len() as f64;
            let (counts, m) = &u.groups[g];
            c.add(counts, *m, -w);
            less.clear();
            less.extend(counts.iter().filter_map(|&(k, n)| {
                let n = if k == v { n - 1.0 } else { n };
                (n > 0.0).then_some((k, n))
            }));
            c.add(&less, m - 1.0, w);
        }
        out.push(c.alpha(&u.values, level));
    }
    Ok(out)
}

/// A seeded bootstrap interval for α: units resampled with replacement `reps` times
/// (ChaCha8 from `seed`, so the interval is the same on every machine); the `level`
/// (e.g. 0.95) central interval of the defined replicates.
pub fn bootstrap_ci(
    u: &UnitCounts,
    level: Level,
    reps: usize,
    conf: f64,
    seed: u64,
) -> Result<Option<(f64, f64)>, AlphaError> {
    bootstrap_units(&Units::from_counts(u), level, reps, conf, seed)
}

/// [`bootstrap_ci`] over grouped units. α of a replicate depends only on how many times
/// each group was drawn, and drawing `n` of the `n` pairable units uniformly with replacement
/// gives those counts exactly Multinomial(n, w_g / n) (w_g = the group's pairable units):
/// each replicate draws them as conditional binomials (ChaCha8 from `seed`, rand_distr's
/// `Binomial`), one per group, then adds each group's coincidences that many times. The cost
/// per replicate is a few draws per group, not one per unit.
pub fn bootstrap_units(
    u: &Units,
    level: Level,
    reps: usize,
    conf: f64,
    seed: u64,
) -> Result<Option<(f64, f64)>, AlphaError> {
    u.check(level)?;
    Ok(interval(bootstrap_replicates(u, level, reps, seed), conf))
}

/// The defined α of `reps` bootstrap replicates (see [`bootstrap_units`]), in draw order.
pub fn bootstrap_replicates(u: &Units, level: Level, reps: usize, seed: u64) -> Vec<f64> {
    // Pairable units per group: a group is pairable (m ≥ 2) or not as a whole.
    let drawn: Vec<(usize, u64)> = u
        .groups
        .iter()
        .zip(&u.weight)
        .enumerate()
        .filter(|(_, ((_, m), _))| *m >= 2.0)
        .map(|(g, (_, w))| (g, *w as u64))
        .collect();
    let n: u64 = drawn.iter().map(|d| d.1).sum();
    if n == 0 || reps == 0 {
        return Vec::new();
    }
    let mut rng = rand::rngs::ChaCha8Rng::seed_from_u64(seed);
    let mut stats = Vec::with_capacity(reps);
    let empty = u.coincidences();
    let mut c = empty.clone();
    for _ in 0..reps {
        c.p.iter_mut().for_each(|x| *x = 0.0);
        let (mut left, mut left_w) = (n, n);
        for &(g, w) in &drawn {
            let t = if w == left_w {
                left
            } else if left == 0 {
                0
            } else {
                Binomial::new(left, w as f64 / left_w as f64)
                    .expect("0 < w < left_w: a probability")
                    .sample(&mut rng)
            };
            (left, left_w) = (left - t, left_w - w);
            if t > 0 {
                let (counts, m) = &u.groups[g];
                c.add(counts, *m, t as f64);
            }
        }
        if let Some(a) = c.alpha(&u.values, level) {
            stats.push(a);
        }
    }
    stats
}

/// The `conf` central interval of bootstrap replicates (`None` when there are none).
fn interval(mut stats: Vec<f64>, conf: f64) -> Option<(f64, f64)> {
    if stats.is_empty() {
        return None;
    }
    stats.sort_by(f64::total_cmp);
    let q = |p: f64| stats[((p * (stats.len() - 1) as f64).round() as usize).min(stats.len() - 1)];
    let tail = (1.0 - conf) / 2.0;
    Some((q(tail), q(1.0 - tail)))
}

#[cfg(test)]
mod tests;
