//! The two-head toxicity model: gender bias (`bias == gender`) and hate (hate / offensive /
//! none), trained from the Korean hate speech dataset's TSV (`comments, contain_gender_bias,
//! bias, hate`). The file is versioned and carries the sha256 of its training data.

use crate::linear::{Linear, TrainConfig};
use kcurate_core::hash::sha256_hex;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The `format` of a model file's header line; any other file is refused.
pub const FORMAT: &str = "kcurate-toxicity-model";
/// The model file version this build reads and writes.
pub const VERSION: u32 = 1;
/// The hate head's classes, the dataset's `hate` column values; [`Example::hate`] indexes it.
pub const HATE_LABELS: [&str; 3] = ["none", "offensive", "hate"];
/// The gender-bias head's classes (`bias == gender` in the dataset).
pub const GENDER_LABELS: [&str; 2] = ["none", "gender"];

/// Reading training data or a model file failed.
#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    /// A file cannot be read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// A training row is wrong (an unknown label, a missing column, bad JSON).
    #[error("{path}:{line}: {field}: {message}")]
    Data {
        /// The file (`-` for stdin).
        path: String,
        /// 1-based line.
        line: u64,
        /// The column or JSON field.
        field: String,
        /// What is wrong.
        message: String,
    },
    /// A JSONL side input cannot be read or a line of it is not JSON.
    #[error(transparent)]
    Jsonl(#[from] kcurate_core::jsonl::JsonlError),
    /// The file is not a kcurate toxicity model of this version.
    #[error("{path}: {message}")]
    Format {
        /// The model file.
        path: String,
        /// What is wrong.
        message: String,
    },
    /// One of the two heads inside the model file is not a linear model.
    #[error("{path}: {source}")]
    Head {
        /// The model file.
        path: String,
        /// What is wrong with the head.
        source: crate::linear::LinearFormatError,
    },
}

/// The training settings of the built-in toxicity model: [`TrainConfig::default`] (character
/// 1–2-grams), or with `balanced` class weights and stronger L2 (1e-3). Gender bias is 1
/// comment in 7 of the hate speech data; balanced, its head finds more of it: 5-fold CV on
/// the labelled split (seed 42) gender-bias F1 0.586 → 0.630, hate macro F1 0.565 → 0.566.
/// Balanced scores are not calibrated to that prior (more text reaches 0.5, most of all
/// when the training set is small), so KLUE's thresholds keep the unweighted model.
pub fn train_config(seed: u64, balanced: bool) -> TrainConfig {
    if balanced {
        TrainConfig {
            balanced: true,
            l2: 1e-3,
            seed,
            ..TrainConfig::default()
        }
    } else {
        TrainConfig {
            seed,
            ..TrainConfig::default()
        }
    }
}

/// Which features and solver the stage and `toxicity train` use.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Features {
    /// Hashed character 1–2-grams, AdaGrad SGD ([`train_config`]): small and fast, less
    /// accurate.
    Hashed,
    /// char_wb 1–3 tf-idf with sublinear tf, L2 logistic regression C = 4 with balanced
    /// class weights, L-BFGS to convergence ([`tfidf_config`]). The default: on 5-fold CV of
    /// the hate speech data it is at least as good as scikit-learn's baseline on both heads.
    #[default]
    CharWb,
}

/// The tf-idf model: `TfidfVectorizer(analyzer="char_wb", ngram_range=(1, 3),
/// sublinear_tf=True)` + `LogisticRegression(C=4, class_weight="balanced")`, solved to
/// convergence (gradient ≤ 1e-4). Full-batch and single-threaded: the seed does not reach
/// it. 5-fold CV (seed 42) of the labelled split: gender-bias F1 0.6803, hate macro F1
/// 0.5764; with plain tf 0.6744 / 0.5714. scikit-learn 1.5.2 on the same folds
/// (bench/toxicity_baseline.py): the plain-tf C = 4 balanced recipe (`--issue19`, default
/// max_iter) 0.6728 / 0.5723; sublinear tf, C = 1, unweighted 0.4507 / 0.5616.
pub fn tfidf_config() -> TrainConfig {
    TrainConfig {
        analyzer: crate::linear::Analyzer::CharWb,
        ngram_min: 1,
        ngram_max: 3,
        tfidf: true,
        sublinear_tf: true,
        balanced: true,
        c: Some(4.0),
        max_iter: Some(1000),
        ..TrainConfig::default()
    }
}

/// The training settings of `features`.
pub fn config_for(features: Features, seed: u64, balanced: bool) -> TrainConfig {
    match features {
        Features::Hashed => train_config(seed, balanced),
        Features::CharWb => tfidf_config(),
    }
}

/// One labelled comment.
#[derive(Debug, Clone, PartialEq)]
pub struct Example {
    /// The comment.
    pub text: String,
    /// Labelled gender bias (`bias == gender`).
    pub gender: bool,
    /// Index into [`HATE_LABELS`].
    pub hate: usize,
}

/// A training file's bytes with their sha256 (the data a model names), and its path as
/// errors show it.
pub(crate) struct HashedFile {
    pub(crate) shown: String,
    pub(crate) bytes: Vec<u8>,
    pub(crate) sha: String,
}

impl HashedFile {
    /// Reads the whole file at `path`; an unreadable file is a [`ModelError::Io`].
    pub(crate) fn read(path: &Path) -> Result<Self, ModelError> {
        let shown = path.display().to_string();
        let bytes = std::fs::read(path).map_err(|e| ModelError::Io {
            path: shown.clone(),
            source: e,
        })?;
        let sha = sha256_hex(&bytes);
        Ok(HashedFile { shown, bytes, sha })
    }
}

/// Reads the hate speech TSV. Rows with unknown labels are errors naming file:line:field.
pub fn read_tsv(path: &Path) -> Result<(Vec<Example>, String), ModelError> {
    let HashedFile { shown, bytes, sha } = HashedFile::read(path)?;
    let mut rdr = csv::ReaderBuilder::new()
        .delimiter(b'\t')
        .quoting(false)
        .flexible(true)
        // Lines numbered by the file's own lines (the csv crate's `line()` skips blank ones).
        .from_reader(
            kcurate_core::lines::BoundedLines::new(bytes.as_slice(), usize::MAX).numbering_lines(),
        );
    let headers: Vec<String> = rdr
        .headers()
        .map_err(|e| ModelError::Format {
            path: shown.clone(),
            message: e.to_string(),
        })?
        .iter()
        .map(String::from)
        .collect();
    let col = |n: &str| {
        headers
            .iter()
            .position(|h| h.trim_start_matches('\u{feff}') == n)
    };
    let (Some(ct), Some(cb), Some(ch)) = (col("comments"), col("bias"), col("hate")) else {
        return Err(ModelError::Format {
            path: shown,
            message: "the header must name comments, bias and hate".into(),
        });
    };
    let mut out = Vec::new();
    let mut r = csv::StringRecord::new();
    while rdr.read_record(&mut r).map_err(|e| ModelError::Format {
        path: shown.clone(),
        message: e.to_string(),
    })? {
        let line = r.position().map_or(0, |p| rdr.get_mut().line_at(p.byte()));
        let field = |i: usize, name: &str| {
            r.get(i).map(str::trim).ok_or_else(|| ModelError::Data {
                path: shown.clone(),
                line,
                field: name.into(),
                message: "missing field".into(),
            })
        };
        let text = field(ct, "comments")?.to_string();
        let bias = field(cb, "bias")?;
        let hate = field(ch, "hate")?;
        let hate = HATE_LABELS
            .iter()
            .position(|h| *h == hate)
            .ok_or_else(|| ModelError::Data {
                path: shown.clone(),
                line,
                field: "hate".into(),
                message: format!("unknown label {hate:?} (none, offensive, hate)"),
            })?;
        if !["gender", "others", "none"].contains(&bias) {
            return Err(ModelError::Data {
                path: shown.clone(),
                line,
                field: "bias".into(),
                message: format!("unknown label {bias:?} (gender, others, none)"),
            });
        }
        out.push(Example {
            text,
            gender: bias == "gender",
            hate,
        });
    }
    Ok((out, sha))
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct Header {
    format: String,
    version: u32,
    training_data_sha256: String,
    examples: usize,
}

/// The two heads and where they came from; [`ToxicityModel::score`] scores a text.
pub struct ToxicityModel {
    /// Gender bias head over [`GENDER_LABELS`].
    pub gender: Linear,
    /// Hate head over [`HATE_LABELS`].
    pub hate: Linear,
    /// sha256 of the training file, so a release can name the data its filter learnt from.
    pub training_data_sha256: String,
    /// Number of training examples.
    pub examples: usize,
    /// Both heads read the same features (same config and vocabulary): computed once.
    shared_features: bool,
}

/// Scores of one text.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Scores {
    /// P(gender bias).
    pub gender_bias: f64,
    /// P(hate).
    pub hate: f64,
}

impl ToxicityModel {
    /// Trains both heads on `data` with one config; `sha` is the training file's sha256.
    pub fn train(data: &[Example], sha: String, cfg: &TrainConfig) -> ToxicityModel {
        let texts: Vec<&str> = data.iter().map(|e| e.text.as_str()).collect();
        let g: Vec<usize> = data.iter().map(|e| usize::from(e.gender)).collect();
        let h: Vec<usize> = data.iter().map(|e| e.hate).collect();
        ToxicityModel {
            gender: Linear::train(
                &texts,
                &g,
                GENDER_LABELS.iter().map(|s| s.to_string()).collect(),
                cfg,
            ),
            hate: Linear::train(
                &texts,
                &h,
                HATE_LABELS.iter().map(|s| s.to_string()).collect(),
                cfg,
            ),
            training_data_sha256: sha,
            examples: data.len(),
            shared_features: true,
        }
    }

    /// P(gender bias) and P(hate) of `text`, each in [0, 1].
    pub fn score(&self, text: &str) -> Scores {
        let f = self.gender.featurise(text);
        // Heads trained on the same texts with one config share features (and vocabulary).
        let hate = if self.shared_features {
            self.hate.predict_proba_features(&f)
        } else {
            self.hate.predict_proba(text)
        };
        Scores {
            gender_bias: self.gender.predict_proba_features(&f)[1],
            hate: hate[2],
        }
    }

    /// The model file: a header line (format, version, data sha256), then both heads.
    pub fn to_bytes(&self) -> Vec<u8> {
        let h = Header {
            format: FORMAT.into(),
            version: VERSION,
            training_data_sha256: self.training_data_sha256.clone(),
            examples: self.examples,
        };
        let mut out = serde_json::to_vec(&h).expect("header serialises");
        out.push(b'\n');
        out.extend(self.gender.to_bytes());
        out.extend(self.hate.to_bytes());
        out
    }

    /// Reads a model file [`ToxicityModel::to_bytes`] wrote; refuses other formats and
    /// versions.
    pub fn load(path: &Path) -> Result<ToxicityModel, ModelError> {
        let shown = path.display().to_string();
        let b = std::fs::read(path).map_err(|e| ModelError::Io {
            path: shown.clone(),
            source: e,
        })?;
        let bad = |m: String| ModelError::Format {
            path: shown.clone(),
            message: m,
        };
        let nl = b
            .iter()
            .position(|&c| c == b'\n')
            .ok_or_else(|| bad("not a kcurate toxicity model".into()))?;
        let h: Header = serde_json::from_slice(&b[..nl])
            .map_err(|e| bad(format!("not a kcurate toxicity model: {e}")))?;
        if h.format != FORMAT || h.version != VERSION {
            return Err(bad(format!(
                "model format {} v{} (this kcurate reads {FORMAT} v{VERSION})",
                h.format, h.version
            )));
        }
        let head = |source| ModelError::Head {
            path: shown.clone(),
            source,
        };
        let (gender, n1) = Linear::from_bytes(&b[nl + 1..]).map_err(head)?;
        let (hate, _) = Linear::from_bytes(&b[nl + 1 + n1..]).map_err(head)?;
        Ok(ToxicityModel {
            shared_features: gender.config == hate.config && gender.vocab == hate.vocab,
            gender,
            hate,
            training_data_sha256: h.training_data_sha256,
            examples: h.examples,
        })
    }
}

/// Binary ROC-AUC (ties count half), from scores and labels.
pub fn roc_auc(scores: &[f64], positive: &[bool]) -> Option<f64> {
    let mut idx: Vec<usize> = (0..scores.len()).collect();
    idx.sort_by(|&a, &b| scores[a].total_cmp(&scores[b]));
    let (np, nn) = (
        positive.iter().filter(|p| **p).count(),
        positive.iter().filter(|p| !**p).count(),
    );
    if np == 0 || nn == 0 {
        return None;
    }
    // Rank-sum with average ranks for ties.
    let mut rank_sum = 0.0;
    let mut i = 0;
    while i < idx.len() {
        let mut j = i;
        while j + 1 < idx.len() && scores[idx[j + 1]] == scores[idx[i]] {
            j += 1;
        }
        let avg = (i + j) as f64 / 2.0 + 1.0;
        for k in i..=j {
            if positive[idx[k]] {
                rank_sum += avg;
            }
        }
        i = j + 1;
    }
    Some((rank_sum - (np * (np + 1)) as f64 / 2.0) / (np as f64 * nn as f64))
}

/// Precision, recall and F1 of one class (one-vs-rest), each in [0, 1].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClassMetrics {
    /// The class.
    pub label: String,
    /// Of the texts predicted this class, the share that are (0 when none are predicted).
    pub precision: f64,
    /// Of the texts of this class, the share predicted so (0 when there are none).
    pub recall: f64,
    /// Harmonic mean of precision and recall (0 when both are 0).
    pub f1: f64,
    /// Gold texts of this class.
    pub support: usize,
}

/// [`ClassMetrics`] of each of `labels` from gold and predicted class indices.
pub fn class_metrics(gold: &[usize], pred: &[usize], labels: &[&str]) -> Vec<ClassMetrics> {
    labels
        .iter()
        .enumerate()
        .map(|(c, l)| {
            let tp = gold
                .iter()
                .zip(pred)
                .filter(|(g, p)| **g == c && **p == c)
                .count() as f64;
            let fp = gold
                .iter()
                .zip(pred)
                .filter(|(g, p)| **g != c && **p == c)
                .count() as f64;
            let fneg = gold
                .iter()
                .zip(pred)
                .filter(|(g, p)| **g == c && **p != c)
                .count() as f64;
            let p = if tp + fp > 0.0 { tp / (tp + fp) } else { 0.0 };
            let r = if tp + fneg > 0.0 {
                tp / (tp + fneg)
            } else {
                0.0
            };
            let f = if p + r > 0.0 {
                2.0 * p * r / (p + r)
            } else {
                0.0
            };
            ClassMetrics {
                label: l.to_string(),
                precision: p,
                recall: r,
                f1: f,
                support: gold.iter().filter(|g| **g == c).count(),
            }
        })
        .collect()
}

fn r4(x: f64) -> f64 {
    (x * 1e4).round() / 1e4
}

/// `{"gender_bias":{"f1","auc",...},"hate":{"macro_f1","auc",...},"sweep":[...]}`.
pub fn evaluate(model: &ToxicityModel, data: &[Example]) -> serde_json::Value {
    let scores: Vec<Scores> = data.iter().map(|e| model.score(&e.text)).collect();
    let g_gold: Vec<usize> = data.iter().map(|e| usize::from(e.gender)).collect();
    let g_pred: Vec<usize> = scores
        .iter()
        .map(|s| usize::from(s.gender_bias >= 0.5))
        .collect();
    let g = class_metrics(&g_gold, &g_pred, &GENDER_LABELS);
    let h_gold: Vec<usize> = data.iter().map(|e| e.hate).collect();
    let h_pred: Vec<usize> = data
        .iter()
        .map(|e| {
            let p = model.hate.predict_proba(&e.text);
            (0..3).fold(0, |b, c| if p[c] > p[b] { c } else { b })
        })
        .collect();
    let h = class_metrics(&h_gold, &h_pred, &HATE_LABELS);
    let macro_f1 = h.iter().map(|c| c.f1).sum::<f64>() / 3.0;
    let g_auc = roc_auc(
        &scores.iter().map(|s| s.gender_bias).collect::<Vec<_>>(),
        &data.iter().map(|e| e.gender).collect::<Vec<_>>(),
    );
    let h_auc = roc_auc(
        &scores.iter().map(|s| s.hate).collect::<Vec<_>>(),
        &data.iter().map(|e| e.hate == 2).collect::<Vec<_>>(),
    );
    let sweep: Vec<serde_json::Value> = [0.3, 0.5, 0.7, 0.9]
        .iter()
        .map(|t| {
            let n = data.len().max(1) as f64;
            serde_json::json!({
                "threshold": t,
                "gender_bias_drop_share": r4(scores.iter().filter(|s| s.gender_bias >= *t).count() as f64 / n),
                "hate_drop_share": r4(scores.iter().filter(|s| s.hate >= *t).count() as f64 / n),
            })
        })
        .collect();
    let round = |v: Vec<ClassMetrics>| -> Vec<ClassMetrics> {
        v.into_iter()
            .map(|c| ClassMetrics {
                precision: r4(c.precision),
                recall: r4(c.recall),
                f1: r4(c.f1),
                ..c
            })
            .collect()
    };
    serde_json::json!({
        "examples": data.len(),
        "gender_bias": {"f1": r4(g[1].f1), "auc": g_auc.map(r4), "classes": round(g)},
        "hate": {"macro_f1": r4(macro_f1), "auc": h_auc.map(r4), "classes": round(h)},
        "sweep": sweep,
    })
}

/// Seeded k-fold assignment (fold = position in a ChaCha8 shuffle mod k).
pub fn folds(n: usize, k: usize, seed: u64) -> Vec<usize> {
    use rand::SeedableRng;
    use rand::seq::SliceRandom;
    let mut order: Vec<usize> = (0..n).collect();
    order.shuffle(&mut rand::rngs::ChaCha8Rng::seed_from_u64(seed));
    let mut f = vec![0; n];
    for (pos, i) in order.into_iter().enumerate() {
        f[i] = pos % k;
    }
    f
}

/// k-fold cross-validation: mean gender F1 and hate macro F1 over folds.
pub fn cross_validate(data: &[Example], k: usize, seed: u64, cfg: &TrainConfig) -> (f64, f64) {
    let f = folds(data.len(), k, seed);
    let (mut gf, mut hf) = (0.0, 0.0);
    for fold in 0..k {
        let train: Vec<Example> = data
            .iter()
            .zip(&f)
            .filter(|(_, x)| **x != fold)
            .map(|(e, _)| e.clone())
            .collect();
        let test: Vec<Example> = data
            .iter()
            .zip(&f)
            .filter(|(_, x)| **x == fold)
            .map(|(e, _)| e.clone())
            .collect();
        let m = ToxicityModel::train(&train, String::new(), cfg);
        let ev = evaluate(&m, &test);
        gf += ev["gender_bias"]["f1"].as_f64().unwrap_or(0.0);
        hf += ev["hate"]["macro_f1"].as_f64().unwrap_or(0.0);
    }
    (gf / k as f64, hf / k as f64)
}

/// Scores from an external classifier: `{"id","gender_bias","hate"}` JSONL, read through
/// the one JSONL side-input reader (gzip or zstd decoded, errors naming file:line:field).
pub fn read_scores(path: &Path) -> Result<std::collections::BTreeMap<String, Scores>, ModelError> {
    let rows = kcurate_core::jsonl::values(path)?;
    let shown = rows.path().to_string();
    let mut out = std::collections::BTreeMap::new();
    for row in rows {
        let (line, v) = row?;
        let err = |field: &str, message: &str| ModelError::Data {
            path: shown.clone(),
            line: line as u64,
            field: field.into(),
            message: message.into(),
        };
        let id = v["id"].as_str().ok_or_else(|| err("id", "missing field"))?;
        let number = |field: &str| {
            v[field]
                .as_f64()
                .ok_or_else(|| err(field, "missing or not a number"))
        };
        let scores = Scores {
            gender_bias: number("gender_bias")?,
            hate: number("hate")?,
        };
        out.insert(id.to_string(), scores);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auc_of_a_perfect_ranking_is_one() {
        assert_eq!(
            roc_auc(&[0.1, 0.2, 0.8, 0.9], &[false, false, true, true]),
            Some(1.0)
        );
        assert_eq!(roc_auc(&[0.5, 0.5], &[false, true]), Some(0.5));
    }

    #[test]
    fn folds_are_seeded_and_balanced() {
        let f = folds(10, 5, 1);
        assert_eq!(f, folds(10, 5, 1));
        for k in 0..5 {
            assert_eq!(f.iter().filter(|x| **x == k).count(), 2);
        }
    }

    /// A bad label after blank lines is named by its line in the file.
    #[test]
    fn a_bad_row_after_blank_lines_names_its_file_line() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("train.tsv");
        std::fs::write(
            &p,
            "comments\tbias\thate\n\n좋은 글\tnone\tnone\n\n\n나쁜 글\tnone\tworse\n",
        )
        .unwrap();
        match read_tsv(&p) {
            Err(ModelError::Data { line, field, .. }) => {
                assert_eq!((line, field.as_str()), (6, "hate"))
            }
            other => panic!("{other:?}"),
        }
    }
}
