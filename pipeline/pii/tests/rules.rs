//! Every example of rules/pii.toml: the detector finds exactly the listed values.

use kcurate_core::rules::parse_rules;
use kcurate_pii::detect::{RULES_TOML, detect};

#[test]
fn every_rule_example_holds() {
    let rules = parse_rules(std::path::Path::new("rules/pii.toml"), RULES_TOML).unwrap();
    assert_eq!(rules.len(), 16, "one rule per SPEC type");
    for r in &rules {
        let kind = r.params["type"].as_str().unwrap();
        assert!(r.examples.len() >= 3, "{}: needs three examples", r.id);
        for ex in &r.examples {
            let chars: Vec<char> = ex.text.chars().collect();
            let found: Vec<String> = detect(&ex.text)
                .into_iter()
                .filter(|s| s.kind == kind)
                .map(|s| chars[s.start..s.end].iter().collect())
                .collect();
            assert_eq!(found, ex.matches, "{}: {:?}", r.id, ex.text);
        }
    }
}
