use super::*;

#[test]
fn wilson_interval_matches_the_worked_example() {
    // 48 of 50: precision 0.96, Wilson 95% [0.8654, 0.9890].
    let r = RulePrecision::new(48, 50);
    assert_eq!(r.summary(), "48/50 correct, precision 0.96 [0.87, 0.99]");
    assert!(
        (r.low - 0.8654).abs() < 1e-4 && (r.high - 0.9890).abs() < 1e-4,
        "{r:?}"
    );
    // All right is not certainty; none judged is no information.
    let (lo, hi) = wilson(20, 20);
    assert!(
        (lo - 0.8389).abs() < 1e-4 && (hi - 1.0).abs() < 1e-9,
        "{lo} {hi}"
    );
    assert_eq!(wilson(0, 0), (0.0, 1.0));
}

#[test]
fn tsv_judgements_count_once_per_item_and_skip_empty_cells() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("j.tsv");
    std::fs::write(
        &p,
        "item\tstage\trule\taction\ttext\tbefore\tafter\tjudgement\n\
             a\tfilter\tfilter.too_short\tdrop\t최고다.\t\t\tcorrect\n\
             b\tfilter\tfilter.too_short\tdrop\tㅋ\t\t\twrong\n\
             a\tfilter\tfilter.too_short\tdrop\t최고다.\t\t\tcorrect\n\
             c\tnoise\tnoise.hashtag\tedit\t\t #속보\t \t\n",
    )
    .unwrap();
    let p = precision(&read_judgements(&p).unwrap());
    assert_eq!(p["filter.too_short"].correct, 1);
    assert_eq!(p["filter.too_short"].judged, 2);
    assert!(
        !p.contains_key("noise.hashtag"),
        "an empty cell is not judged"
    );
}

#[test]
fn a_decision_judged_both_correct_and_wrong_is_an_error_naming_both_lines() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("j.tsv");
    std::fs::write(
        &p,
        "item\trule\tjudgement\n\
         a\tfilter.too_short\tcorrect\n\
         b\tfilter.too_short\twrong\n\
         a\tfilter.too_short\twrong\n",
    )
    .unwrap();
    let e = read_judgements(&p).unwrap_err().to_string();
    assert!(e.contains(":4: judgement:"), "{e}");
    assert!(e.contains("correct at line 2 and wrong at line 4"), "{e}");
}

fn judged(item: &str, rule: &str, hash: Option<String>, ok: bool) -> Judgement {
    Judgement {
        item: item.into(),
        rule: rule.into(),
        text_hash: hash,
        correct: Some(ok),
    }
}

#[test]
fn judgements_of_decisions_the_release_lacks_are_stale() {
    let judged = [
        judged("a", "dedup.near", None, true),
        judged("b", "dedup.near", None, false),
        judged("c", "dedup.near", None, true),
        judged("d", "filter.old", None, true),
    ];
    let mut ix = JudgedIndex::new(&judged);
    ix.observe("a", "dedup.near", "x", "", "");
    ix.observe("b", "dedup.near", "y", "", "");
    ix.observe("c", "dedup.exact", "z", "", "");
    let m = ix.matched(&judged, false);
    assert_eq!(
        m.rules["dedup.near"].summary(),
        "1/2 correct, precision 0.50 [0.09, 0.91]; 1 stale judgement (no such decision in this release) not counted"
    );
    assert!(
        !m.rules.contains_key("filter.old"),
        "a rule whose judgements are all stale has no figure"
    );
    assert_eq!(m.stale["filter.old"], 1);
    assert_eq!(m.by_id_only, 2);
}

/// A rule with nothing judged never prints a number, however it came to be in a manifest.
#[test]
fn nothing_judged_is_not_a_precision() {
    let mut p = RulePrecision::new(0, 0);
    assert_eq!(p.summary(), "not judged");
    p.stale = 3;
    assert_eq!(
        p.summary(),
        "not judged; 3 stale judgements (no such decision in this release) not counted"
    );
}

/// A splitter change renumbers sentences: `doc-s002` is now `doc-s003`, and `doc-s002`
/// names another sentence. A judgement found only by its text is carried, not this
/// release's figure, unless the recipe counts carried judgements; one whose text is gone
/// is stale even where its old id now names another decision of the rule.
#[test]
fn judgements_found_only_by_text_are_carried_apart() {
    let h = |t: &str| Some(text_hash(t, "", ""));
    let edit = Some(text_hash("", "ㅋㅋㅋㅋㅋㅋ", "ㅋㅋㅋㅋㅋ"));
    let judged = [
        judged("doc-s002", "filter.too_short_v2", h("ㅋㅋ"), true),
        judged("doc-s005", "filter.too_short_v2", h("좋 아"), false),
        judged("doc-s007", "filter.too_short_v2", h("gone"), true),
        judged("doc-s009", "filter.repeat_run_cap", edit, true),
        judged("old-id", "dedup.exact", None, true),
        judged("x-s000", "dedup.exact", h("same text"), true),
    ];
    let mut ix = JudgedIndex::new(&judged);
    ix.observe("doc-s003", "filter.too_short_v2", "ㅋㅋ", "", "");
    ix.observe("doc-s005", "filter.too_short_v2", "좋 아", "", "");
    ix.observe("doc-s007", "filter.too_short_v2", "another", "", "");
    ix.observe(
        "doc-s009",
        "filter.repeat_run_cap",
        "",
        "ㅋㅋㅋㅋㅋㅋ",
        "ㅋㅋㅋㅋㅋ",
    );
    ix.observe("new-id", "dedup.exact", "same text", "", "");
    assert_eq!(ix.find(&judged[0]), Found::ByText, "moved");
    assert_eq!(ix.find(&judged[1]), Found::Here, "in place");
    assert_eq!(ix.find(&judged[2]), Found::Stale, "its text is gone");
    assert_eq!(ix.find(&judged[3]), Found::Here);
    assert_eq!(
        ix.find(&judged[4]),
        Found::Stale,
        "no hash: the id must match"
    );
    assert_eq!(ix.find(&judged[5]), Found::ByText);
    let m = ix.matched(&judged, false);
    assert_eq!(
        m.rules["filter.too_short_v2"].summary(),
        "0/1 correct, precision 0.00 [0.00, 0.79]; 1 stale judgement (no such decision in this release) not counted"
    );
    assert_eq!(
        m.carried["filter.too_short_v2"],
        Carried {
            judged: 1,
            correct: 1
        }
    );
    assert!(
        !m.rules.contains_key("dedup.exact"),
        "carried and stale only"
    );
    assert_eq!(
        m.carried["dedup.exact"],
        Carried {
            judged: 1,
            correct: 1
        }
    );
    assert_eq!(m.stale["dedup.exact"], 1);
    // Asked for, the carried judgements count, and the line says so.
    let m = ix.matched(&judged, true);
    assert!(m.carried.is_empty());
    assert_eq!(
        m.rules["filter.too_short_v2"].summary(),
        "1/2 correct, precision 0.50 [0.09, 0.91]; 1 of them found by text under another id (counted: [audit] count_carried); 1 stale judgement (no such decision in this release) not counted"
    );
    assert_eq!(m.rules["dedup.exact"].judged, 1);
}

#[test]
fn the_text_hash_column_is_optional_and_checked() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("j.tsv");
    let hash = text_hash("ㅋㅋ", "", "");
    std::fs::write(
        &p,
        format!("item\trule\ttext_hash\tjudgement\na\tx.y\t{hash}\tcorrect\nb\tx.y\t\twrong\n"),
    )
    .unwrap();
    let j = read_judgements(&p).unwrap();
    assert_eq!(j[0].text_hash.as_deref(), Some(hash.as_str()));
    assert_eq!(j[1].text_hash, None);
    std::fs::write(
        &p,
        "item\trule\ttext_hash\tjudgement\na\tx.y\tABC\tcorrect\n",
    )
    .unwrap();
    let e = read_judgements(&p).unwrap_err().to_string();
    assert!(
        e.contains("j.tsv:2: text_hash: \"ABC\" is not a text hash"),
        "{e}"
    );
}

#[test]
fn a_bad_judgement_names_file_line_and_field() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("j.tsv");
    std::fs::write(&p, "# provenance\nitem\trule\tjudgement\na\tx.y\tmaybe\n").unwrap();
    let e = read_judgements(&p).unwrap_err().to_string();
    assert!(e.ends_with("j.tsv:3: judgement: \"maybe\" is not a judgement; write correct or wrong (or leave it empty)"), "{e}");
}

#[test]
fn label_studio_exports_take_the_first_annotation_not_cancelled() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("export.json");
    let choice = |c: &str, cancelled: bool| {
        serde_json::json!({"was_cancelled": cancelled, "result": [
                {"from_name": "judgement", "to_name": "text", "type": "choices",
                 "value": {"choices": [c]}}]})
    };
    let export = serde_json::json!([
        {"data": {"item": "a", "rule": "dedup.near"},
         "annotations": [choice("wrong", true), choice("correct", false)]},
        {"data": {"item": "b", "rule": "dedup.near"},
         "annotations": [choice("wrong", false)]},
        {"data": {"item": "c", "rule": "dedup.near"}, "annotations": []},
    ]);
    std::fs::write(&p, export.to_string()).unwrap();
    let j = read_judgements(&p).unwrap();
    assert_eq!(
        j.iter().map(|x| x.correct).collect::<Vec<_>>(),
        [Some(true), Some(false), None]
    );
    assert_eq!(
        precision(&j)["dedup.near"].summary(),
        "1/2 correct, precision 0.50 [0.09, 0.91]"
    );
}

/// The books of a release: rules with their drops and edits (a flag is not judged).
fn stages(rules: &[(&str, u64, u64)]) -> Vec<crate::manifest::StageCount> {
    let mut stats = kcurate_core::StageStats::default();
    for (rule, drop, flag) in rules {
        let c = stats.rules.entry(rule.to_string()).or_default();
        c.drop = *drop;
        c.flag = *flag;
    }
    vec![crate::manifest::StageCount {
        name: "filter".into(),
        stats,
    }]
}

#[test]
fn coverage_counts_busy_rules_and_the_share_left_unjudged() {
    let h = |t: &str| Some(text_hash(t, "", ""));
    let judged = [
        judged("a", "filter.busy", h("a"), true),
        judged("b", "filter.quiet", h("b"), false),
        judged("c", "filter.other_busy", h("gone"), true),
    ];
    let mut ix = JudgedIndex::new(&judged);
    ix.observe("a", "filter.busy", "a", "", "");
    ix.observe("b", "filter.quiet", "b", "", "");
    let m = ix.matched(&judged, false);
    let books = stages(&[
        ("filter.busy", 60, 0),
        ("filter.other_busy", 50, 0),
        ("filter.quiet", 10, 0),
        ("filter.flagger", 0, 500),
    ]);
    let c = Coverage::new("j.tsv", false, &books, &m);
    assert_eq!(
        (c.busy_rules, c.busy_judged, c.rules_judged),
        (2, 1, 2),
        "{c:?}"
    );
    assert_eq!((c.unjudged_decisions, c.decisions), (50, 120));
    assert!(!c.file_is_stale());
    assert_eq!(
        c.lines(),
        [
            "Judged in this release: 1 of the 2 rules with 50 or more drops and edits (2 rules judged in all); 41.7% of the release's drops and edits (50 of 120) were made by rules not judged in this release."
        ]
    );
    assert_eq!(
        c.notes("filter.other_busy", None),
        "; 1 stale judgement (no such decision in this release)"
    );
    // Nothing of the file found: a warning naming it, and every decision unjudged.
    let c = Coverage::new(
        "j.tsv",
        false,
        &books,
        &JudgedIndex::new(&judged).matched(&judged, false),
    );
    assert!(c.file_is_stale() && c.rules_judged == 0 && c.unjudged_decisions == 120);
    assert!(c.lines()[1].starts_with("Warning: the judgements file j.tsv names no decision of this release (carried by text from another id: 0; stale: 3)"));
}
