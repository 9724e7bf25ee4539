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
    let p = ix.precision(&judged);
    assert_eq!(
        p["dedup.near"].summary(),
        "1/2 correct, precision 0.50 [0.09, 0.91]; 1 stale judgement (no such decision in this release) not counted"
    );
    assert_eq!((p["filter.old"].judged, p["filter.old"].stale), (0, 1));
}

/// A splitter change renumbers sentences: `doc-s002` is now `doc-s003`, and `doc-s002`
/// names another sentence. A judgement with a text hash follows its text; one whose text
/// is gone is stale even where its old id now names another decision of the rule.
#[test]
fn judgements_with_a_text_hash_survive_moved_ids() {
    let h = |t: &str| Some(text_hash(t, "", ""));
    let edit = Some(text_hash("", "ㅋㅋㅋㅋㅋㅋ", "ㅋㅋㅋㅋㅋ"));
    let judged = [
        judged("doc-s002", "filter.too_short_v2", h("ㅋㅋ"), true),
        judged("doc-s005", "filter.too_short_v2", h("좋 아"), false),
        judged("doc-s007", "filter.too_short_v2", h("gone"), true),
        judged("doc-s009", "filter.repeat_run_cap", edit, true),
        judged("old-id", "dedup.exact", None, true),
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
    assert_eq!(ix.find(&judged[0]), Some(true), "moved");
    assert_eq!(ix.find(&judged[1]), Some(false), "in place");
    assert_eq!(ix.find(&judged[2]), None, "its text is gone");
    assert_eq!(ix.find(&judged[3]), Some(false));
    assert_eq!(ix.find(&judged[4]), None, "no hash: the id must match");
    let p = ix.precision(&judged);
    assert_eq!(
        p["filter.too_short_v2"].summary(),
        "1/2 correct, precision 0.50 [0.09, 0.91]; 1 found by text under a moved id; 1 stale judgement (no such decision in this release) not counted"
    );
    assert_eq!(p["dedup.exact"].stale, 1);
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
