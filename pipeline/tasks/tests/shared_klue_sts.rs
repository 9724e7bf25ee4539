//! KLUE STS v1.1 dev in ../shared: every record's labels and agreement string recomputed
//! from its `annotations` with [`kcurate_tasks::sts::labels`]; the 0.5-bin histogram is
//! printed next to the uniform target (run with `-- --nocapture` to see it).

use kcurate_tasks::sts::labels::{agreement, bin_of, bins, klue_labels};
use serde_json::Value;

use kcurate_core::shared_dir as shared;

#[test]
#[ignore = "needs ../shared: make test-shared"]
fn klue_sts_dev_labels_recompute_and_histogram() {
    let p = shared().join("corpora/klue/klue-sts-v1.1/klue-sts-v1.1_dev.json");
    let text = std::fs::read_to_string(&p).expect("KLUE STS dev");
    let recs: Vec<Value> = serde_json::from_str(&text).expect("a JSON array");
    assert!(!recs.is_empty());
    let mut hist = vec![0usize; bins(0.5)];
    let mut mismatches = Vec::new();
    for r in &recs {
        let guid = r["guid"].as_str().expect("guid");
        let scores: Vec<f64> = r["annotations"]["annotations"]
            .as_array()
            .expect("annotations")
            .iter()
            .map(|x| x.as_f64().expect("numeric score"))
            .collect();
        let l = klue_labels(&scores, 1, 3.0).expect("scores");
        let want = &r["labels"];
        if Some(l.label) != want["label"].as_f64()
            || Some(l.real_label) != want["real-label"].as_f64()
            || Some(u64::from(l.binary)) != want["binary-label"].as_u64()
            || Some(agreement(&scores).as_str()) != r["annotations"]["agreement"].as_str()
        {
            mismatches.push(guid.to_string());
        }
        hist[bin_of(l.label, 0.5)] += 1;
    }
    let target = recs.len() as f64 / hist.len() as f64;
    println!("KLUE STS v1.1 dev (this subset): {} records", recs.len());
    println!("bin        count  uniform target");
    for (b, c) in hist.iter().enumerate() {
        println!(
            "[{:.1}, {:.1}{}  {c:5}  {target:.1}",
            b as f64 * 0.5,
            b as f64 * 0.5 + 0.5,
            if b + 1 == hist.len() { "]" } else { ")" }
        );
    }
    assert!(mismatches.is_empty(), "labels differ: {mismatches:?}");
    assert_eq!(hist.iter().sum::<usize>(), recs.len());
}
