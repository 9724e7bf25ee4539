use super::*;

fn nums(rows: &[&[Option<f64>]]) -> Matrix {
    Matrix::new(
        rows.iter()
            .map(|r| r.iter().map(|x| x.map(Label::Num)).collect())
            .collect(),
    )
}

#[test]
fn one_value_only_is_undefined_not_one() {
    let m = nums(&[&[Some(1.0), Some(1.0)], &[Some(1.0), Some(1.0)]]);
    assert_eq!(alpha(&m, Level::Nominal).unwrap(), None);
}

#[test]
fn single_rating_units_do_not_pair() {
    let m = nums(&[
        &[Some(1.0), Some(2.0), Some(5.0)],
        &[Some(1.0), Some(2.0), None],
    ]);
    assert_eq!(alpha(&m, Level::Nominal).unwrap(), Some(1.0));
}

/// The plain bootstrap the multinomial one replaces: per replicate, `n` unit indices
/// drawn uniformly from the `n` pairable units.
fn plain_replicates(u: &Units, level: Level, reps: usize, seed: u64) -> Vec<f64> {
    use rand::RngExt;
    let pairable: Vec<u32> = u
        .unit_group
        .iter()
        .copied()
        .filter(|&g| u.groups[g as usize].1 >= 2.0)
        .collect();
    let n = pairable.len();
    let mut rng = rand::rngs::ChaCha8Rng::seed_from_u64(seed);
    let empty = u.coincidences();
    let mut stats = Vec::new();
    for _ in 0..reps {
        let mut c = empty.clone();
        c.p.iter_mut().for_each(|x| *x = 0.0);
        for _ in 0..n {
            let (counts, m) = &u.groups[pairable[rng.random_range(0..n)] as usize];
            c.add(counts, *m, 1.0);
        }
        stats.extend(c.alpha(&u.values, level));
    }
    stats
}

/// The multinomial bootstrap and the plain one draw α from the same distribution: on a
/// small seeded table (units of 1–5 ratings, 4 values), for each level and several seeds,
/// their replicates' means, 2.5/50/97.5% quantiles and two-sample Kolmogorov–Smirnov
/// distance agree within sampling error (4,000 replicates each).
#[test]
fn multinomial_bootstrap_matches_the_plain_one() {
    use rand::RngExt;
    let mut rng = rand::rngs::ChaCha8Rng::seed_from_u64(11);
    let rows: Vec<Vec<(u32, f64)>> = (0..40)
        .map(|_| {
            let mut row = [0.0; 4];
            // Mostly agreeing ratings around the unit's own value.
            let base = rng.random_range(0..4usize);
            for _ in 0..rng.random_range(1..6) {
                let v = if rng.random::<f64>() < 0.7 {
                    base
                } else {
                    rng.random_range(0..4usize)
                };
                row[v] += 1.0;
            }
            row.iter()
                .enumerate()
                .filter(|(_, n)| **n > 0.0)
                .map(|(k, n)| (k as u32, *n))
                .collect()
        })
        .collect();
    let values: Vec<Label> = (0..4).map(|k| Label::Num(k as f64)).collect();
    let u = Units::from_sparse(values, rows.iter().map(Vec::as_slice));
    let reps = 4_000;
    for level in [Level::Nominal, Level::Interval] {
        for seed in 0..2u64 {
            let mut fast = bootstrap_replicates(&u, level, reps, seed);
            let mut plain = plain_replicates(&u, level, reps, seed + 1000);
            fast.sort_by(f64::total_cmp);
            plain.sort_by(f64::total_cmp);
            assert!(fast.len() > reps * 9 / 10 && plain.len() > reps * 9 / 10);
            let mean = |x: &[f64]| x.iter().sum::<f64>() / x.len() as f64;
            let sd = {
                let m = mean(&plain);
                (plain.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / plain.len() as f64).sqrt()
            };
            assert!(
                sd > 0.01,
                "{level:?} seed {seed}: a spread to compare ({sd})"
            );
            // Difference of two means of 4,000: standard error sd·√(2/4000) ≈ 0.022·sd.
            let (mf, mp) = (mean(&fast), mean(&plain));
            assert!(
                (mf - mp).abs() < 0.1 * sd,
                "{level:?} seed {seed}: mean {mf} vs {mp} (sd {sd})"
            );
            let q = |x: &[f64], p: f64| x[(p * (x.len() - 1) as f64).round() as usize];
            for p in [0.025, 0.5, 0.975] {
                assert!(
                    (q(&fast, p) - q(&plain, p)).abs() < 0.2 * sd,
                    "{level:?} seed {seed}: quantile {p}: {} vs {} (sd {sd})",
                    q(&fast, p),
                    q(&plain, p)
                );
            }
            // KS distance: the 0.1% critical value for 4,000 vs 4,000 is 1.95·√(2/4000).
            let ecdf = |x: &[f64], t: f64| x.partition_point(|v| *v <= t) as f64 / x.len() as f64;
            let d = fast
                .iter()
                .chain(&plain)
                .map(|&t| (ecdf(&fast, t) - ecdf(&plain, t)).abs())
                .fold(0.0, f64::max);
            assert!(d < 0.0436, "{level:?} seed {seed}: KS distance {d}");
        }
    }
}

#[test]
fn bootstrap_is_seeded() {
    let m = nums(&[
        &[Some(1.0), Some(2.0), Some(3.0), Some(4.0)],
        &[Some(1.0), Some(2.0), Some(4.0), Some(4.0)],
    ]);
    let u = UnitCounts::from_matrix(&m);
    let a = bootstrap_ci(&u, Level::Interval, 200, 0.95, 7).unwrap();
    assert_eq!(a, bootstrap_ci(&u, Level::Interval, 200, 0.95, 7).unwrap());
    let (lo, hi) = a.unwrap();
    assert!(lo <= hi);
}
