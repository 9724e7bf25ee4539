//! Runs every example of `rules/nli_screen.toml`: `text` is the hypothesis, `premise` the
//! premise, `label` the gold label (default neutral), `also` further pairs of the same input
//! ([premise, hypothesis, label]); `expect = "<drop>"` means the example's own rule is the
//! first to fire, `"<keep>"` that no rule of the file fires.

use kcurate_tasks::challenge::nli_screen::{NLI_SCREEN_TOML, Screen, ScreenPair};
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
    also: Vec<[String; 3]>,
    expect: String,
}

#[test]
fn every_nli_screen_example_holds() {
    let screen = Screen::parse(Path::new("rules/nli_screen.toml"), NLI_SCREEN_TOML).unwrap();
    let file: File = toml::from_str(NLI_SCREEN_TOML).unwrap();
    let mut checked = 0;
    for r in &file.rule {
        assert!(!r.example.is_empty(), "{}", r.id);
        for (k, e) in r.example.iter().enumerate() {
            let label = e.label.clone().unwrap_or_else(|| "neutral".into());
            let mut pairs = vec![ScreenPair {
                premise: &e.premise,
                hypothesis: &e.text,
                label: &label,
            }];
            for [p, h, l] in &e.also {
                pairs.push(ScreenPair {
                    premise: p,
                    hypothesis: h,
                    label: l,
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
    assert!(checked >= 18, "{checked}");
}
