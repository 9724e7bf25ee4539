//! Which of the flips a SentiNeg release keeps: flips of one direction dominate a corpus
//! whose ratings lean positive (most flips then make negative sentences), and one predicate
//! can fill much of a release (재밌다 → 재미없다). [`select`] keeps no label above a share
//! of the rows and no predicate above a share: each predicate's flips past the cap, and the
//! larger side's flips past the balance, are cut in a seeded order, so what is dropped is
//! spread.

use std::collections::BTreeMap;

/// One flip on offer: its label after the flip and the predicate it made.
#[derive(Debug, Clone)]
pub struct Offer {
    /// The record's id (orders flips by a seeded hash).
    pub id: String,
    /// The label after the flip.
    pub label: String,
    /// The predicate the flip made, as a key ([`predicate_key`]).
    pub key: String,
}

/// Why a flip was not kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cut {
    /// Its label would be over `max_label_share` of the rows.
    Balance,
    /// Its predicate would be over `max_predicate_share` of the rows.
    Predicate,
}

fn fnv(seed: u64, s: &str) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64 ^ seed;
    for b in s.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// The predicate a flip made, as a key for the cap: the stem of the final word (재미없었다 →
/// 재미없) with the words before it in the predicate (안 좋았다 → 안 좋; 좋지 않았다 →
/// 좋지 않).
pub fn predicate_key(predicate: &str, stem_of: impl Fn(&str) -> Option<String>) -> String {
    let words: Vec<&str> = predicate.split_whitespace().collect();
    let Some((last, before)) = words.split_last() else {
        return String::new();
    };
    let stem = stem_of(last).unwrap_or_else(|| last.to_string());
    before
        .iter()
        .copied()
        .chain(std::iter::once(stem.as_str()))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Indices of `offers` to keep (ascending), and the cut of every other one.
pub fn select(
    offers: &[Offer],
    seed: u64,
    max_label_share: f64,
    max_predicate_share: f64,
) -> (Vec<usize>, BTreeMap<usize, Cut>) {
    let mut kept: Vec<bool> = vec![true; offers.len()];
    let mut cut: BTreeMap<usize, Cut> = BTreeMap::new();
    // Each pass only removes flips, so it ends; two or three passes settle it in practice.
    loop {
        let before = cut.len();
        cap_predicates(offers, seed, max_predicate_share, &mut kept, &mut cut);
        balance(
            offers,
            seed,
            (max_label_share, max_predicate_share),
            &mut kept,
            &mut cut,
        );
        if cut.len() == before {
            break;
        }
    }
    let keep = (0..offers.len()).filter(|i| kept[*i]).collect();
    (keep, cut)
}

/// Kept indices of `label` (or of every label with None), grouped by key, each group in
/// seeded order.
fn groups(
    offers: &[Offer],
    seed: u64,
    kept: &[bool],
    label: Option<&str>,
) -> BTreeMap<String, Vec<usize>> {
    let mut g: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (i, o) in offers.iter().enumerate() {
        if kept[i] && label.is_none_or(|l| l == o.label) {
            g.entry(o.key.clone()).or_default().push(i);
        }
    }
    for v in g.values_mut() {
        v.sort_by_key(|i| (fnv(seed, &offers[*i].id), *i));
    }
    g
}

fn cap_predicates(
    offers: &[Offer],
    seed: u64,
    share: f64,
    kept: &mut [bool],
    cut: &mut BTreeMap<usize, Cut>,
) {
    let total = kept.iter().filter(|k| **k).count();
    // At least one of each predicate, so a small release is not emptied.
    let cap = ((share * total as f64).floor() as usize).max(1);
    for v in groups(offers, seed, kept, None).values() {
        for i in v.iter().skip(cap) {
            kept[*i] = false;
            cut.insert(*i, Cut::Predicate);
        }
    }
}

fn balance(
    offers: &[Offer],
    seed: u64,
    (share, predicate_share): (f64, f64),
    kept: &mut [bool],
    cut: &mut BTreeMap<usize, Cut>,
) {
    let mut by_label: BTreeMap<&str, usize> = BTreeMap::new();
    for (i, o) in offers.iter().enumerate() {
        if kept[i] {
            *by_label.entry(o.label.as_str()).or_default() += 1;
        }
    }
    let total: usize = by_label.values().sum();
    let Some((&big, &n)) = by_label
        .iter()
        .max_by_key(|(l, n)| (**n, std::cmp::Reverse(**l)))
    else {
        return;
    };
    if share >= 1.0 || (n as f64) <= share * total as f64 {
        return;
    }
    // The most of the larger label that stays within the share: n' / (rest + n') <= share.
    let rest = total - n;
    let allowed = ((share * rest as f64) / (1.0 - share)).floor() as usize;
    // The larger label's flips in the seeded order, whatever their predicate: a round-robin
    // over predicates would cut the most repeated one (재미없, made by the antonym flips that
    // read right) far below its cap, which alone limits repeats.
    let mut order: Vec<usize> = (0..offers.len())
        .filter(|i| kept[*i] && offers[*i].label == big)
        .collect();
    order.sort_by_key(|i| (fnv(seed, &offers[*i].id), *i));
    // Each predicate keeps at most its cap of the release the balance aims at, so the cut
    // does not leave one predicate over its cap and the next pass of the cap shrink the
    // release (and the smaller side with it) again.
    let cap = ((predicate_share * (allowed + rest) as f64).floor() as usize).max(1);
    let mut per_key: BTreeMap<&str, usize> = BTreeMap::new();
    let mut taken = 0;
    for i in order {
        let k = per_key.entry(offers[i].key.as_str()).or_default();
        if taken < allowed && *k < cap {
            *k += 1;
            taken += 1;
        } else {
            kept[i] = false;
            let why = if taken < allowed {
                Cut::Predicate
            } else {
                Cut::Balance
            };
            cut.insert(i, why);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn offer(i: usize, label: &str, key: &str) -> Offer {
        Offer {
            id: format!("r{i}"),
            label: label.into(),
            key: key.into(),
        }
    }

    #[test]
    fn no_label_or_predicate_over_its_share() {
        let mut o = Vec::new();
        for i in 0..60 {
            o.push(offer(
                i,
                "negative",
                if i < 30 { "재미없" } else { "안 좋" },
            ));
        }
        for i in 60..70 {
            o.push(offer(i, "positive", &format!("p{i}")));
        }
        let (keep, cut) = select(&o, 7, 0.6, 0.25);
        assert_eq!(keep.len() + cut.len(), o.len());
        let neg = keep.iter().filter(|i| o[**i].label == "negative").count();
        assert!(
            neg as f64 <= 0.6 * keep.len() as f64,
            "{neg} of {}",
            keep.len()
        );
        assert_eq!(keep.len() - neg, 10, "the smaller side is all kept");
        for key in ["재미없", "안 좋"] {
            let k = keep.iter().filter(|i| o[**i].key == key).count();
            assert!(k as f64 <= 0.25 * keep.len() as f64 && k > 0, "{key}: {k}");
        }
        // Deterministic for a seed.
        assert_eq!(select(&o, 7, 0.6, 0.25).0, keep);
        // Shares of 1 keep everything.
        assert_eq!(select(&o, 7, 1.0, 1.0).0.len(), o.len());
    }

    /// The balance cuts the larger side in seeded order, not by predicate: the most repeated
    /// predicate keeps about its share up to the cap, rather than one flip.
    #[test]
    fn the_balance_does_not_cut_the_common_predicate_below_its_cap() {
        let mut o = Vec::new();
        for i in 0..80 {
            let key = if i < 40 {
                "재미없".to_string()
            } else {
                format!("n{i}")
            };
            o.push(offer(i, "negative", &key));
        }
        for i in 80..100 {
            o.push(offer(i, "positive", &format!("p{i}")));
        }
        let (keep, _) = select(&o, 7, 0.6, 0.15);
        let common = keep.iter().filter(|i| o[**i].key == "재미없").count();
        assert!(
            common >= 4 && common as f64 <= 0.15 * keep.len() as f64,
            "재미없 kept {common} of {}",
            keep.len()
        );
    }

    #[test]
    fn the_key_is_the_stem_with_its_negation() {
        let stem = |w: &str| w.strip_suffix("었다").map(String::from);
        assert_eq!(predicate_key("재미없었다", stem), "재미없");
        assert_eq!(predicate_key("안 좋았다", |_| Some("좋".into())), "안 좋");
    }
}
