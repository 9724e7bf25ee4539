//! The review-domain model configs/nsmc-wikinews.toml offers for reviews (`domain_train`:
//! char_wb tf-idf LR trained on the NSMC reviews labelled by reading) on real reviews, run by
//! `make test-shared`:
//! - its hate threshold is the out-of-fold calibration (5 folds, seed 42) of its own labelled
//!   reviews at 2.5% of the clean ones (the lexicon may drop a few more), its gender head off;
//! - on the two held-out labelled sets (nsmc_heldout35.tsv, nsmc_heldout36.tsv), which
//!   neither trained nor calibrated it, the lexicon + model keep the figures measured once.

use kcurate_core::shared_dir;
use kcurate_toxicity::calibrate::threshold_for;
use kcurate_toxicity::lexicon::Lexicon;
use kcurate_toxicity::model::{Example, Scores, ToxicityModel, read_tsv, tfidf_config};
use kcurate_toxicity::reviews::{examples, out_of_fold_scores};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The reviews-domain settings of the recipe's toxicity stage: label files and thresholds.
struct ReviewSettings {
    labels: Vec<String>,
    gender_bias: f64,
    hate: f64,
}

/// The review-domain settings configs/nsmc-wikinews.toml offers in its toxicity stage's
/// comment (not selected there: see the recipe), checked against that comment.
fn recipe() -> ReviewSettings {
    let text = std::fs::read_to_string(root().join("configs/nsmc-wikinews.toml")).unwrap();
    let labels = [
        "../tests/fixtures/toxicity/nsmc_reviews_train.tsv",
        "../tests/fixtures/toxicity/nsmc_reviews_dev.tsv",
    ];
    let line = format!(
        "# domain_train = {{ reviews = {{ labels = [\"{}\", \"{}\"], texts = \"../../shared/corpora/nsmc/raw\" }} }}",
        labels[0], labels[1]
    );
    assert!(text.contains(&line), "the recipe offers {line}");
    let hate = 0.5419;
    let th = format!("# domains = {{ reviews = {{ gender_bias = 1.0, hate = {hate} }} }}");
    assert!(text.contains(&th), "the recipe offers {th}");
    ReviewSettings {
        labels: labels.map(String::from).to_vec(),
        gender_bias: 1.0,
        hate,
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

fn labelled_reviews(r: &ReviewSettings) -> (Vec<Example>, usize) {
    let mut rows = Vec::new();
    let mut first = 0;
    for (i, l) in r.labels.iter().enumerate() {
        rows.extend(set(l));
        if i == 0 {
            first = rows.len();
        }
    }
    (rows, first)
}

#[test]
#[ignore = "needs ../shared: make test-shared"]
fn the_reviews_thresholds_are_the_out_of_fold_calibration_of_the_labelled_reviews() {
    let r = recipe();
    let (rows, n_train) = labelled_reviews(&r);
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
    // The gender head learns from 16 gender-biased reviews: off.
    assert_eq!(r.gender_bias, 1.0);
    let lex = Lexicon::load(&root().join("rules/toxicity.toml")).unwrap();
    let (tr, dv) = rows.split_at(n_train);
    let ft = figures(tr, &oof[..n_train], &lex, &r);
    let fd = figures(dv, &oof[n_train..], &lex, &r);
    show("nsmc_reviews_train (out of fold, tuned)", ft);
    show("nsmc_reviews_dev (out of fold, tuned)", fd);
    let all = [0, 1, 2, 3, 4].map(|i| ft[i] + fd[i]);
    assert!(all[3] as f64 <= 0.03 * all[4] as f64, "{all:?}");
    // The reviews drawn at random stand for the release's reviews: what the model alone drops
    // there, and how many of those drops are hateful or gender-biased.
    let random: Vec<bool> = r
        .labels
        .iter()
        .flat_map(|l| picked_by(l))
        .map(|p| p.split('+').any(|x| x == "random"))
        .collect();
    assert_eq!(random.len(), rows.len());
    let (mut n, mut dropped, mut right) = (0, 0, 0);
    for ((e, s), rnd) in rows.iter().zip(&oof).zip(&random) {
        if *rnd {
            n += 1;
            if s.hate >= r.hate {
                dropped += 1;
                right += usize::from(toxic(e));
            }
        }
    }
    println!(
        "random reviews: the model drops {dropped} of {n}, {right} of them hateful or gender-biased"
    );
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

/// The recipe's review-domain model: the same features trained on its labelled reviews.
fn review_model(r: &ReviewSettings) -> ToxicityModel {
    let (rows, _) = labelled_reviews(r);
    ToxicityModel::train(&rows, String::new(), &tfidf_config())
}

#[test]
#[ignore = "needs ../shared: make test-shared"]
fn the_held_out_reviews_keep_the_review_model_figures() {
    let r = recipe();
    let m = review_model(&r);
    // The chain the recipe selects: the news-comment model at the reviews thresholds.
    let (khs, sha) =
        read_tsv(&shared_dir().join("corpora/korean-hate-speech/labeled/train.tsv")).unwrap();
    let news = ToxicityModel::train(&khs, sha, &tfidf_config());
    let shipped = ReviewSettings {
        labels: Vec::new(),
        gender_bias: 1.0,
        hate: 0.995,
    };
    let lex = Lexicon::load(&root().join("rules/toxicity.toml")).unwrap();
    let mut got = Vec::new();
    for name in ["nsmc_heldout35.tsv", "nsmc_heldout36.tsv"] {
        let ex = fixture(name);
        let scores: Vec<Scores> = ex.iter().map(|e| news.score(&e.text)).collect();
        show(
            &format!("{name}, news model (the recipe)"),
            figures(&ex, &scores, &lex, &shipped),
        );
        let scores: Vec<Scores> = ex.iter().map(|e| m.score(&e.text)).collect();
        let f = figures(&ex, &scores, &lex, &r);
        show(&format!("{name}, review model (held out)"), f);
        assert!(f[1] >= 40 && f[4] >= 400, "{f:?}");
        got.push(f);
    }
    // Measured once, after the model and its threshold were fixed: 42 of 66 caught (28 by the
    // lexicon, whose rules were tuned on this set), 14 of 521 clean dropped; on the fresh set
    // 16 of 48 caught (none by the lexicon), 11 of 599 clean dropped. Below the 75% target.
    assert_eq!(got, [[42, 66, 28, 14, 521], [16, 48, 0, 11, 599]]);
}
