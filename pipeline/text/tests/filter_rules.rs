//! Runs every example of `rules/filter.toml` through the filter stage (min_chars = 5): a
//! `keep` example passes every check, a `<drop>` one is dropped by the rule under test.

use kcurate_text::short::{RULES_TOML, ShortRules};
use kcurate_text::stages::filter::{FilterConfig, FilterStage};
use std::path::Path;

#[test]
fn every_filter_rule_example_passes() {
    let path = Path::new("rules/filter.toml");
    let defs =
        kcurate_core::rules::parse_rules(path, RULES_TOML).expect("rules/filter.toml parses");
    ShortRules::from_defs(path, &defs).expect("rules/filter.toml is valid");
    let f = FilterStage::new(FilterConfig {
        min_chars: Some(5),
        ..FilterConfig::default()
    });
    let mut failures = Vec::new();
    for d in &defs {
        assert!(d.examples.len() >= 3, "{}: needs at least 3 examples", d.id);
        for ex in &d.examples {
            let got = match f.check(&ex.text) {
                None => "keep".to_string(),
                Some((rule, ..)) if rule == d.id => "<drop>".to_string(),
                Some((rule, ..)) => format!("dropped by {rule}"),
            };
            if Some(got.as_str()) != ex.expect.as_deref() {
                failures.push(format!(
                    "{}: {:?} → {got}, expected {:?}",
                    d.id, ex.text, ex.expect
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
