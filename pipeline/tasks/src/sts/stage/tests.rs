use super::*;
use kcurate_core::{Kind, Origin};
use serde_json::json;

fn stage(settings: &str) -> StsStage {
    StsStage {
        cfg: toml::from_str(settings).expect("settings"),
        seed: 1,
        rtt: BTreeMap::new(),
        imported: None,
        intent_maps: BTreeMap::new(),
    }
}

/// Three intents of 4 utterances, one topic; `same` is written in intents 0 and 2.
fn records(same: &str) -> Vec<Record> {
    (0..12)
        .map(|i| Record {
            id: format!("p-{i}"),
            kind: Kind::Sentence,
            source: "p".into(),
            origin: Origin {
                file: "p.tsv".into(),
                line: i + 1,
            },
            text: match i {
                1 | 10 => same.to_string(),
                _ => format!(
                    "{}번 문장 {}",
                    i,
                    "가나다라마바사".chars().nth(i as usize % 7).unwrap()
                ),
            },
            fields: BTreeMap::from([("topic".to_string(), json!(1))]),
            ..Record::default()
        })
        .collect()
}

#[test]
fn sampled_pairs_take_the_next_intents_of_the_topic_and_the_most_similar_utterances() {
    let recs = records("내일 서울 날씨 알려줘");
    let sampled = |st: &StsStage| -> Vec<(usize, usize)> {
        st.candidates(&recs)
            .into_iter()
            .filter(|c| c.source == "paraKQC-sampled")
            .map(|c| (c.a, c.b))
            .collect()
    };
    // One per intent by default: the last utterance with the next intent's first.
    let one = stage("intent_sources = [\"p\"]\nintent_block = 4");
    assert_eq!(sampled(&one), [(3, 4), (7, 8)]);
    // Two next intents each; the j-th from utterances j from the end / start.
    let two = stage("intent_sources = [\"p\"]\nintent_block = 4\nsampled_per_intent = 2");
    assert_eq!(sampled(&two), [(3, 4), (2, 9), (7, 8)]);
    // The most similar utterances: intent 0 and intent 2 share a sentence.
    let sim = stage(
        "intent_sources = [\"p\"]\nintent_block = 4\nsampled_per_intent = 2\nsampled_most_similar = true",
    );
    let s = sampled(&sim);
    assert_eq!(s.len(), 3);
    assert_eq!(s[1], (1, 10));
}
