//! Runs every example of `rules/ynat_topics.toml` through the whole file: `text` is a
//! title, `body` (optional) its first lines, `expect` the topic the file assigns or
//! "<none>" (the item would leave with tc.no_topic). An example under a rule that expects
//! another topic is a negative example of that rule.

use kcurate_tasks::tc_topics::{TopicRules, YNAT_TOPICS_TOML};
use std::path::Path;

#[derive(serde::Deserialize)]
struct File {
    rule: Vec<Rule>,
}

#[derive(serde::Deserialize)]
struct Rule {
    id: String,
    topic: String,
    example: Vec<Example>,
}

#[derive(serde::Deserialize)]
struct Example {
    text: String,
    #[serde(default)]
    body: String,
    expect: String,
}

#[test]
fn every_ynat_topic_example_holds() {
    let rules = TopicRules::parse(Path::new("rules/ynat_topics.toml"), YNAT_TOPICS_TOML).unwrap();
    let file: File = toml::from_str(YNAT_TOPICS_TOML).unwrap();
    let (mut positive, mut other) = (0, 0);
    for r in &file.rule {
        for (k, e) in r.example.iter().enumerate() {
            let got = rules.classify(&e.text, &e.body);
            let got = got.map(|h| h.topic).unwrap_or_else(|| "<none>".into());
            assert_eq!(got, e.expect, "{} example {k}: {:?}", r.id, e.text);
            if e.expect == r.topic {
                positive += 1;
            } else {
                other += 1;
            }
        }
    }
    // Every rule has a positive example; the file has negative ones too.
    for r in &file.rule {
        assert!(r.example.iter().any(|e| e.expect == r.topic), "{}", r.id);
    }
    assert!(positive >= 14 && other >= 4, "{positive} {other}");
}
