//! False positives on real text that should hold almost no PII: KorSTS sentences and KLUE NLI
//! premises in ../shared. Prints hits per 10,000 sentences with examples (for the notes).

use kcurate_pii::detect::detect;

use kcurate_core::shared_dir as shared;

fn korsts() -> Vec<String> {
    let mut out = Vec::new();
    for f in [
        "corpora/kornlu/KorSTS/sts-train.tsv",
        "corpora/kornlu/KorSTS/sts-dev.tsv",
    ] {
        let mut rdr = csv::ReaderBuilder::new()
            .delimiter(b'\t')
            .quoting(false)
            .flexible(true)
            .from_path(shared().join(f))
            .unwrap();
        for r in rdr.records() {
            let r = r.unwrap();
            out.extend([r.get(5), r.get(6)].into_iter().flatten().map(String::from));
        }
    }
    out
}

fn klue_premises() -> Vec<String> {
    let v: Vec<serde_json::Value> = serde_json::from_str(
        &std::fs::read_to_string(
            shared().join("corpora/klue/klue-nli-v1.1/klue-nli-v1.1_dev.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let mut p: Vec<String> = v
        .iter()
        .map(|r| r["premise"].as_str().unwrap().to_string())
        .collect();
    p.dedup();
    p
}

#[test]
#[ignore = "needs ../shared: make test-shared"]
fn false_positives_on_clean_real_text_are_rare() {
    for (name, texts) in [("KorSTS", korsts()), ("KLUE NLI premises", klue_premises())] {
        let mut hits = Vec::new();
        for t in &texts {
            let chars: Vec<char> = t.chars().collect();
            for s in detect(t) {
                hits.push(format!(
                    "{}: {:?} in {:?}",
                    s.kind,
                    chars[s.start..s.end].iter().collect::<String>(),
                    t
                ));
            }
        }
        let per10k = hits.len() as f64 * 10_000.0 / texts.len() as f64;
        println!(
            "{name}: {} sentences, {} hits, {per10k:.2} per 10,000",
            texts.len(),
            hits.len()
        );
        for h in hits.iter().take(10) {
            println!("  {h}");
        }
        assert!(per10k < 20.0, "{name}: {per10k} hits per 10,000 sentences");
    }
}
