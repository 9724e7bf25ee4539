//! `nli select`: cross-fitted hypothesis-only scores and the dev/test pool.

use kcurate_core::hash::seeded_u64;
use kcurate_toxicity::linear::{Linear, TrainConfig};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The class order the release card declares (`ClassLabel`) is this one.
pub const LABELS: [&str; 3] = kcurate_core::recipe::NLI_LABELS;

/// One NLI pair as `nli select` and `nli artifacts` read it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Pair {
    /// The pair's id.
    pub id: String,
    /// The premise; pairs sharing it form one group.
    pub premise: String,
    /// The hypothesis, the only text the hypothesis-only model reads.
    pub hypothesis: String,
    /// The gold label, one of [`LABELS`].
    pub label: String,
    /// The pair's source, when the input names one.
    #[serde(default)]
    pub source: Option<String>,
}

/// One pair's hypothesis-only score, as `nli select` writes it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Scored {
    /// The pair's id.
    pub id: String,
    /// H(uniform, prediction), 6 decimals.
    pub ce: f64,
    /// The premise set (group) id.
    pub group: String,
    /// Whether its group is among the lowest mean CE (the dev/test pool).
    pub selected: bool,
    /// The hypothesis-only prediction (for accuracy figures), not written by `nli select`.
    #[serde(skip)]
    pub predicted: String,
}

fn r6(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}

/// Premise set id: a stable hash of the premise text.
pub fn group_of(premise: &str) -> String {
    format!("p{:016x}", seeded_u64(0, premise.as_bytes()))
}

/// H(u, p) for the uniform u over the classes.
pub fn ce_uniform(p: &[f64]) -> f64 {
    -p.iter().map(|x| x.max(1e-12).ln()).sum::<f64>() / p.len() as f64
}

/// Cross-fitted probabilities: `k` folds by premise group, assigned by a seeded hash of
/// the group id, so the folds do not depend on input order.
pub fn cross_fit(pairs: &[Pair], k: usize, seed: u64, cfg: &TrainConfig) -> Vec<Vec<f64>> {
    let fold: Vec<usize> = pairs
        .iter()
        .map(|p| (seeded_u64(seed, group_of(&p.premise).as_bytes()) % k as u64) as usize)
        .collect();
    let labels: Vec<String> = LABELS.iter().map(|s| s.to_string()).collect();
    let mut probs = vec![Vec::new(); pairs.len()];
    for f in 0..k {
        let (texts, targets): (Vec<&str>, Vec<usize>) = pairs
            .iter()
            .zip(&fold)
            .filter(|(p, x)| **x != f && LABELS.contains(&p.label.as_str()))
            .map(|(p, _)| {
                (
                    p.hypothesis.as_str(),
                    LABELS.iter().position(|l| *l == p.label).expect("checked"),
                )
            })
            .unzip();
        let model = Linear::train(
            &texts,
            &targets,
            labels.clone(),
            &TrainConfig {
                seed: seed ^ f as u64,
                ..cfg.clone()
            },
        );
        for (i, p) in pairs.iter().enumerate() {
            if fold[i] == f {
                probs[i] = model.predict_proba(&p.hypothesis);
            }
        }
    }
    probs
}

/// Scores every pair and selects the `share` of premise sets with the lowest mean CE.
/// `probs` replaces the built-in model (imported `p_entailment, p_neutral, p_contradiction`).
pub fn select(
    pairs: &[Pair],
    probs: Option<&BTreeMap<String, [f64; 3]>>,
    share: f64,
    k: usize,
    seed: u64,
) -> Result<Vec<Scored>, SelectError> {
    let p: Vec<Vec<f64>> = match probs {
        Some(map) => pairs
            .iter()
            .map(|x| {
                map.get(&x.id)
                    .map(|v| v.to_vec())
                    .ok_or_else(|| SelectError::NoProbs(x.id.clone()))
            })
            .collect::<Result<_, _>>()?,
        None => cross_fit(
            pairs,
            k,
            seed,
            &TrainConfig {
                ngram_max: 3,
                ..TrainConfig::default()
            },
        ),
    };
    let ce: Vec<f64> = p.iter().map(|x| r6(ce_uniform(x))).collect();
    let mut groups: BTreeMap<String, (f64, usize)> = BTreeMap::new();
    for (x, c) in pairs.iter().zip(&ce) {
        let g = groups.entry(group_of(&x.premise)).or_insert((0.0, 0));
        g.0 += c;
        g.1 += 1;
    }
    let mut order: Vec<(f64, String)> = groups
        .iter()
        .map(|(g, (s, n))| (r6(s / *n as f64), g.clone()))
        .collect();
    order.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let take = ((order.len() as f64) * share).round() as usize;
    let chosen: std::collections::BTreeSet<String> =
        order.into_iter().take(take).map(|(_, g)| g).collect();
    Ok(pairs
        .iter()
        .zip(ce.iter().zip(&p))
        .map(|(x, (c, pr))| {
            let g = group_of(&x.premise);
            let best = (0..3).fold(0, |b, i| if pr[i] > pr[b] { i } else { b });
            Scored {
                id: x.id.clone(),
                ce: *c,
                selected: chosen.contains(&g),
                group: g,
                predicted: LABELS[best].to_string(),
            }
        })
        .collect())
}

/// Why hypothesis-only selection or reading imported probabilities failed.
#[derive(Debug, thiserror::Error)]
pub enum SelectError {
    /// A pair's id is missing from the imported probabilities.
    #[error("no imported probabilities for id {0:?}")]
    NoProbs(String),
    /// The probabilities file cannot be read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// A line is not JSON.
    #[error("{path}:{line}: not JSON: {message}")]
    Json {
        /// The file.
        path: String,
        /// 1-based line.
        line: usize,
        /// The parser's message.
        message: String,
    },
    /// A field is missing or of the wrong type.
    #[error("{path}:{line}: {field}: missing or not a {expected}")]
    Field {
        /// The file.
        path: String,
        /// 1-based line.
        line: usize,
        /// `id`, `p_entailment`, `p_neutral` or `p_contradiction`.
        field: &'static str,
        /// `string` or `number`.
        expected: &'static str,
    },
}

/// Reads imported probabilities, `{"id","p_entailment","p_neutral","p_contradiction"}` JSONL
/// (gzip or zstd too; through core's [`kcurate_core::jsonl`] reader);
/// an error names file:line and the field.
pub fn read_probs(path: &std::path::Path) -> Result<BTreeMap<String, [f64; 3]>, SelectError> {
    use kcurate_core::jsonl::values;
    let shown = path.display().to_string();
    let mut m = BTreeMap::new();
    for item in values(path).map_err(SelectError::from)? {
        let (line, v) = item?;
        let field = |field: &'static str, expected: &'static str| SelectError::Field {
            path: shown.clone(),
            line,
            field,
            expected,
        };
        let num = |k: &'static str| v[k].as_f64().ok_or_else(|| field(k, "number"));
        let id = v["id"].as_str().ok_or_else(|| field("id", "string"))?;
        m.insert(
            id.to_string(),
            [
                num("p_entailment")?,
                num("p_neutral")?,
                num("p_contradiction")?,
            ],
        );
    }
    Ok(m)
}

// The probabilities' fields are checked here ([`SelectError::Field`]), not by the reader; a
// field error of the reader still names its file, line and field.
impl From<kcurate_core::jsonl::JsonlError> for SelectError {
    fn from(e: kcurate_core::jsonl::JsonlError) -> Self {
        use kcurate_core::jsonl::JsonlFault;
        match e.into_fault() {
            JsonlFault::Unreadable { path, source, .. } => SelectError::Io { path, source },
            JsonlFault::Line {
                path,
                line,
                message,
            } => SelectError::Json {
                path,
                line,
                message,
            },
        }
    }
}

/// Hypothesis-only accuracy over all pairs and over the selected ones.
pub fn accuracy(pairs: &[Pair], scored: &[Scored]) -> (f64, f64, usize) {
    let (mut all, mut sel, mut nsel) = (0usize, 0usize, 0usize);
    for (p, s) in pairs.iter().zip(scored) {
        let ok = p.label == s.predicted;
        all += usize::from(ok);
        if s.selected {
            nsel += 1;
            sel += usize::from(ok);
        }
    }
    (
        all as f64 / pairs.len().max(1) as f64,
        sel as f64 / nsel.max(1) as f64,
        nsel,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair(i: usize, premise: &str, hyp: &str, label: &str) -> Pair {
        Pair {
            id: format!("x{i}"),
            premise: premise.into(),
            hypothesis: hyp.into(),
            label: label.into(),
            source: None,
        }
    }

    #[test]
    fn a_premise_set_is_selected_whole_and_reruns_are_identical() {
        let mut v = Vec::new();
        for g in 0..20 {
            let p = format!("전제 문장 {g}번이다.");
            v.push(pair(3 * g, &p, &format!("{g} 문장이 있다."), "entailment"));
            v.push(pair(
                3 * g + 1,
                &p,
                &format!("{g} 문장이 없다."),
                "contradiction",
            ));
            v.push(pair(
                3 * g + 2,
                &p,
                &format!("{g} 문장은 길 수도 있다."),
                "neutral",
            ));
        }
        let a = select(&v, None, 0.2, 5, 7).unwrap();
        assert_eq!(a, select(&v, None, 0.2, 5, 7).unwrap());
        let mut by_group: BTreeMap<&str, Vec<bool>> = BTreeMap::new();
        for s in &a {
            by_group.entry(&s.group).or_default().push(s.selected);
        }
        assert!(
            by_group.values().all(|v| v.iter().all(|x| *x == v[0])),
            "a premise set straddles"
        );
        assert_eq!(
            by_group.values().filter(|v| v[0]).count(),
            4,
            "20% of 20 sets"
        );
    }
}
