//! The toxicity stage on real text, run by `make test-shared`:
//! - on NSMC reviews labelled by reading (tests/fixtures/curation/nsmc_toxicity.tsv), the
//!   lexicon of rules/toxicity.toml plus the model at the reviews thresholds of
//!   configs/nsmc-wikinews.toml drop at most 3% of the reviews judged clean;
//! - 5-fold CV on the Korean hate speech labelled split keeps the figures of the model;
//! - the char_wb model (`features = "char_wb"`, scikit-learn's char-LR baseline) reaches the
//!   baseline's 5-fold figures on the same folds and keeps NSMC false drops ≤ 3% at the
//!   reviews thresholds.

use kcurate_core::shared_dir;
use kcurate_toxicity::lexicon::Lexicon;
use kcurate_toxicity::model::{
    Features, ToxicityModel, config_for, cross_validate, read_tsv, tfidf_config, train_config,
};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The reviews-domain thresholds of the toxicity stage in configs/nsmc-wikinews.toml.
fn review_thresholds() -> (f64, f64, bool, Features) {
    let t: toml::Table = toml::from_str(
        &std::fs::read_to_string(root().join("configs/nsmc-wikinews.toml")).unwrap(),
    )
    .unwrap();
    let st = t["stage"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"].as_str() == Some("toxicity"))
        .expect("the recipe has a toxicity stage");
    assert_eq!(st["lexicon"].as_str(), Some("../rules/toxicity.toml"));
    let d = &st["domains"]["reviews"];
    (
        d["gender_bias"].as_float().unwrap(),
        d["hate"].as_float().unwrap(),
        st.get("balanced")
            .and_then(|b| b.as_bool())
            .unwrap_or(false),
        match st.get("features").and_then(|f| f.as_str()) {
            Some("char_wb") => Features::CharWb,
            _ => Features::Hashed,
        },
    )
}

struct Labelled {
    file: String,
    id: String,
    label: String,
}

fn labelled() -> Vec<Labelled> {
    let text =
        std::fs::read_to_string(root().join("tests/fixtures/curation/nsmc_toxicity.tsv")).unwrap();
    let mut out = Vec::new();
    for l in text.lines().filter(|l| !l.starts_with('#')).skip(1) {
        let f: Vec<&str> = l.split('\t').collect();
        assert!(["clean", "hateful", "gender"].contains(&f[2]), "{l}");
        out.push(Labelled {
            file: f[0].into(),
            id: f[1].into(),
            label: f[2].into(),
        });
    }
    out
}

fn review_texts(items: &[Labelled]) -> BTreeMap<(String, String), String> {
    let dir = shared_dir().join("corpora/nsmc/raw");
    let mut out = BTreeMap::new();
    let files: std::collections::BTreeSet<&str> = items.iter().map(|i| i.file.as_str()).collect();
    for f in files {
        let v: Vec<serde_json::Value> =
            serde_json::from_str(&std::fs::read_to_string(dir.join(f)).unwrap()).unwrap();
        for r in v {
            out.insert(
                (f.to_string(), r["review_id"].as_str().unwrap().to_string()),
                r["review"].as_str().unwrap().to_string(),
            );
        }
    }
    out
}

/// (clean reviews dropped, clean reviews, toxic caught, toxic) of the lexicon + `model` at
/// the thresholds, printed with the ids of the false drops.
fn nsmc_figures(model: &ToxicityModel, tg: f64, th: f64, name: &str) -> (usize, usize, usize) {
    let items = labelled();
    assert!(items.len() >= 300, "{} labelled reviews", items.len());
    let texts = review_texts(&items);
    let lex = Lexicon::load(&root().join("rules/toxicity.toml")).unwrap();
    let mut clean = 0;
    let mut false_drops = Vec::new();
    let (mut toxic, mut caught) = (0, 0);
    for it in &items {
        let t = &texts[&(it.file.clone(), it.id.clone())];
        let s = model.score(t);
        let dropped = lex.find(t).is_some() || s.gender_bias >= tg || s.hate >= th;
        if it.label == "clean" {
            clean += 1;
            if dropped {
                false_drops.push(format!("{}:{}", it.file, it.id));
            }
        } else {
            toxic += 1;
            caught += usize::from(dropped);
        }
    }
    println!(
        "nsmc labelled, {name} (gender_bias >= {tg}, hate >= {th}): {} of {clean} clean dropped ({:.1}%: {false_drops:?}); {caught} of {toxic} hateful/gender caught",
        false_drops.len(),
        100.0 * false_drops.len() as f64 / clean as f64
    );
    (false_drops.len(), clean, caught)
}

#[test]
#[ignore = "needs ../shared: make test-shared"]
fn few_clean_reviews_are_dropped_and_slurs_are_caught() {
    let (data, sha) =
        read_tsv(&shared_dir().join("corpora/korean-hate-speech/labeled/train.tsv")).unwrap();
    let (tg, th, balanced, features) = review_thresholds();
    let model = ToxicityModel::train(&data, sha, &config_for(features, 42, balanced));
    let (dropped, clean, caught) = nsmc_figures(&model, tg, th, "recipe model");
    let share = dropped as f64 / clean as f64;
    assert!(share <= 0.03, "false drops {share:.3} > 0.03");
    // The old model (char 1-2, unweighted, KLUE's 0.5/0.9) caught 28 of these 63 (and
    // dropped 86 of the 288 clean).
    assert!(caught >= 45, "caught {caught} of 63");
}

#[test]
#[ignore = "needs ../shared: make test-shared"]
fn the_char_wb_model_matches_the_scikit_learn_baseline_and_keeps_nsmc_false_drops() {
    let (data, sha) =
        read_tsv(&shared_dir().join("corpora/korean-hate-speech/labeled/train.tsv")).unwrap();
    let cfg = tfidf_config();
    let (g, h) = cross_validate(&data, 5, 42, &cfg);
    println!(
        "korean hate speech 5-fold CV (seed 42), char_wb 1-3 tf-idf LR C=4 balanced: gender-bias F1 {g:.4}, hate macro F1 {h:.4}"
    );
    // scikit-learn 1.5.2 on the same folds (bench/toxicity_baseline.py --issue19):
    // TfidfVectorizer(analyzer="char_wb", ngram_range=(1, 3)) + LogisticRegression(C=4,
    // class_weight="balanced"), default max_iter 100 (3 of 5 hate fits stop there
    // unconverged): 0.6728 / 0.5723. Measured here, every fit converged: 0.6744 / 0.5714.
    // The targets (0.697 / 0.595) are on the official dev split, not in ../shared.
    assert!(g >= 0.67 && h >= 0.57, "char_wb {g} {h}");
    let model = ToxicityModel::train(&data, sha, &cfg);
    for (head, l) in [("gender", &model.gender), ("hate", &model.hate)] {
        let s = l.solver.as_ref().unwrap();
        assert!(s.converged, "{head}: {s:?}");
    }
    // The recipe's reviews thresholds (gender off, hate 0.995): the balanced model's scores
    // are not calibrated to reviews, so only its surest hate calls drop.
    let (tg, th, _, _) = review_thresholds();
    let (dropped, clean, caught) = nsmc_figures(&model, tg, th, "char_wb");
    assert!(
        dropped as f64 / clean as f64 <= 0.03,
        "false drops {dropped} of {clean}"
    );
    assert!(caught >= 45, "caught {caught} of 63");
}

#[test]
#[ignore = "needs ../shared: make test-shared"]
fn hate_speech_cross_validation_keeps_the_model_figures() {
    let (data, _) =
        read_tsv(&shared_dir().join("corpora/korean-hate-speech/labeled/train.tsv")).unwrap();
    let (g0, h0) = cross_validate(&data, 5, 42, &train_config(42, false));
    let (g, h) = cross_validate(&data, 5, 42, &train_config(42, true));
    println!(
        "korean hate speech 5-fold CV (seed 42): unweighted gender-bias F1 {g0:.4}, hate macro F1 {h0:.4}; balanced {g:.4}, {h:.4}"
    );
    // Measured 0.5861 / 0.5646 unweighted, 0.6297 / 0.5659 balanced. scikit-learn's char_wb
    // 1-3 balanced C=4 logistic regression on the same folds: 0.6769 / 0.5771.
    assert!(g0 >= 0.58 && h0 >= 0.56, "unweighted {g0} {h0}");
    assert!(g >= 0.62 && h >= 0.56, "balanced {g} {h}");
    assert!(
        g > g0 + 0.03,
        "balanced weights lift gender-bias F1: {g0} -> {g}"
    );
}
