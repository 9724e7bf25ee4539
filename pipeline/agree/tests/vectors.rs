//! Every case of the shared reference vectors (copied to tests/fixtures with provenance)
//! passes within its tolerance.

use kcurate_agree::aggregate::{majority_matrix, mean_score};
use kcurate_agree::alpha::{
    Level, UnitCounts, Units, alpha_counts, alpha_leave_one_out, alpha_units,
};
use kcurate_agree::dawid_skene::{Model, Responses, fit};
use kcurate_agree::kappa::{Weights, cohen, count_table, fleiss, fleiss_units};
use kcurate_agree::reliability::{reliability, reliability_table};
use kcurate_agree::report::{Aggregation, aggregate_table};
use kcurate_agree::table::Table;
use kcurate_agree::{Label, Matrix};
use serde_json::Value;

fn cases() -> Vec<Value> {
    let v: Value = serde_json::from_str(include_str!("fixtures/vectors.json")).unwrap();
    v["cases"].as_array().unwrap().clone()
}

fn close(id: &str, what: &str, got: Option<f64>, expected: &Value, tol: f64) {
    match expected {
        Value::String(s) if s == "undefined" => {
            assert_eq!(got, None, "{id} {what}: expected undefined")
        }
        Value::Null => assert_eq!(got, None, "{id} {what}"),
        _ => {
            let e = expected.as_f64().unwrap();
            let g = got.unwrap_or_else(|| panic!("{id} {what}: undefined, expected {e}"));
            assert!(
                (g - e).abs() <= tol + 1e-15,
                "{id} {what}: got {g}, expected {e} (tol {tol})"
            );
        }
    }
}

fn level(c: &Value) -> Level {
    c["level"].as_str().unwrap().parse().unwrap()
}

fn labels(v: &Value) -> Vec<Label> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| Label::from_json(x).unwrap())
        .collect()
}

fn table(c: &Value) -> Vec<Vec<f64>> {
    c["table"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            r.as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_f64().unwrap())
                .collect()
        })
        .collect()
}

fn responses(m: &Matrix, cats: &[Label]) -> Responses {
    let mut r = Responses {
        items: m.items(),
        workers: m.annotators(),
        classes: cats.len(),
        rows: vec![],
    };
    for i in 0..m.items() {
        for w in 0..m.annotators() {
            if let Some(l) = m.get(w, i) {
                r.rows.push((
                    i as u32,
                    w as u32,
                    cats.iter().position(|c| c == l).unwrap() as u16,
                ));
            }
        }
    }
    r
}

/// A reference case as the checks read it: its id, tolerance and ratings (where it has them).
struct Case<'a> {
    c: &'a Value,
    id: &'a str,
    tol: f64,
    m: Option<Matrix>,
}

impl<'a> Case<'a> {
    fn new(c: &'a Value) -> Self {
        Case {
            c,
            id: c["id"].as_str().unwrap(),
            tol: c["tolerance"].as_f64().unwrap_or(0.0),
            m: c.get("matrix").and_then(Matrix::from_json),
        }
    }

    fn close(&self, what: &str, got: Option<f64>, expected: &Value) {
        close(self.id, what, got, expected, self.tol);
    }

    fn matrix(&self) -> &Matrix {
        self.m.as_ref().unwrap()
    }

    /// The expected majority labels, as JSON.
    fn majority(&self) -> Vec<Value> {
        self.c["expected"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| Label::from_json(v).map_or(Value::Null, |l| l.to_json()))
            .collect()
    }
}

fn check_alpha(k: &Case) {
    let c = k.c;
    let u = match &k.m {
        Some(m) => UnitCounts::from_matrix(m),
        None => UnitCounts::from_table(labels(&c["categories"]), table(c)),
    };
    k.close("alpha", alpha_counts(&u, level(c)).unwrap(), &c["expected"]);
}

fn check_fleiss(k: &Case) {
    let c = k.c;
    k.close("fleiss", fleiss(&table(c)), &c["expected"]);
    // From raw ratings too, where the case has them.
    if let Some(m) = &k.m {
        let (_, t) = count_table(m, &labels(&c["categories"]));
        k.close("fleiss from matrix", fleiss(&t), &c["expected"]);
    }
}

fn check_cohen(k: &Case) {
    let (c, m) = (k.c, k.matrix());
    let a: Vec<Label> = m.rows[0].iter().map(|x| x.clone().unwrap()).collect();
    let b: Vec<Label> = m.rows[1].iter().map(|x| x.clone().unwrap()).collect();
    let w = match c["params"]["weights"].as_str().unwrap() {
        "linear" => Weights::Linear,
        "quadratic" => Weights::Quadratic,
        _ => Weights::None,
    };
    k.close(
        "cohen",
        cohen(&a, &b, &labels(&c["categories"]), w),
        &c["expected"],
    );
}

fn check_reliability(k: &Case) {
    let rel = reliability(k.matrix());
    for (r, e) in rel.iter().zip(k.c["expected"].as_array().unwrap()) {
        assert_eq!(
            r.items_compared as u64,
            e["items_compared"].as_u64().unwrap(),
            "{}",
            k.id
        );
        k.close("pearson_r", r.pearson_r, &e["pearson_r"]);
        for (what, got) in [
            (
                "alpha_interval_vs_mean_of_others",
                r.alpha_interval_vs_mean_of_others,
            ),
            ("alpha_nominal_pairwise_mean", r.alpha_nominal_pairwise_mean),
            (
                "alpha_interval_leave_one_out",
                r.alpha_interval_leave_one_out,
            ),
            ("alpha_nominal_leave_one_out", r.alpha_nominal_leave_one_out),
        ] {
            k.close(what, got, &e[what]);
        }
    }
}

fn check_majority(k: &Case) {
    let n = k.c["params"]["min_votes"].as_u64().unwrap() as usize;
    let got: Vec<Value> = majority_matrix(k.matrix(), n)
        .iter()
        .map(|l| l.as_ref().map_or(Value::Null, Label::to_json))
        .collect();
    assert_eq!(got, k.majority(), "{}", k.id);
}

fn check_mean_score(k: &Case) {
    let (c, m) = (k.c, k.matrix());
    let d = c["params"]["decimals"].as_u64().unwrap() as usize;
    for i in 0..m.items() {
        let s: Vec<f64> = m.column(i).iter().filter_map(|l| l.num()).collect();
        let got = mean_score(&s, d);
        k.close(
            "real_label",
            got.real_label,
            &c["expected"]["real_label"][i],
        );
        k.close("label", got.label, &c["expected"]["label"][i]);
    }
}

fn check_dawid_skene(k: &Case, model: Model) {
    let c = k.c;
    let cats = labels(&c["categories"]);
    let r = responses(k.matrix(), &cats);
    let n_iter = c["params"]["n_iter"].as_u64().unwrap() as usize;
    let tol_em = c["params"]["tol"].as_f64().unwrap();
    let f = fit(&r, model, n_iter, tol_em);
    let e = &c["expected"];
    assert_eq!(
        f.iterations as u64,
        e["iterations"].as_u64().unwrap(),
        "{} iterations",
        k.id
    );
    let want: Vec<usize> = e["labels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            cats.iter()
                .position(|c| Some(c) == Label::from_json(l).as_ref())
                .unwrap()
        })
        .collect();
    let got: Vec<usize> = f.labels.iter().map(|l| l.unwrap()).collect();
    assert_eq!(got, want, "{} labels", k.id);
    for (i, row) in f.probas.iter().enumerate() {
        for (j, p) in row.iter().enumerate() {
            k.close("probas", Some(*p), &e["probas"][i][j]);
        }
    }
    for (j, p) in f.priors.iter().enumerate() {
        k.close("priors", Some(*p), &e["priors"][j]);
    }
    if model == Model::OneCoin {
        for (w, s) in f.skills.iter().enumerate() {
            k.close("skills", Some(*s), &e["skills"][w]);
        }
        return;
    }
    for (w, ew) in f.errors.iter().enumerate() {
        for (a, row) in ew.iter().enumerate() {
            for (cc, x) in row.iter().enumerate() {
                let want = &e["errors"][w][a][cc];
                if !want.is_null() {
                    k.close("errors", Some(*x), want);
                }
            }
        }
    }
}

#[test]
fn every_reference_case_passes() {
    let mut ran = std::collections::BTreeMap::<String, usize>::new();
    for c in cases() {
        let k = Case::new(&c);
        let measure = c["measure"].as_str().unwrap();
        match measure {
            "krippendorff_alpha" => check_alpha(&k),
            "fleiss_kappa" => check_fleiss(&k),
            "cohen_kappa" => check_cohen(&k),
            "annotator_reliability" => check_reliability(&k),
            "majority_vote" => check_majority(&k),
            "mean_score" => check_mean_score(&k),
            "dawid_skene" => check_dawid_skene(&k, Model::Full),
            "one_coin_dawid_skene" => check_dawid_skene(&k, Model::OneCoin),
            other => panic!("{}: unknown measure {other}", k.id),
        }
        *ran.entry(measure.to_string()).or_default() += 1;
    }
    assert_eq!(ran.values().sum::<usize>(), 110, "{ran:?}");
}

/// Per-annotator reliability through the sparse table.
fn check_reliability_table(k: &Case, t: &Table, u: &Units) {
    let rel = reliability_table(t);
    let loo_i = alpha_leave_one_out(t, u, Level::Interval).unwrap();
    let loo_n = alpha_leave_one_out(t, u, Level::Nominal).unwrap();
    for (a, e) in k.c["expected"].as_array().unwrap().iter().enumerate() {
        assert_eq!(
            rel[a].items_compared as u64,
            e["items_compared"].as_u64().unwrap(),
            "{}",
            k.id
        );
        k.close("pearson_r", rel[a].pearson_r, &e["pearson_r"]);
        k.close(
            "pairwise",
            rel[a].alpha_nominal_pairwise_mean,
            &e["alpha_nominal_pairwise_mean"],
        );
        k.close("loo i", loo_i[a], &e["alpha_interval_leave_one_out"]);
        k.close("loo n", loo_n[a], &e["alpha_nominal_leave_one_out"]);
    }
}

/// The labels `aggregate_table` gives.
fn aggregated(t: &Table, how: Aggregation) -> Vec<Value> {
    aggregate_table(t, how)
        .into_iter()
        .map(|v| v["label"].clone())
        .collect()
}

/// The same reference cases through the sparse table the CLI uses: α (grouped units and
/// leave-one-out), Fleiss' κ, majority, mean, Dawid–Skene and per-annotator reliability.
#[test]
fn every_reference_case_passes_through_the_sparse_table() {
    let mut ran = 0;
    for c in cases() {
        let k = Case::new(&c);
        let Some(m) = &k.m else {
            continue;
        };
        let t = Table::from_matrix(m);
        let u = Units::from_table(&t);
        match c["measure"].as_str().unwrap() {
            "krippendorff_alpha" => {
                let got = alpha_units(&u, level(&c)).unwrap();
                k.close("alpha (table)", got, &c["expected"]);
            }
            // Categories listed but unused do not change κ.
            "fleiss_kappa" => k.close("fleiss (table)", fleiss_units(&u), &c["expected"]),
            "annotator_reliability" => check_reliability_table(&k, &t, &u),
            "majority_vote" => {
                let n = c["params"]["min_votes"].as_u64().unwrap() as usize;
                let got = aggregated(&t, Aggregation::Majority { min_votes: n });
                assert_eq!(got, k.majority(), "{}", k.id);
            }
            "dawid_skene" => {
                // The CLI's fixed settings (100 iterations, tol 1e-5) are the reference's.
                let want: Vec<Value> = c["expected"]["labels"].as_array().unwrap().clone();
                let got = aggregated(&t, Aggregation::DawidSkene { one_coin: false });
                assert_eq!(got, want, "{}", k.id);
            }
            _ => continue,
        }
        ran += 1;
    }
    assert!(ran >= 80, "{ran}");
}
