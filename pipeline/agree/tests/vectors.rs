//! Every case of the shared reference vectors (copied to tests/fixtures with provenance)
//! passes within its tolerance.

use kcurate_agree::aggregate::{majority_matrix, mean_score};
use kcurate_agree::alpha::{Level, UnitCounts, alpha_counts};
use kcurate_agree::dawid_skene::{Model, Responses, fit};
use kcurate_agree::kappa::{Weights, cohen, count_table, fleiss};
use kcurate_agree::reliability::reliability;
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

#[test]
#[allow(
    clippy::too_many_lines,
    reason = "one pass over the reference vectors: each measure a case names is checked in turn"
)]
fn every_reference_case_passes() {
    let mut ran = std::collections::BTreeMap::<String, usize>::new();
    for c in cases() {
        let id = c["id"].as_str().unwrap();
        let tol = c["tolerance"].as_f64().unwrap_or(0.0);
        let m = c.get("matrix").and_then(Matrix::from_json);
        let measure = c["measure"].as_str().unwrap();
        match measure {
            "krippendorff_alpha" => {
                let u = match &m {
                    Some(m) => UnitCounts::from_matrix(m),
                    None => UnitCounts::from_table(labels(&c["categories"]), table(&c)),
                };
                close(
                    id,
                    "alpha",
                    alpha_counts(&u, level(&c)).unwrap(),
                    &c["expected"],
                    tol,
                );
            }
            "fleiss_kappa" => {
                close(id, "fleiss", fleiss(&table(&c)), &c["expected"], tol);
                // From raw ratings too, where the case has them.
                if let Some(m) = &m {
                    let (_, t) = count_table(m, &labels(&c["categories"]));
                    close(id, "fleiss from matrix", fleiss(&t), &c["expected"], tol);
                }
            }
            "cohen_kappa" => {
                let m = m.unwrap();
                let a: Vec<Label> = m.rows[0].iter().map(|x| x.clone().unwrap()).collect();
                let b: Vec<Label> = m.rows[1].iter().map(|x| x.clone().unwrap()).collect();
                let w = match c["params"]["weights"].as_str().unwrap() {
                    "linear" => Weights::Linear,
                    "quadratic" => Weights::Quadratic,
                    _ => Weights::None,
                };
                close(
                    id,
                    "cohen",
                    cohen(&a, &b, &labels(&c["categories"]), w),
                    &c["expected"],
                    tol,
                );
            }
            "annotator_reliability" => {
                let rel = reliability(&m.unwrap());
                for (r, e) in rel.iter().zip(c["expected"].as_array().unwrap()) {
                    assert_eq!(
                        r.items_compared as u64,
                        e["items_compared"].as_u64().unwrap(),
                        "{id}"
                    );
                    close(id, "pearson_r", r.pearson_r, &e["pearson_r"], tol);
                    close(
                        id,
                        "alpha_interval_vs_mean_of_others",
                        r.alpha_interval_vs_mean_of_others,
                        &e["alpha_interval_vs_mean_of_others"],
                        tol,
                    );
                    close(
                        id,
                        "alpha_nominal_pairwise_mean",
                        r.alpha_nominal_pairwise_mean,
                        &e["alpha_nominal_pairwise_mean"],
                        tol,
                    );
                    close(
                        id,
                        "alpha_interval_leave_one_out",
                        r.alpha_interval_leave_one_out,
                        &e["alpha_interval_leave_one_out"],
                        tol,
                    );
                    close(
                        id,
                        "alpha_nominal_leave_one_out",
                        r.alpha_nominal_leave_one_out,
                        &e["alpha_nominal_leave_one_out"],
                        tol,
                    );
                }
            }
            "majority_vote" => {
                let k = c["params"]["min_votes"].as_u64().unwrap() as usize;
                let got: Vec<Value> = majority_matrix(&m.unwrap(), k)
                    .iter()
                    .map(|l| l.as_ref().map_or(Value::Null, Label::to_json))
                    .collect();
                let want: Vec<Value> = c["expected"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|v| Label::from_json(v).map_or(Value::Null, |l| l.to_json()))
                    .collect();
                assert_eq!(got, want, "{id}");
            }
            "mean_score" => {
                let m = m.unwrap();
                let d = c["params"]["decimals"].as_u64().unwrap() as usize;
                for i in 0..m.items() {
                    let s: Vec<f64> = m.column(i).iter().filter_map(|l| l.num()).collect();
                    let got = mean_score(&s, d);
                    close(
                        id,
                        "real_label",
                        got.real_label,
                        &c["expected"]["real_label"][i],
                        tol,
                    );
                    close(id, "label", got.label, &c["expected"]["label"][i], tol);
                }
            }
            "dawid_skene" | "one_coin_dawid_skene" => {
                let m = m.unwrap();
                let cats = labels(&c["categories"]);
                let r = responses(&m, &cats);
                let model = if measure == "dawid_skene" {
                    Model::Full
                } else {
                    Model::OneCoin
                };
                let n_iter = c["params"]["n_iter"].as_u64().unwrap() as usize;
                let tol_em = c["params"]["tol"].as_f64().unwrap();
                let f = fit(&r, model, n_iter, tol_em);
                let e = &c["expected"];
                assert_eq!(
                    f.iterations as u64,
                    e["iterations"].as_u64().unwrap(),
                    "{id} iterations"
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
                assert_eq!(got, want, "{id} labels");
                for (i, row) in f.probas.iter().enumerate() {
                    for (k, p) in row.iter().enumerate() {
                        close(id, "probas", Some(*p), &e["probas"][i][k], tol);
                    }
                }
                for (k, p) in f.priors.iter().enumerate() {
                    close(id, "priors", Some(*p), &e["priors"][k], tol);
                }
                if model == Model::OneCoin {
                    for (w, s) in f.skills.iter().enumerate() {
                        close(id, "skills", Some(*s), &e["skills"][w], tol);
                    }
                } else {
                    for (w, ew) in f.errors.iter().enumerate() {
                        for (a, row) in ew.iter().enumerate() {
                            for (cc, x) in row.iter().enumerate() {
                                let want = &e["errors"][w][a][cc];
                                if !want.is_null() {
                                    close(id, "errors", Some(*x), want, tol);
                                }
                            }
                        }
                    }
                }
            }
            other => panic!("{id}: unknown measure {other}"),
        }
        *ran.entry(measure.to_string()).or_default() += 1;
    }
    assert_eq!(ran.values().sum::<usize>(), 110, "{ran:?}");
}

/// The same reference cases through the sparse table the CLI uses: α (grouped units and
/// leave-one-out), Fleiss' κ, majority, mean, Dawid–Skene and per-annotator reliability.
#[test]
#[allow(
    clippy::too_many_lines,
    reason = "one pass over the reference vectors through the sparse table: each measure checked in turn"
)]
fn every_reference_case_passes_through_the_sparse_table() {
    use kcurate_agree::alpha::{Units, alpha_leave_one_out, alpha_units};
    use kcurate_agree::kappa::fleiss_units;
    use kcurate_agree::reliability::reliability_table;
    use kcurate_agree::report::{Aggregation, aggregate_table};
    use kcurate_agree::table::Table;
    let mut ran = 0;
    for c in cases() {
        let id = c["id"].as_str().unwrap();
        let tol = c["tolerance"].as_f64().unwrap_or(0.0);
        let Some(m) = c.get("matrix").and_then(Matrix::from_json) else {
            continue;
        };
        let t = Table::from_matrix(&m);
        let u = Units::from_table(&t);
        match c["measure"].as_str().unwrap() {
            "krippendorff_alpha" => {
                let got = alpha_units(&u, level(&c)).unwrap();
                close(id, "alpha (table)", got, &c["expected"], tol);
            }
            "fleiss_kappa" => {
                // Categories listed but unused do not change κ.
                close(id, "fleiss (table)", fleiss_units(&u), &c["expected"], tol);
            }
            "annotator_reliability" => {
                let rel = reliability_table(&t);
                let loo_i = alpha_leave_one_out(&t, &u, Level::Interval).unwrap();
                let loo_n = alpha_leave_one_out(&t, &u, Level::Nominal).unwrap();
                for (a, e) in c["expected"].as_array().unwrap().iter().enumerate() {
                    assert_eq!(
                        rel[a].items_compared as u64,
                        e["items_compared"].as_u64().unwrap(),
                        "{id}"
                    );
                    close(id, "pearson_r", rel[a].pearson_r, &e["pearson_r"], tol);
                    close(
                        id,
                        "pairwise",
                        rel[a].alpha_nominal_pairwise_mean,
                        &e["alpha_nominal_pairwise_mean"],
                        tol,
                    );
                    close(
                        id,
                        "loo i",
                        loo_i[a],
                        &e["alpha_interval_leave_one_out"],
                        tol,
                    );
                    close(
                        id,
                        "loo n",
                        loo_n[a],
                        &e["alpha_nominal_leave_one_out"],
                        tol,
                    );
                }
            }
            "majority_vote" => {
                let k = c["params"]["min_votes"].as_u64().unwrap() as usize;
                let got: Vec<Value> = aggregate_table(&t, Aggregation::Majority { min_votes: k })
                    .into_iter()
                    .map(|v| v["label"].clone())
                    .collect();
                let want: Vec<Value> = c["expected"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|v| Label::from_json(v).map_or(Value::Null, |l| l.to_json()))
                    .collect();
                assert_eq!(got, want, "{id}");
            }
            "dawid_skene" => {
                // The CLI's fixed settings (100 iterations, tol 1e-5) are the reference's.
                let want: Vec<Value> = c["expected"]["labels"].as_array().unwrap().clone();
                let got: Vec<Value> =
                    aggregate_table(&t, Aggregation::DawidSkene { one_coin: false })
                        .into_iter()
                        .map(|v| v["label"].clone())
                        .collect();
                assert_eq!(got, want, "{id}");
            }
            _ => continue,
        }
        ran += 1;
    }
    assert!(ran >= 80, "{ran}");
}
