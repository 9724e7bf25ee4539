//! `nli artifacts`: annotation artefacts in hypotheses (KoBEST's review; Gururangan et al.):
//! the words with the highest PMI for each label, words whose label share passes 70%
//! (flagged), hypothesis-only accuracy on all pairs and on the selected dev/test pool, and
//! hypothesis length by label.

use super::select::{LABELS, Pair, accuracy, select};
use serde::Serialize;
use std::collections::BTreeMap;

/// One (word, label) row of the report.
#[derive(Debug, Clone, Serialize)]
pub struct Token {
    /// The hypothesis word, outer ASCII punctuation trimmed.
    pub token: String,
    /// The label.
    pub label: String,
    /// Hypotheses of this label holding the word (once per hypothesis).
    pub count: usize,
    /// log p(label | token) / p(label).
    pub pmi: f64,
    /// p(label | token).
    pub share: f64,
}

/// What `kcurate nli artifacts` reports (figures rounded to 4 decimals).
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// Pairs read.
    pub pairs: usize,
    /// Per label, the `top` words by PMI (ties: higher count, then the word).
    pub top_pmi: BTreeMap<String, Vec<Token>>,
    /// Words seen at least `min_count` times whose share of one label passes `flag_share`.
    pub flagged: Vec<Token>,
    /// Cross-fitted hypothesis-only accuracy over all pairs (chance 1/3).
    pub hypothesis_only_accuracy_all: f64,
    /// The same over the pairs [`select`] keeps for dev/test (share 0.2).
    pub hypothesis_only_accuracy_selected: f64,
    /// Pairs selected.
    pub selected_pairs: usize,
    /// label → mean hypothesis length in characters.
    pub mean_length: BTreeMap<String, f64>,
}

fn r4(x: f64) -> f64 {
    (x * 1e4).round() / 1e4
}

/// The artefact report over `pairs`: words seen in fewer than `min_count` hypotheses are
/// left out; `seed` seeds the cross-fitting folds.
pub fn report(pairs: &[Pair], min_count: usize, flag_share: f64, top: usize, seed: u64) -> Report {
    let n = pairs.len().max(1) as f64;
    let mut label_n: BTreeMap<&str, usize> = BTreeMap::new();
    let mut tok: BTreeMap<String, BTreeMap<&str, usize>> = BTreeMap::new();
    let mut len: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for p in pairs {
        let Some(l) = LABELS.iter().copied().find(|l| *l == p.label) else {
            continue;
        };
        *label_n.entry(l).or_default() += 1;
        let e = len.entry(l).or_default();
        e.0 += p.hypothesis.chars().count();
        e.1 += 1;
        let mut words: Vec<&str> = p.hypothesis.split_whitespace().collect();
        words.sort_unstable();
        words.dedup();
        for w in words {
            *tok.entry(
                w.trim_matches(|c: char| c.is_ascii_punctuation())
                    .to_string(),
            )
            .or_default()
            .entry(l)
            .or_default() += 1;
        }
    }
    let mut rows: Vec<Token> = Vec::new();
    for (t, by) in &tok {
        let total: usize = by.values().sum();
        if total < min_count || t.is_empty() {
            continue;
        }
        for (l, c) in by {
            let share = *c as f64 / total as f64;
            let prior = label_n.get(l).copied().unwrap_or(0) as f64 / n;
            rows.push(Token {
                token: t.clone(),
                label: l.to_string(),
                count: *c,
                pmi: r4((share / prior).ln()),
                share: r4(share),
            });
        }
    }
    let mut top_pmi: BTreeMap<String, Vec<Token>> = BTreeMap::new();
    for l in LABELS {
        let mut v: Vec<Token> = rows.iter().filter(|r| r.label == l).cloned().collect();
        v.sort_by(|a, b| {
            b.pmi
                .total_cmp(&a.pmi)
                .then(b.count.cmp(&a.count))
                .then(a.token.cmp(&b.token))
        });
        v.truncate(top);
        top_pmi.insert(l.to_string(), v);
    }
    let mut flagged: Vec<Token> = rows
        .iter()
        .filter(|r| r.share > flag_share)
        .cloned()
        .collect();
    flagged.sort_by(|a, b| b.count.cmp(&a.count).then(a.token.cmp(&b.token)));
    let (all, sel, nsel) = match select(pairs, None, 0.2, 5, seed) {
        Ok(s) => accuracy(pairs, &s),
        Err(_) => (0.0, 0.0, 0),
    };
    Report {
        pairs: pairs.len(),
        top_pmi,
        flagged,
        hypothesis_only_accuracy_all: r4(all),
        hypothesis_only_accuracy_selected: r4(sel),
        selected_pairs: nsel,
        mean_length: len
            .into_iter()
            .map(|(l, (c, k))| (l.to_string(), r4(c as f64 / k.max(1) as f64)))
            .collect(),
    }
}

/// The report as the plain text `kcurate nli artifacts` prints.
pub fn render(r: &Report) -> String {
    let mut s = format!(
        "pairs {}\nhypothesis-only accuracy: {:.4} on all, {:.4} on the {} selected dev/test pairs (chance 0.333)\nmean hypothesis length: {}\n",
        r.pairs,
        r.hypothesis_only_accuracy_all,
        r.hypothesis_only_accuracy_selected,
        r.selected_pairs,
        r.mean_length
            .iter()
            .map(|(l, m)| format!("{l} {m:.1}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    for (l, v) in &r.top_pmi {
        s.push_str(&format!("\ntop PMI, {l}:\n"));
        for t in v {
            s.push_str(&format!(
                "  {:<16} pmi {:>7.3}  share {:>5.1}%  n {}\n",
                t.token,
                t.pmi,
                t.share * 100.0,
                t.count
            ));
        }
    }
    s.push_str(&format!(
        "\nflagged (one label > 70% of a word's pairs): {}\n",
        r.flagged.len()
    ));
    for t in r.flagged.iter().take(30) {
        s.push_str(&format!(
            "  {:<16} {:<14} {:>5.1}%  n {}\n",
            t.token,
            t.label,
            t.share * 100.0,
            t.count
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_negation_word_that_marks_contradiction_is_flagged() {
        let mut v = Vec::new();
        for i in 0..12 {
            let (h, l) = match i % 3 {
                0 => (format!("그는 {i}번 문장을 읽었다"), "entailment"),
                1 => (format!("그는 {i}번 문장을 아마 읽었다"), "neutral"),
                _ => (
                    format!("그는 {i}번 문장을 전혀 읽지 않았다"),
                    "contradiction",
                ),
            };
            v.push(Pair {
                id: format!("p{i}"),
                premise: format!("전제 {}", i / 3),
                hypothesis: h,
                label: l.into(),
                source: None,
            });
        }
        let r = report(&v, 3, 0.7, 5, 1);
        assert!(
            r.flagged
                .iter()
                .any(|t| t.token == "전혀" && t.label == "contradiction"),
            "{:?}",
            r.flagged
        );
        assert!(r.flagged.iter().all(|t| t.token != "그는"));
        assert_eq!(r.top_pmi["contradiction"][0].share, 1.0);
    }
}
