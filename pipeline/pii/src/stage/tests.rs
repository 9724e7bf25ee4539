use super::*;
use kcurate_core::{Action, Decision};

fn drop_decision(stage: &str, text: &str) -> Decision {
    Decision {
        item: "x".into(),
        stage: stage.into(),
        rule: RuleId::new(format!("{stage}.rule")),
        action: Action::Drop,
        detail: String::new(),
        score: None,
        span: None,
        text: Some(text.into()),
        source: "s".into(),
        origin: "f:1".into(),
    }
}

/// A drop's text is scrubbed at every stage, the `pii` stage's own drops included: the
/// phone number never reaches the audit, the rest of the sentence does.
#[test]
fn a_dropped_text_keeps_no_pii_original() {
    let key = PiiKey::new(b"k".to_vec()).unwrap();
    for stage in ["filter", "pii"] {
        let mut d = drop_decision(stage, "문의는 010-2345-6789로 연락 주세요");
        Scrubber::new(key.clone(), Options::default(), Vec::new()).scrub_decision(&mut d);
        let t = d.text.unwrap();
        assert!(!t.contains("010-2345-6789"), "{stage}: {t}");
        assert!(t.starts_with("문의는 ⟨phone:"), "{stage}: {t}");
        assert!(t.ends_with("⟩로 연락 주세요"), "{stage}: {t}");
    }
}

fn scrub(allow: &[&str]) -> Scrubber {
    Scrubber::new(
        PiiKey::new(b"test-key".to_vec()).unwrap(),
        Options::default(),
        allow.iter().map(|s| s.to_string()).collect(),
    )
}

#[test]
fn a_sentence_safe_id_extends_its_document_safe_id() {
    let s = scrub(&[]);
    for doc in [
        "src-010-2345-6789",
        "src-gildong@example.co.kr",
        "src-4375 9735 2929 7829",
    ] {
        let safe = s.safe_id("src", doc);
        assert_ne!(safe, doc);
        assert!(safe.starts_with("src-"));
        assert_eq!(
            s.safe_id("src", &format!("{doc}-s003")),
            format!("{safe}-s003")
        );
        assert_eq!(
            s.safe_id("src", &format!("{doc}-s001-s012")),
            format!("{safe}-s001-s012")
        );
    }
    assert_eq!(
        s.safe_id("nsmc", "nsmc-10000003-s001"),
        "nsmc-10000003-s001"
    );
}

#[test]
fn id_allow_keeps_a_type_in_ids() {
    let url = "wikinews-https://ko.wikinews.org/wiki/abc";
    let safe = scrub(&[]).safe_id("wikinews", url);
    assert_ne!(safe, url);
    assert!(safe.starts_with("wikinews-https://"), "{safe}");
    assert_eq!(scrub(&["url"]).safe_id("wikinews", url), url);
}

#[test]
fn only_decisions_of_stages_before_pii_get_safe_ids() {
    // Recipe order normalize, filter, pii, assign_split (as from_settings computes it).
    let s = Scrubber {
        before_pii: Some(
            ["ingest", "license", "normalize", "filter"]
                .map(String::from)
                .to_vec(),
        ),
        ..scrub(&[])
    };
    let d = |stage: &str| kcurate_core::Decision {
        item: "src-010-2345-6789-s000".into(),
        stage: stage.into(),
        rule: RuleId::new("x.y"),
        action: kcurate_core::Action::Drop,
        detail: "전화 010-2345-6789".into(),
        score: None,
        span: None,
        text: None,
        source: "src".into(),
        origin: "f:1".into(),
    };
    let mut before = d("filter");
    s.scrub_decision(&mut before);
    assert_eq!(before.item, s.safe_id("src", "src-010-2345-6789-s000"));
    assert!(!before.detail.contains("010-2345-6789"));
    // A later stage's item is already a safe id: not rewritten again.
    let mut after = d("assign_split");
    s.scrub_decision(&mut after);
    assert_eq!(after.item, "src-010-2345-6789-s000");
}
