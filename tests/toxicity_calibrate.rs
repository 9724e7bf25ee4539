//! `kcurate toxicity calibrate`: a domain's thresholds from judged samples. The thresholds it
//! prints keep the clean items a head drops within the target, and it lists the items
//! nearest each threshold for judging.

mod common;
use common::{kcurate, stderr, stdout};

#[test]
fn calibrated_thresholds_keep_false_drops_within_the_target_and_list_near_items() {
    let d = tempfile::tempdir().unwrap();
    let model = d.path().join("m.model");
    let m = model.to_str().unwrap();
    let o = kcurate(&[
        "toxicity",
        "train",
        "--data",
        "data-samples/toxicity/labeled.tsv",
        "--out",
        m,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    // Judged items of a "domain": three clean, one gender-biased, one hateful.
    let judged = d.path().join("judged.tsv");
    std::fs::write(
        &judged,
        "comments\tbias\thate\n배우들 연기가 좋았다\tnone\tnone\n여자들은 원래 감정적이라서 안 돼\tgender\thate\n음악이 좋은 영화\tnone\tnone\n재미있게 봤어요\tnone\tnone\n이런 쓰레기 같은 놈들\tnone\thate\n",
    )
    .unwrap();
    let j = judged.to_str().unwrap();
    let o = kcurate(&[
        "toxicity",
        "calibrate",
        "--model",
        m,
        "--data",
        j,
        "--target",
        "0",
        "--near",
        "2",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    for head in ["gender_bias", "hate"] {
        let line = out
            .lines()
            .find(|l| l.starts_with(&format!("{head} >= ")))
            .unwrap_or_else(|| panic!("no {head} line:\n{out}"));
        assert!(line.contains(": 0 of 3 clean dropped (0.00%)"), "{line}");
    }
    assert!(
        out.contains("domains = { <domain> = { gender_bias = "),
        "{out}"
    );
    // Two items listed per head, each with its data row, score and judgement.
    let near: Vec<&str> = out
        .lines()
        .filter(|l| l.ends_with("  clean") || l.ends_with("  toxic"))
        .collect();
    assert_eq!(near.len(), 4, "{out}");
    let o = kcurate(&[
        "toxicity",
        "calibrate",
        "--model",
        m,
        "--data",
        j,
        "--target",
        "1.5",
    ]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("--target 1.5"), "{}", stderr(&o));
}
