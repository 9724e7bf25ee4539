use super::fitting::{mean, pvar};
use super::*;

fn model() -> SimModel {
    let rel = |y: f64| RelationFit {
        pairs: 10,
        feature: Feature::Rouge1,
        pearson: 0.5,
        knots: vec![[0.2, y], [0.6, y + 1.0]],
        item_sd: 0.5,
        from: Vec::new(),
    };
    SimModel {
        fitted_on: "test".into(),
        bias_sd: 0.3,
        noise_sd: [0.5, 0.9],
        para: rel(3.0),
        rtt: rel(3.5),
        sampled: rel(0.5),
    }
}

#[test]
fn map_is_linear_between_knots_and_flat_outside() {
    let m = model();
    assert_eq!(m.para.map(0.0), 3.0);
    assert_eq!(m.para.map(0.4), 3.5);
    assert_eq!(m.para.map(1.0), 4.0);
    assert_eq!(Relation::of_source("airbnb-rtt"), Relation::Rtt);
    assert_eq!(Relation::of_source("paraKQC-para"), Relation::Para);
    assert_eq!(Relation::of_source("paraKQC-random"), Relation::Sampled);
    assert!(m.check().is_ok());
    let mut bad = m.clone();
    bad.sampled.knots = vec![[0.5, 2.0], [0.4, 3.0]];
    assert!(
        bad.check()
            .unwrap_err()
            .to_string()
            .starts_with("sampled.knots")
    );
}

#[test]
fn draws_are_deterministic_and_scores_integers_in_range() {
    let m = model();
    let p = m.pool(7, 1, 42);
    assert_eq!(p, m.pool(7, 1, 42));
    assert_ne!(p, m.pool(7, 1, 43));
    assert!(p[6].spammer && !p[5].spammer);
    for a in &p {
        assert!((0.5..=0.9).contains(&a.noise_sd), "{a:?}");
        for i in 0..50 {
            let item = format!("sts-{i:05}");
            let t = m.truth(42, &item, Relation::Para, "가나다", "가나라");
            let s = a.score(42, &item, t);
            assert_eq!(s, a.score(42, &item, t));
            assert_eq!(s, s.round());
            assert!((0.0..=5.0).contains(&s));
        }
    }
}

#[test]
fn simulated_bias_and_noise_match_the_parameters() {
    // Many annotators: their biases have SD ≈ bias_sd; one annotator's residual from the
    // true score (mid-range, so clamping does not bite) has mean ≈ bias and SD ≈
    // sqrt(noise² + 1/12) (rounding).
    let m = model();
    let p = m.pool(2000, 0, 7);
    let b: Vec<f64> = p.iter().map(|a| a.bias).collect();
    assert!((pvar(&b).sqrt() - 0.3).abs() < 0.02, "{}", pvar(&b).sqrt());
    assert!(mean(&b).abs() < 0.03);
    let a = &p[0];
    let r: Vec<f64> = (0..20_000)
        .map(|i| a.score(7, &format!("i{i}"), 2.5) - 2.5)
        .collect();
    assert!((mean(&r) - a.bias).abs() < 0.03, "{} {}", mean(&r), a.bias);
    let want = (a.noise_sd * a.noise_sd + 1.0 / 12.0).sqrt();
    assert!(
        (pvar(&r).sqrt() - want).abs() < 0.05,
        "{} {want}",
        pvar(&r).sqrt()
    );
    // Pair-level deviations have SD item_sd around the map.
    let t: Vec<f64> = (0..20_000)
        .map(|i| {
            m.truth(
                7,
                &format!("i{i}"),
                Relation::Sampled,
                "가나다라",
                "가나마바",
            ) - 1.25 // ROUGE-1 0.5 on the map [0.2, 0.5]–[0.6, 1.5]
        })
        .collect();
    assert!(mean(&t).abs() < 0.02 && (pvar(&t).sqrt() - 0.5).abs() < 0.02);
}

#[test]
fn features() {
    assert_eq!(Feature::LengthRatio.of("가나 다라", "가나"), 0.5);
    assert_eq!(Feature::Rouge1.of("가나다라", "가나다라"), 1.0);
    assert_eq!(Feature::Rouge2.of("가나다라", "라다나가"), 0.0);
    assert_eq!(Feature::LengthRatio.of("", ""), 0.0);
}

#[test]
fn pav_pools_decreasing_neighbours() {
    let b = pav(&[
        (0.1, 1.0, 1.0),
        (0.2, 3.0, 1.0),
        (0.3, 2.0, 1.0),
        (0.4, 4.0, 2.0),
    ]);
    assert_eq!(b.len(), 3);
    assert_eq!(b[1], (0.25, 2.5, 2.0));
    let k = fit_map(
        &(0..30)
            .map(|i| (i as f64 / 30.0, (i % 3) as f64))
            .collect::<Vec<_>>(),
    );
    assert!(
        k.windows(2)
            .all(|w| w[0][0] < w[1][0] && w[0][1] <= w[1][1]),
        "{k:?}"
    );
}

#[test]
fn fit_recovers_the_parameters_of_simulated_people() {
    // People simulated with known bias SD 0.3 and noise 0.7; the fit should find them.
    let mut m = model();
    m.noise_sd = [0.7, 0.7];
    // Mid-range true scores, so clamping at 0 and 5 does not shrink the spread.
    m.sampled.knots = vec![[0.2, 2.0], [0.6, 3.0]];
    let people = m.pool(12, 0, 5);
    let texts = [
        "가나다라마바사",
        "가나다라마바아",
        "가나다 자차카",
        "타파하",
    ];
    let mut pairs = Vec::new();
    for i in 0..900 {
        let source = ["paraKQC-para", "airbnb-rtt", "airbnb-sampled"][i % 3];
        let (s1, s2) = (texts[0], texts[1 + i % 3]);
        let guid = format!("p{i}");
        let t = m.truth(5, &guid, Relation::of_source(source), s1, s2);
        let who: Vec<&SimAnnotator> = (0..7).map(|k| &people[(i + k * 5) % 12]).collect();
        pairs.push(ScoredPair {
            guid: guid.clone(),
            source: source.into(),
            sentence1: s1.into(),
            sentence2: s2.into(),
            annotators: who.iter().map(|a| a.id.clone()).collect(),
            scores: who.iter().map(|a| a.score(5, &guid, t)).collect(),
        });
    }
    let f = fit(&pairs, "simulated", &[Relation::Para]).expect("fit");
    assert!((f.model.bias_sd - 0.3).abs() < 0.12, "{}", f.model.bias_sd);
    let [lo, hi] = f.model.noise_sd;
    assert!(lo > 0.45 && hi < 0.95, "{lo} {hi}");
    for r in [Relation::Para, Relation::Rtt, Relation::Sampled] {
        let g = f.model.relation(r);
        assert!((g.item_sd - 0.5).abs() < 0.15, "{r:?} {}", g.item_sd);
    }
    assert!(to_toml(&f.model).contains("para = { pairs = 300, feature = "));
    let back: toml::Table = toml::from_str(&to_toml(&f.model)).expect("toml");
    let t: SimModel = back["stage"]["simulator"]
        .clone()
        .try_into()
        .expect("model");
    assert_eq!(t, f.model);
    // The para map fitted on other relations' pairs says so, and reads back.
    let g = fit(&pairs, "simulated", &[Relation::Rtt]).expect("fit");
    assert_eq!(g.model.para.pairs, 300);
    assert_eq!(g.model.para.from, ["rtt"]);
    assert_eq!(g.model.para.knots, g.model.rtt.knots);
    let back: toml::Table = toml::from_str(&to_toml(&g.model)).expect("toml");
    let t: SimModel = back["stage"]["simulator"]
        .clone()
        .try_into()
        .expect("model");
    assert_eq!(t, g.model);
}
