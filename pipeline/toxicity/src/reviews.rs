//! Labelled reviews as training data for a domain's own model. A label file names each
//! review by `movie_file` and `review_id` of the NSMC raw corpus (its texts stay in
//! ../shared) with a `label` of clean, hateful or gender; [`examples`] resolves them into
//! training rows in the hate speech TSV's terms. The news-comment model misses most insults in
//! reviews (they are aimed at raters, critics and directors, not at the people of a news
//! story), so a review-domain model learns from both.

use crate::linear::TrainConfig;
use crate::model::{Example, HashedFile, ModelError, Scores, ToxicityModel, folds};
use kcurate_core::hash::sha256_hex;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// How a review was judged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReviewLabel {
    /// Neither hateful nor gender-biased.
    Clean,
    /// An insult, slur or threat aimed at a real person or group.
    Hateful,
    /// A stereotype or demeaning generalisation about women or men.
    Gender,
}

/// One judged review of a label file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LabelledReview {
    /// The NSMC raw file (`10001.json`).
    pub file: String,
    /// The review's `review_id` in it.
    pub id: String,
    /// The judgement.
    pub label: ReviewLabel,
    /// 1-based line in the label file.
    pub line: u64,
}

impl LabelledReview {
    /// The training row of this review's `text`: hateful reviews are `hate`, gender-biased
    /// ones `bias = gender` and `offensive`, clean ones neither.
    pub fn example(&self, text: &str) -> Example {
        let (gender, hate) = match self.label {
            ReviewLabel::Clean => (false, 0),
            ReviewLabel::Hateful => (false, 2),
            ReviewLabel::Gender => (true, 1),
        };
        Example {
            text: text.to_string(),
            gender,
            hate,
        }
    }
}

/// Reads a label file: `#` comment lines, a header naming movie_file, review_id and label,
/// then one review a line. The sha256 of the file's bytes comes with the rows.
pub fn read_labels(path: &Path) -> Result<(Vec<LabelledReview>, String), ModelError> {
    let HashedFile { shown, bytes, sha } = HashedFile::read(path)?;
    let text = String::from_utf8(bytes).map_err(|e| ModelError::Format {
        path: shown.clone(),
        message: format!("not UTF-8: {e}"),
    })?;
    let bad = |line: u64, field: &str, message: String| ModelError::Data {
        path: shown.clone(),
        line,
        field: field.into(),
        message,
    };
    let mut cols: Option<[usize; 3]> = None;
    let mut out = Vec::new();
    for (n, l) in text.lines().enumerate() {
        let line = n as u64 + 1;
        if l.starts_with('#') || l.trim().is_empty() {
            continue;
        }
        let f: Vec<&str> = l.split('\t').collect();
        let Some([cf, ci, cl]) = cols else {
            let at = |name: &str| f.iter().position(|h| *h == name);
            let (Some(a), Some(b), Some(c)) = (at("movie_file"), at("review_id"), at("label"))
            else {
                return Err(bad(
                    line,
                    "header",
                    "must name movie_file, review_id and label".into(),
                ));
            };
            cols = Some([a, b, c]);
            continue;
        };
        let get = |i: usize, name: &str| {
            f.get(i)
                .map(|s| s.trim().to_string())
                .ok_or_else(|| bad(line, name, "missing field".into()))
        };
        let label = match get(cl, "label")?.as_str() {
            "clean" => ReviewLabel::Clean,
            "hateful" => ReviewLabel::Hateful,
            "gender" => ReviewLabel::Gender,
            other => {
                return Err(bad(
                    line,
                    "label",
                    format!("unknown label {other:?} (clean, hateful, gender)"),
                ));
            }
        };
        out.push(LabelledReview {
            file: get(cf, "movie_file")?,
            id: get(ci, "review_id")?,
            label,
            line,
        });
    }
    Ok((out, sha))
}

/// The texts of `items` from the NSMC raw directory `dir` (one JSON array of
/// `{review, review_id, ...}` per movie file), by (movie file, review id).
fn texts(
    dir: &Path,
    items: &[LabelledReview],
) -> Result<BTreeMap<(String, String), String>, ModelError> {
    let files: BTreeSet<&str> = items.iter().map(|i| i.file.as_str()).collect();
    let mut out = BTreeMap::new();
    for f in files {
        let path = dir.join(f);
        let shown = path.display().to_string();
        let raw = std::fs::read(&path).map_err(|e| ModelError::Io {
            path: shown.clone(),
            source: e,
        })?;
        let v: Vec<serde_json::Value> =
            serde_json::from_slice(&raw).map_err(|e| ModelError::Format {
                path: shown.clone(),
                message: format!("not an NSMC raw file: {e}"),
            })?;
        for r in v {
            if let (Some(id), Some(t)) = (r["review_id"].as_str(), r["review"].as_str()) {
                out.insert((f.to_string(), id.to_string()), t.to_string());
            }
        }
    }
    Ok(out)
}

/// The training rows of the label file `labels` (its reviews' texts read from `dir`), and a
/// sha256 naming both the labels and the texts. A review missing from its movie file is an
/// error naming the label file's line.
pub fn examples(labels: &Path, dir: &Path) -> Result<(Vec<Example>, String), ModelError> {
    let (items, labels_sha) = read_labels(labels)?;
    let texts = texts(dir, &items)?;
    let mut out = Vec::with_capacity(items.len());
    let mut all_text = String::new();
    for it in &items {
        let t = texts
            .get(&(it.file.clone(), it.id.clone()))
            .ok_or_else(|| ModelError::Data {
                path: labels.display().to_string(),
                line: it.line,
                field: "review_id".into(),
                message: format!("no review {} in {}", it.id, dir.join(&it.file).display()),
            })?;
        all_text.push_str(t);
        all_text.push('\n');
        out.push(it.example(t));
    }
    let sha = sha256_hex(format!("{labels_sha}\n{}", sha256_hex(all_text.as_bytes())).as_bytes());
    Ok((out, sha))
}

/// `base` plus every review `weight` times: a domain model's training rows.
pub fn training_rows(base: &[Example], reviews: &[Example], weight: usize) -> Vec<Example> {
    let mut rows = base.to_vec();
    for _ in 0..weight {
        rows.extend(reviews.iter().cloned());
    }
    rows
}

/// Out-of-fold scores of `reviews`: each review scored by the model trained on `base` plus
/// the reviews of the other `k - 1` folds (seeded [`folds`]). Thresholds calibrated on these
/// hold for reviews the final model (trained on all of them) has not seen; scores of its own
/// training reviews would be too low on the clean ones.
pub fn out_of_fold_scores(
    base: &[Example],
    reviews: &[Example],
    weight: usize,
    k: usize,
    seed: u64,
    cfg: &TrainConfig,
) -> Vec<Scores> {
    let f = folds(reviews.len(), k, seed);
    let mut out = vec![
        Scores {
            gender_bias: 0.0,
            hate: 0.0
        };
        reviews.len()
    ];
    for fold in 0..k {
        let rest: Vec<Example> = reviews
            .iter()
            .zip(&f)
            .filter(|(_, x)| **x != fold)
            .map(|(e, _)| e.clone())
            .collect();
        let m = ToxicityModel::train(&training_rows(base, &rest, weight), String::new(), cfg);
        for (i, e) in reviews.iter().enumerate() {
            if f[i] == fold {
                out[i] = m.score(&e.text);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_resolve_to_training_rows_and_a_missing_review_names_its_line() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(
            d.path().join("7.json"),
            r#"[{"review":"평점 준 것들 뭐냐","review_id":"11"},{"review":"재밌다","review_id":"12"}]"#,
        )
        .unwrap();
        let labels = d.path().join("l.tsv");
        std::fs::write(
            &labels,
            "# provenance\nmovie_file\treview_id\tlabel\tpicked_by\n7.json\t11\thateful\tgrep\n7.json\t12\tclean\trandom\n",
        )
        .unwrap();
        let (ex, sha) = examples(&labels, d.path()).unwrap();
        assert_eq!(ex.len(), 2);
        assert_eq!(
            (ex[0].text.as_str(), ex[0].gender, ex[0].hate),
            ("평점 준 것들 뭐냐", false, 2)
        );
        assert_eq!((ex[1].gender, ex[1].hate), (false, 0));
        assert_eq!(sha.len(), 64);
        std::fs::write(&labels, "movie_file\treview_id\tlabel\n7.json\t13\tclean\n").unwrap();
        let e = examples(&labels, d.path()).unwrap_err().to_string();
        assert!(e.contains("l.tsv:2: review_id: no review 13"), "{e}");
        std::fs::write(&labels, "movie_file\treview_id\tlabel\n7.json\t12\trude\n").unwrap();
        let e = examples(&labels, d.path()).unwrap_err().to_string();
        assert!(e.contains("l.tsv:2: label: unknown label \"rude\""), "{e}");
    }
}
