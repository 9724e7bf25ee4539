//! The review chain configs/nsmc-reviews-toxicity.toml selects for reviews (`domain_train`:
//! char_wb tf-idf LR trained on the NSMC reviews labelled by reading, plus the lexicon of
//! rules/toxicity.toml) on real reviews, run by `make test-shared`:
//! - its hate threshold is the out-of-fold calibration (5 folds, seed 42) of its own labelled
//!   reviews at 2.5% of the clean ones (the lexicon drops a few more), its gender head off;
//! - on the held-out labelled sets, which neither trained nor calibrated it, the chain keeps
//!   the figures measured once ([`held_out`] measures one by its fixture name).

use kcurate_core::shared_dir;
use kcurate_toxicity::calibrate::threshold_for;
use kcurate_toxicity::lexicon::Lexicon;
use kcurate_toxicity::model::{Example, Scores, ToxicityModel, read_tsv, tfidf_config};
use kcurate_toxicity::reviews::{examples, out_of_fold_scores};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The reviews-domain settings of a recipe's toxicity stage: label files and thresholds.
struct ReviewSettings {
    labels: Vec<String>,
    gender_bias: f64,
    hate: f64,
}

/// The review-domain settings of configs/nsmc-reviews-toxicity.toml's toxicity stage.
fn recipe() -> ReviewSettings {
    review_settings("configs/nsmc-reviews-toxicity.toml")
}

/// The review-domain settings of a recipe's toxicity stage: its label files (none when the
/// recipe trains no review model) and its reviews thresholds.
fn review_settings(recipe: &str) -> ReviewSettings {
    let text = std::fs::read_to_string(root().join(recipe)).unwrap();
    let t: toml::Table = toml::from_str(&text).unwrap();
    let stage = t["stage"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"].as_str() == Some("toxicity"))
        .unwrap();
    let labels = stage
        .get("domain_train")
        .map(|d| {
            d["reviews"]["labels"]
                .as_array()
                .unwrap()
                .iter()
                .map(|l| l.as_str().unwrap().to_string())
                .collect()
        })
        .unwrap_or_default();
    let th = &stage["domains"]["reviews"];
    ReviewSettings {
        labels,
        gender_bias: th["gender_bias"].as_float().unwrap(),
        hate: th["hate"].as_float().unwrap(),
    }
}

/// A label file (a path of the recipe, relative to configs/, or a fixture name) as rows.
fn set(path: &str) -> Vec<Example> {
    examples(
        &root().join("configs").join(path),
        &shared_dir().join("corpora/nsmc/raw"),
    )
    .unwrap()
    .0
}

fn fixture(name: &str) -> Vec<Example> {
    set(&format!("../tests/fixtures/toxicity/{name}"))
}

fn toxic(e: &Example) -> bool {
    e.gender || e.hate > 0
}

fn lexicon() -> Lexicon {
    Lexicon::load(&root().join("rules/toxicity.toml")).unwrap()
}

/// Lexicon + scores at the thresholds on labelled reviews: (caught, toxic, caught by the
/// lexicon, clean dropped, clean).
fn figures(ex: &[Example], scores: &[Scores], lex: &Lexicon, r: &ReviewSettings) -> [usize; 5] {
    let mut f = [0; 5];
    for (e, s) in ex.iter().zip(scores) {
        let by_lex = lex.find(&e.text).is_some();
        let dropped = by_lex || s.gender_bias >= r.gender_bias || s.hate >= r.hate;
        if toxic(e) {
            f[0] += usize::from(dropped);
            f[1] += 1;
            f[2] += usize::from(by_lex);
        } else {
            f[3] += usize::from(dropped);
            f[4] += 1;
        }
    }
    f
}

fn show(name: &str, f: [usize; 5]) {
    println!(
        "{name}: caught {}/{} ({:.1}%; lexicon {}), clean dropped {}/{} ({:.2}%)",
        f[0],
        f[1],
        100.0 * f[0] as f64 / f[1] as f64,
        f[2],
        f[3],
        f[4],
        100.0 * f[3] as f64 / f[4] as f64
    );
}

/// Every labelled review of the recipe, and the row where each label file starts.
fn labelled_reviews(r: &ReviewSettings) -> (Vec<Example>, Vec<usize>) {
    let mut rows = Vec::new();
    let mut starts = Vec::new();
    for l in &r.labels {
        starts.push(rows.len());
        rows.extend(set(l));
    }
    (rows, starts)
}

/// The picked_by column of a label file, in row order.
fn picked_by(path: &str) -> Vec<String> {
    let text = std::fs::read_to_string(root().join("configs").join(path)).unwrap();
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .skip(1)
        .map(|l| l.split('\t').nth(3).unwrap_or("").to_string())
        .collect()
}

#[test]
#[ignore = "needs ../shared: make test-shared"]
fn the_reviews_thresholds_are_the_out_of_fold_calibration_of_the_labelled_reviews() {
    let r = recipe();
    let (rows, starts) = labelled_reviews(&r);
    let oof = out_of_fold_scores(&[], &rows, 1, 5, 42, &tfidf_config());
    let clean: Vec<f64> = rows
        .iter()
        .zip(&oof)
        .filter(|(e, _)| !toxic(e))
        .map(|(_, s)| s.hate)
        .collect();
    let th = threshold_for(&clean, 0.025);
    println!(
        "out-of-fold hate threshold at 2.5% of {} clean: {th}",
        clean.len()
    );
    assert_eq!(r.hate, th);
    // The gender head would learn from 21 gender-biased reviews: off.
    assert_eq!(r.gender_bias, 1.0);
    let lex = lexicon();
    let mut per_file = Vec::new();
    for (i, l) in r.labels.iter().enumerate() {
        let end = starts.get(i + 1).copied().unwrap_or(rows.len());
        let f = figures(&rows[starts[i]..end], &oof[starts[i]..end], &lex, &r);
        show(&format!("{l} (out of fold, tuned)"), f);
        per_file.push(f);
    }
    let all = [0, 1, 2, 3, 4].map(|j| per_file.iter().map(|f| f[j]).sum::<usize>());
    show("all labelled reviews (out of fold, tuned)", all);
    assert!(all[3] as f64 <= 0.03 * all[4] as f64, "{all:?}");
    assert_eq!(all, OUT_OF_FOLD);
    // The reviews drawn at random stand for the release's reviews: what the chain drops
    // there, and how many of those drops are hateful or gender-biased.
    let random: Vec<bool> = r
        .labels
        .iter()
        .flat_map(|l| picked_by(l))
        .map(|p| p.split('+').any(|x| x == "random"))
        .collect();
    assert_eq!(random.len(), rows.len());
    let picked: Vec<usize> = (0..rows.len()).filter(|i| random[*i]).collect();
    let ex: Vec<Example> = picked.iter().map(|i| rows[*i].clone()).collect();
    let sc: Vec<Scores> = picked.iter().map(|i| oof[*i]).collect();
    let f = figures(&ex, &sc, &lex, &r);
    println!(
        "random reviews: the chain drops {} of {}, {} of them hateful or gender-biased",
        f[0] + f[3],
        f[1] + f[4],
        f[0]
    );
}

/// Out-of-fold figures of the chain on all its labelled reviews: (caught, toxic, caught by
/// the lexicon, clean dropped, clean), the rules and threshold tuned on them.
const OUT_OF_FOLD: [usize; 5] = [136, 333, 70, 120, 4725];

/// The recipe's review model: the same features trained on all its labelled reviews.
fn review_model(r: &ReviewSettings) -> ToxicityModel {
    let (rows, _) = labelled_reviews(r);
    ToxicityModel::train(&rows, String::new(), &tfidf_config())
}

/// The chain on a held-out labelled file of tests/fixtures/toxicity (`name`): the review
/// model `m` and the lexicon at the thresholds `r` of configs/nsmc-reviews-toxicity.toml, and
/// the chain configs/nsmc-wikinews.toml selects (the news-comment model `news` at that recipe's
/// reviews thresholds, the lexicon); each as (caught, toxic, caught by the lexicon, clean
/// dropped, clean).
fn held_out(
    name: &str,
    r: &ReviewSettings,
    m: &ToxicityModel,
    news: &ToxicityModel,
) -> ([usize; 5], [usize; 5]) {
    let lex = lexicon();
    let ex = fixture(name);
    let scores: Vec<Scores> = ex.iter().map(|e| m.score(&e.text)).collect();
    let f = figures(&ex, &scores, &lex, r);
    show(&format!("{name}, review chain (held out)"), f);
    let shipped = review_settings("configs/nsmc-wikinews.toml");
    let scores: Vec<Scores> = ex.iter().map(|e| news.score(&e.text)).collect();
    let g = figures(&ex, &scores, &lex, &shipped);
    show(&format!("{name}, news model (nsmc-wikinews)"), g);
    assert!(f[1] >= 40 && f[4] >= 400, "{f:?}");
    (f, g)
}

/// The news-comment model configs/nsmc-wikinews.toml trains.
fn news_model() -> ToxicityModel {
    let (khs, sha) =
        read_tsv(&shared_dir().join("corpora/korean-hate-speech/labeled/train.tsv")).unwrap();
    ToxicityModel::train(&khs, sha, &tfidf_config())
}

#[test]
#[ignore = "needs ../shared: make test-shared"]
fn the_held_out_reviews_keep_the_review_chain_figures() {
    let r = recipe();
    let m = review_model(&r);
    let news = news_model();
    let got = [
        "nsmc_heldout35.tsv",
        "nsmc_heldout36.tsv",
        "nsmc_heldout37.tsv",
    ]
    .map(|n| held_out(n, &r, &m, &news));
    // Each measured once, after the model, its threshold and the rules were fixed.
    assert_eq!(got, HELD_OUT);
}

/// The figures of [`held_out`], each measured once:
/// - nsmc_heldout35.tsv: the review chain catches 44 of 66 (28 by the lexicon, whose older
///   rules were tuned on that set) and drops 18 of 521 clean reviews;
/// - nsmc_heldout36.tsv: 23 of 48 (3 by the lexicon), 15 of 599 clean. Five of its reviews
///   have the same text as a review of nsmc_reviews_train2.tsv (reposted by their writers),
///   2 of them hateful;
/// - nsmc_heldout37.tsv, read blind by someone who saw none of the chain's changes: 13 of 74
///   (3 by the lexicon), 17 of 1,203 clean; the chain configs/nsmc-wikinews.toml selects
///   catches 3 and drops none. One hateful and one clean review of the set have the same text
///   as a review of the training labels (reposted).
///
/// All far below the 75% target.
const HELD_OUT: [([usize; 5], [usize; 5]); 3] = [
    ([44, 66, 28, 18, 521], [28, 66, 28, 1, 521]),
    ([23, 48, 3, 15, 599], [3, 48, 3, 0, 599]),
    ([13, 74, 3, 17, 1203], [3, 74, 3, 0, 1203]),
];
