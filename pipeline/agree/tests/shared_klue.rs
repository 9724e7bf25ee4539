//! KLUE STS and NLI dev parts in ../shared: their labels recomputed from the annotation
//! fields match every record; α and the Table 5 statistics are printed for the notes.

use kcurate_agree::aggregate::{majority, mean_score, validation_stats};
use kcurate_agree::alpha::{Level, alpha};
use kcurate_agree::{Label, Matrix};
use serde_json::Value;

use kcurate_core::shared_dir as shared;

fn load(rel: &str) -> Vec<Value> {
    let p = shared().join(rel);
    serde_json::from_str(
        &std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display())),
    )
    .unwrap()
}

#[test]
#[ignore = "needs ../shared: make test-shared"]
fn klue_sts_labels_recompute_from_annotations() {
    let recs = load("corpora/klue/klue-sts-v1.1/klue-sts-v1.1_dev.json");
    assert_eq!(recs.len(), 141);
    // Annotators × pairs for α (annotator ids are shared across pairs).
    let mut ids: Vec<String> = recs
        .iter()
        .flat_map(|r| {
            r["annotations"]["annotators"]
                .as_array()
                .unwrap()
                .iter()
                .map(|a| a.as_str().unwrap().to_string())
        })
        .collect();
    ids.sort();
    ids.dedup();
    let mut rows = vec![vec![None; recs.len()]; ids.len()];
    let mut hist = [0usize; 11];
    for (i, r) in recs.iter().enumerate() {
        let scores: Vec<f64> = r["annotations"]["annotations"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap())
            .collect();
        let m = mean_score(&scores, 1);
        let labels = &r["labels"];
        assert!(
            (m.real_label.unwrap() - labels["real-label"].as_f64().unwrap()).abs() < 1e-9,
            "{}: real-label",
            r["guid"]
        );
        assert_eq!(
            m.label.unwrap(),
            labels["label"].as_f64().unwrap(),
            "{}: label",
            r["guid"]
        );
        let binary = if m.label.unwrap() >= 3.0 { 1 } else { 0 };
        assert_eq!(
            binary,
            labels["binary-label"].as_i64().unwrap(),
            "{}: binary-label",
            r["guid"]
        );
        // agreement = counts of the scores 0..5
        let mut counts = [0usize; 6];
        for s in &scores {
            counts[*s as usize] += 1;
        }
        let agreement: Vec<String> = counts.iter().map(|c| c.to_string()).collect();
        assert_eq!(
            agreement.join(":"),
            r["annotations"]["agreement"].as_str().unwrap(),
            "{}: agreement",
            r["guid"]
        );
        for (a, s) in r["annotations"]["annotators"]
            .as_array()
            .unwrap()
            .iter()
            .zip(&scores)
        {
            let k = ids.binary_search(&a.as_str().unwrap().to_string()).unwrap();
            rows[k][i] = Some(Label::Num(*s));
        }
        hist[((m.label.unwrap() / 0.5).floor() as usize).min(10)] += 1;
    }
    let m = Matrix::new(rows);
    let ai = alpha(&m, Level::Interval).unwrap().unwrap();
    let an = alpha(&m, Level::Nominal).unwrap().unwrap();
    let ao = alpha(&m, Level::Ordinal).unwrap().unwrap();
    println!(
        "KLUE STS dev part: {} pairs, {} annotators; alpha interval {ai:.4}, ordinal {ao:.4}, nominal {an:.4}",
        recs.len(),
        ids.len()
    );
    println!("label histogram (0.5 bins from 0): {hist:?}");
    assert!(ai > 0.5, "interval alpha {ai}");
}

#[test]
#[ignore = "needs ../shared: make test-shared"]
fn klue_nli_gold_recomputes_from_five_votes() {
    let recs = load("corpora/klue/klue-nli-v1.1/klue-nli-v1.1_dev.json");
    assert_eq!(recs.len(), 864);
    let mut items = Vec::new();
    let mut by_votes = std::collections::BTreeMap::new();
    for r in &recs {
        let labs: Vec<Label> = ["author", "label2", "label3", "label4", "label5"]
            .iter()
            .map(|k| Label::Text(r[*k].as_str().unwrap().to_string()))
            .collect();
        let refs: Vec<&Label> = labs.iter().collect();
        let gold = majority(&refs, 3);
        let want = r["gold_label"].as_str().unwrap();
        assert_eq!(
            gold.as_ref().map(|g| g.to_string()),
            Some(want.to_string()),
            "{}",
            r["guid"]
        );
        let agree = labs.iter().filter(|l| Some(*l) == gold.as_ref()).count();
        *by_votes.entry(agree).or_insert(0usize) += 1;
        items.push(labs);
    }
    let s = validation_stats(&items, 3);
    // Label matrix (5 "annotator slots" × pairs) for nominal α.
    let rows: Vec<Vec<Option<Label>>> = (0..5)
        .map(|k| items.iter().map(|l| Some(l[k].clone())).collect())
        .collect();
    let a = alpha(&Matrix::new(rows), Level::Nominal).unwrap().unwrap();
    println!(
        "KLUE NLI dev part: {} pairs; 5/5 {} 4/5 {} 3/5 {}; unanimous {:.2}%, individual = gold {:.2}%, no gold {:.2}%; nominal alpha (5 label slots) {a:.4}",
        s.pairs,
        by_votes.get(&5).unwrap_or(&0),
        by_votes.get(&4).unwrap_or(&0),
        by_votes.get(&3).unwrap_or(&0),
        s.unanimous * 100.0,
        s.individual_equals_gold * 100.0,
        s.no_gold * 100.0
    );
    assert_eq!(s.no_gold, 0.0);
}
