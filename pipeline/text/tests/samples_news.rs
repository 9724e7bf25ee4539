//! The noise rules on the bundled news sample (`data-samples/news/news.jsonl`): after
//! normalize + noise (news rules on), no press tag, byline, caption, copyright line or
//! hashtag is left, and the articles' sentences are intact.

use kcurate_text::noise::{NoiseOutcome, NoiseRules};
use kcurate_text::normalize::{NormalizeOptions, normalize};
use std::path::Path;

#[test]
fn news_sample_boilerplate_is_removed() {
    let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
    let Ok(data) = std::fs::read_to_string(root.join("data-samples/news/news.jsonl")) else {
        // The sample is the lead's; without it there is nothing to check here.
        eprintln!("data-samples/news/news.jsonl not found");
        return;
    };
    let rules = NoiseRules::load(&root.join("rules/noise.toml")).expect("rules");
    let press = regex::Regex::new(r"\([가-힣]+=[가-힣A-Za-z0-9]+\)").expect("re");
    let mut n = 0;
    for (i, line) in data
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        // The sample holds deliberately broken lines for the quarantine tests.
        let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        let Some(text) = v["text"].as_str() else {
            continue;
        };
        let (text, _) = normalize(text, &NormalizeOptions::default());
        let out = match rules.apply(&text, true) {
            NoiseOutcome::Unchanged => text.clone(),
            NoiseOutcome::Kept { text, .. } => text,
            NoiseOutcome::Dropped { rule, .. } => panic!("line {}: dropped by {rule}", i + 1),
        };
        for bad in [
            "기자 =",
            "무단 전재",
            "무단전재",
            "ⓒ",
            "©",
            "사진=",
            "#속보",
            "@",
        ] {
            assert!(
                !out.contains(bad),
                "line {}: {bad:?} left in {out:?}",
                i + 1
            );
        }
        assert!(
            !press.is_match(&out),
            "line {}: press tag left in {out:?}",
            i + 1
        );
        let sents = kcurate_text::split_str(&out);
        assert!(sents.iter().all(|s| !s.trim().is_empty()));
        n += 1;
    }
    assert!(n > 0);
}
