//! The NLI/TC vote simulator's confusion fitted on KLUE NLI dev in ../shared.

/// Simulated NLI validation votes fitted on KLUE NLI dev (`label2`…`label5` against
/// `gold_label`): the fit's table is printed, and votes simulated from gold with it agree
/// with gold as often as KLUE's validators did (figures printed).
#[test]
#[ignore = "needs ../shared: make test-shared"]
fn nli_vote_confusion_fitted_on_klue_dev_reproduces_validator_agreement() {
    use kcurate_tasks::votes::fit_klue_nli;
    let p = kcurate_core::shared_dir().join("corpora/klue/klue-nli-v1.1/klue-nli-v1.1_dev.json");
    let text = std::fs::read_to_string(&p).expect("KLUE NLI dev");
    let m = fit_klue_nli(&text, "klue-nli-v1.1_dev.json").expect("fit");
    print!("{}", m.to_toml("votes"));
    let recs: Vec<serde_json::Value> = serde_json::from_str(&text).expect("array");
    let pool = m.pool(4, 0, 42);
    let (mut real, mut sim, mut n) = (0usize, 0usize, 0usize);
    for r in &recs {
        let gold = r["gold_label"].as_str().expect("gold");
        let id = r["guid"].as_str().expect("guid");
        for (k, f) in ["label2", "label3", "label4", "label5"].iter().enumerate() {
            real += usize::from(r[*f].as_str() == Some(gold));
            sim += usize::from(m.vote(42, id, &pool[k], gold) == gold);
            n += 1;
        }
    }
    let (a, b) = (real as f64 / n as f64, sim as f64 / n as f64);
    println!(
        "validator votes equal to gold: KLUE {real}/{n} ({a:.4}), simulated {sim}/{n} ({b:.4})"
    );
    assert!(m.confusion.len() == 3 && (a - b).abs() < 0.02);
    let [lo, hi] = m.error_scale;
    assert!(lo > 0.5 && hi < 1.5 && lo <= hi, "{lo} {hi}");
}
