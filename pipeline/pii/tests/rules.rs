//! Every example of rules/pii.toml: the detector finds exactly the listed values.

use kcurate_core::rules::parse_rules;
use kcurate_pii::detect::{OPTIONAL_TYPES, Options, RULES_TOML, TYPES, detect_opts};
use kcurate_pii::validate::REFERENCE_DATE;

#[test]
fn every_rule_example_holds() {
    let rules = parse_rules(std::path::Path::new("rules/pii.toml"), RULES_TOML).unwrap();
    assert_eq!(
        rules.len(),
        TYPES.len() + OPTIONAL_TYPES.len(),
        "one rule per SPEC type and per optional type"
    );
    // The examples run with the optional detectors on: they show what each finds.
    let all = Options { user_ids: true };
    for r in &rules {
        let kind = r.params["type"].as_str().unwrap();
        assert!(r.examples.len() >= 3, "{}: needs three examples", r.id);
        for ex in &r.examples {
            let chars: Vec<char> = ex.text.chars().collect();
            let found: Vec<String> = detect_opts(&ex.text, REFERENCE_DATE, all)
                .into_iter()
                .filter(|s| s.kind == kind)
                .map(|s| chars[s.start..s.end].iter().collect())
                .collect();
            assert_eq!(found, ex.matches, "{}: {:?}", r.id, ex.text);
        }
    }
}

#[test]
fn optional_detectors_are_off_by_default() {
    let text = "jin1****님처럼 저도 봤는데";
    assert!(kcurate_pii::detect(text).is_empty());
    assert_eq!(
        detect_opts(text, REFERENCE_DATE, Options { user_ids: true }).len(),
        1
    );
}
