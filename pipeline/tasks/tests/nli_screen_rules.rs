//! Runs every example of `rules/nli_screen.toml` and `rules/nli_votes.toml`: `text` is the
//! hypothesis, `premise` the premise, `label` the gold label (default neutral), `fields` the
//! pair's carried fields (annotators' labels), `also` further pairs of the same input
//! ([premise, hypothesis, label]); `expect = "<drop>"` means the example's own rule is the
//! first of its file to fire, `"<keep>"` that no rule of the file fires.

use kcurate_tasks::challenge::nli_screen::{NLI_SCREEN_TOML, NLI_VOTES_TOML, Screen, ScreenPair};
use std::collections::BTreeMap;
use std::path::Path;

#[derive(serde::Deserialize)]
struct File {
    rule: Vec<Rule>,
}

#[derive(serde::Deserialize)]
struct Rule {
    id: String,
    example: Vec<Example>,
}

#[derive(serde::Deserialize)]
struct Example {
    text: String,
    premise: String,
    #[serde(default)]
    label: Option<String>,
    #[serde(default)]
    fields: BTreeMap<String, String>,
    #[serde(default)]
    also: Vec<[String; 3]>,
    expect: String,
}

/// Checks every example of one rule file; returns how many.
fn check(name: &str, text: &str) -> usize {
    let screen = Screen::parse(Path::new(name), text).unwrap();
    let file: File = toml::from_str(text).unwrap();
    let mut checked = 0;
    for r in &file.rule {
        assert!(!r.example.is_empty(), "{}", r.id);
        for (k, e) in r.example.iter().enumerate() {
            let label = e.label.clone().unwrap_or_else(|| "neutral".into());
            let fields: BTreeMap<String, serde_json::Value> = e
                .fields
                .iter()
                .map(|(k, v)| (k.clone(), serde_json::Value::from(v.as_str())))
                .collect();
            let mut pairs = vec![ScreenPair {
                premise: &e.premise,
                hypothesis: &e.text,
                label: &label,
                fields: Some(&fields),
            }];
            for [p, h, l] in &e.also {
                pairs.push(ScreenPair {
                    premise: p,
                    hypothesis: h,
                    label: l,
                    fields: None,
                });
            }
            let got = screen.screen(&pairs).remove(0).map(|h| h.rule);
            match e.expect.as_str() {
                "<drop>" => assert_eq!(got.as_deref(), Some(r.id.as_str()), "{} example {k}", r.id),
                "<keep>" => assert_eq!(got, None, "{} example {k}", r.id),
                x => panic!("{} example {k}: expect {x:?}", r.id),
            }
            checked += 1;
        }
    }
    checked
}

#[test]
fn every_nli_screen_example_holds() {
    let checked = check("rules/nli_screen.toml", NLI_SCREEN_TOML);
    assert!(checked >= 18, "{checked}");
}

#[test]
fn every_nli_votes_example_holds() {
    let checked = check("rules/nli_votes.toml", NLI_VOTES_TOML);
    assert!(checked >= 5, "{checked}");
}
