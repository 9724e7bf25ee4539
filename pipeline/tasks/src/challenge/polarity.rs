//! A sentence-level polarity model for SentiNeg base labels: the hashed character n-gram
//! logistic regression of [`kcurate_toxicity::linear`], trained on sentences whose review
//! rating is positive or negative (the parent release's train split), with balanced class
//! weights. A review's rating is a label of the review, not of each of its sentences; the
//! model reads the sentence itself, so `sentineg` keeps a sentence only when the model is
//! confident of its polarity and agrees with the rating.

use kcurate_toxicity::linear::{Linear, TrainConfig};
use std::io::BufRead;
use std::path::Path;

/// The model's labels, in this order.
pub const LABELS: [&str; 2] = ["negative", "positive"];

/// Training the polarity model from a JSONL file failed.
#[derive(Debug, thiserror::Error)]
pub enum PolarityError {
    /// The file cannot be read.
    #[error("{path}: {source}")]
    Io {
        /// The training file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// A line is not JSON or has no string `text`.
    #[error("{path}:{line}: {message}")]
    Line {
        /// The training file.
        path: String,
        /// 1-based line.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// The file has sentences of one polarity only.
    #[error("{path}: {positive} positive and {negative} negative sentences; training needs both")]
    OneClass {
        /// The training file.
        path: String,
        /// Positive sentences found.
        positive: usize,
        /// Negative sentences found.
        negative: usize,
    },
}

/// The trained polarity model ([`LABELS`]).
pub struct Polarity {
    model: Linear,
    /// Training sentences per class (negative, positive).
    pub trained_on: [usize; 2],
}

/// The training settings: uni- to trigrams, balanced classes, seeded.
pub fn config(seed: u64) -> TrainConfig {
    TrainConfig {
        ngram_min: 1,
        ngram_max: 3,
        bits: 20,
        epochs: 5,
        learning_rate: 0.2,
        l2: 1e-6,
        seed,
        balanced: true,
        ..TrainConfig::default()
    }
}

impl Polarity {
    /// Trains on `(text, positive?)` pairs.
    pub fn train(data: &[(String, bool)], seed: u64) -> Polarity {
        let texts: Vec<&str> = data.iter().map(|(t, _)| t.as_str()).collect();
        let targets: Vec<usize> = data.iter().map(|(_, p)| usize::from(*p)).collect();
        let pos = targets.iter().sum::<usize>();
        let model = Linear::train(
            &texts,
            &targets,
            LABELS.iter().map(|s| s.to_string()).collect(),
            &config(seed),
        );
        Polarity {
            model,
            trained_on: [data.len() - pos, pos],
        }
    }

    /// Trains on a JSONL file of records with `text` and `label`: labels in `positive` are
    /// positive, in `negative` negative, any other (or none) is left out.
    pub fn train_jsonl(
        path: &Path,
        positive: &[String],
        negative: &[String],
        seed: u64,
    ) -> Result<Polarity, PolarityError> {
        let shown = path.display().to_string();
        let f = std::fs::File::open(path).map_err(|source| PolarityError::Io {
            path: shown.clone(),
            source,
        })?;
        let mut data = Vec::new();
        for (i, line) in std::io::BufReader::new(f).lines().enumerate() {
            let line = line.map_err(|source| PolarityError::Io {
                path: shown.clone(),
                source,
            })?;
            if line.trim().is_empty() {
                continue;
            }
            let bad = |message: String| PolarityError::Line {
                path: shown.clone(),
                line: i + 1,
                message,
            };
            let v: serde_json::Value =
                serde_json::from_str(&line).map_err(|e| bad(format!("invalid JSON: {e}")))?;
            let text = v
                .get("text")
                .and_then(|t| t.as_str())
                .ok_or_else(|| bad("text: missing or not a string".into()))?;
            let Some(label) = v.get("label").and_then(|l| l.as_str()) else {
                continue;
            };
            if positive.iter().any(|p| p == label) {
                data.push((text.to_string(), true));
            } else if negative.iter().any(|n| n == label) {
                data.push((text.to_string(), false));
            }
        }
        let pos = data.iter().filter(|(_, p)| *p).count();
        if pos == 0 || pos == data.len() {
            return Err(PolarityError::OneClass {
                path: shown,
                positive: pos,
                negative: data.len() - pos,
            });
        }
        Ok(Polarity::train(&data, seed))
    }

    /// The probability that `text` reads positive.
    pub fn p_positive(&self, text: &str) -> f64 {
        self.model.predict_proba(text)[1]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toy() -> Vec<(String, bool)> {
        let pos = [
            "정말 좋았다",
            "최고의 영화",
            "재밌어요",
            "감동적이다",
            "배우 연기 좋다",
        ];
        let neg = [
            "너무 지루했다",
            "최악의 영화",
            "재미없어요",
            "돈 아깝다",
            "시간 낭비",
        ];
        let mut d = Vec::new();
        for _ in 0..5 {
            d.extend(pos.iter().map(|t| (t.to_string(), true)));
            d.extend(neg.iter().map(|t| (t.to_string(), false)));
        }
        d
    }

    #[test]
    fn reads_polarity_and_is_deterministic() {
        let a = Polarity::train(&toy(), 7);
        let b = Polarity::train(&toy(), 7);
        assert!(a.p_positive("최고의 배우") > 0.5);
        assert!(a.p_positive("최악의 지루한 영화") < 0.5);
        assert_eq!(a.p_positive("그냥 그랬다"), b.p_positive("그냥 그랬다"));
        assert_eq!(a.trained_on, [25, 25]);
    }

    #[test]
    fn a_file_with_one_class_is_an_error_naming_it() {
        let dir = std::env::temp_dir().join(format!("kcurate-polarity-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("one.jsonl");
        std::fs::write(
            &p,
            "{\"text\":\"좋다\",\"label\":\"10\"}\n{\"text\":\"뉴스\"}\n",
        )
        .unwrap();
        let e = Polarity::train_jsonl(&p, &["10".into()], &["1".into()], 1)
            .err()
            .unwrap();
        assert!(e.to_string().contains("1 positive and 0 negative"), "{e}");
        std::fs::write(&p, "{\"text\":\"좋다\",\"label\":\"10\"}\nnot json\n").unwrap();
        let e = Polarity::train_jsonl(&p, &["10".into()], &["1".into()], 1)
            .err()
            .unwrap();
        assert!(e.to_string().contains("one.jsonl:2: invalid JSON"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
