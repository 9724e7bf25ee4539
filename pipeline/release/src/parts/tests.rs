//! Reading parts back: input order, and the parts refused.

use super::*;

fn recipe(dir: &Path) -> Recipe {
    std::fs::create_dir_all(dir.join("b")).unwrap();
    std::fs::write(dir.join("a.jsonl"), "{}\n").unwrap();
    std::fs::write(dir.join("b/1.jsonl"), "{}\n").unwrap();
    std::fs::write(dir.join("b/2.jsonl"), "{}\n").unwrap();
    // Two JSONL sources of news in CC0: a file and a directory.
    let source = |id: &str, path: &str| {
        format!(
            "[[source]]\nid = {id:?}\npath = {path:?}\nformat = \"jsonl\"\n\
             license = \"CC0-1.0\"\ndomain = \"news\"\nstyle = \"formal\"\n\
             [source.fields]\ntext = \"text\"\n"
        )
    };
    let text = format!(
        "name = \"t\"\nversion = \"1\"\nseed = 1\n{}{}",
        source("a", "a.jsonl"),
        source("b", "b")
    );
    Recipe::parse("t.toml", &text).unwrap()
}

fn rec(id: &str, source: &str, file: &str, line: u64) -> String {
    let r = Record {
        id: id.into(),
        source: source.into(),
        origin: kcurate_core::record::Origin {
            file: file.into(),
            line,
        },
        text: id.into(),
        ..Default::default()
    };
    serde_json::to_string(&r).unwrap()
}

const STATS: &str = r#"{"stats":[{"name":"normalize","stats":{"items_in":2,"items_out":2,"dropped":0,"rules":{}}}]}"#;

#[test]
fn parts_in_any_order_come_back_in_input_order() {
    let dir = tempfile::tempdir().unwrap();
    let r = recipe(dir.path());
    let order = InputOrder::new(&r, dir.path());
    let parts = dir.path().join("parts");
    std::fs::create_dir(&parts).unwrap();
    // Source b's second file, then its first, then source a: the reverse of input order.
    let p0 = format!(
        "{}\n{}\n{STATS}\n",
        rec("b2-x", "b", "b/2.jsonl", 1),
        rec("b1-y", "b", "b/1.jsonl", 3)
    );
    let p1 = format!(
        "{}\n{}\n{STATS}\n",
        rec("a-2", "a", "a.jsonl", 2),
        rec("a-1", "a", "a.jsonl", 1)
    );
    std::fs::write(parts.join("part-0"), p0).unwrap();
    std::fs::write(parts.join("part-1"), p1).unwrap();
    std::fs::write(parts.join("_SUCCESS"), "").unwrap();
    let s = read_staged(&parts, &[], &order).unwrap();
    let ids: Vec<&str> = s.records.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids, ["a-1", "a-2", "b1-y", "b2-x"]);
    assert_eq!(s.stages[0].1.items_in, 4, "books add up over parts");
    assert_eq!(s.ingest.items_out, 4);
}

#[test]
fn a_source_with_an_absolute_path_is_ordered_by_the_names_records_carry() {
    let dir = tempfile::tempdir().unwrap();
    let mut r = recipe(dir.path());
    r.sources[1].path = dir.path().join("b").display().to_string();
    let order = InputOrder::new(&r, Path::new("/nonexistent"));
    let part = dir.path().join("part-0");
    let p = format!(
        "{}\n{}\n{STATS}\n",
        rec("b2", "b", "b/2.jsonl", 1),
        rec("b1", "b", "b/1.jsonl", 1)
    );
    std::fs::write(&part, p).unwrap();
    let s = read_staged(&part, &[], &order).unwrap();
    let ids: Vec<&str> = s.records.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids, ["b1", "b2"]);
}

#[test]
fn a_part_without_its_stats_line_is_refused_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let r = recipe(dir.path());
    let order = InputOrder::new(&r, dir.path());
    let part = dir.path().join("part-0");
    std::fs::write(&part, format!("{}\n", rec("a-1", "a", "a.jsonl", 1))).unwrap();
    let e = read_staged(&part, &[], &order).unwrap_err().to_string();
    assert!(e.contains("part-0:0: no stats line"), "{e}");
}

#[test]
fn a_record_of_another_corpus_is_refused_with_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let r = recipe(dir.path());
    let order = InputOrder::new(&r, dir.path());
    let part = dir.path().join("part-0");
    let line = rec("z-1", "z", "z.jsonl", 1);
    std::fs::write(&part, format!("{line}\n{STATS}\n")).unwrap();
    let e = read_staged(&part, &[], &order).unwrap_err().to_string();
    assert!(e.contains("part-0:1: record from source \"z\""), "{e}");
}

fn key_line(id: &str, at: [u64; 4]) -> String {
    format!(
        r#"{{"dedup":{{"id":"{id}","at":{at:?},"exact":"00","meet":["x000000000000000000000001"]}}}}"#
    )
}

#[test]
fn a_key_line_goes_right_after_its_record_at_its_place() {
    let dir = tempfile::tempdir().unwrap();
    let r = recipe(dir.path());
    let order = InputOrder::new(&r, dir.path());
    let part = dir.path().join("part-0");
    let (a1, a2) = (rec("a-1", "a", "a.jsonl", 1), rec("a-2", "a", "a.jsonl", 2));
    let write = |body: String| std::fs::write(&part, format!("{body}{STATS}\n")).unwrap();
    write(format!("{a1}\n{}\n{a2}\n", key_line("a-1", [0, 0, 1, 0])));
    let s = read_staged(&part, &[], &order).unwrap();
    assert_eq!(s.keys[0].as_ref().unwrap().read_at.line, 2);
    assert!(s.keys[1].is_none());
    write(format!("{a1}\n{a2}\n{}\n", key_line("a-1", [0, 0, 1, 0])));
    let e = read_staged(&part, &[], &order).unwrap_err();
    assert_eq!(e.fault, Fault::Refused);
    assert!(
        e.to_string()
            .contains("part-0:3: a key line for a-1 that does not follow its record"),
        "{e}"
    );
    write(format!("{a1}\n{}\n{a2}\n", key_line("a-1", [0, 0, 7, 0])));
    let e = read_staged(&part, &[], &order).unwrap_err().to_string();
    assert!(
        e.contains("part-0:2: the key line of a-1 puts it at [0, 0, 7, 0]"),
        "{e}"
    );
}

#[test]
fn a_stage_takes_in_what_the_stage_before_it_passed_on() {
    let dir = tempfile::tempdir().unwrap();
    let r = recipe(dir.path());
    let order = InputOrder::new(&r, dir.path());
    let part = dir.path().join("part-0");
    let stage = |name: &str, items_in: u64| {
        format!(
            r#"{{"name":"{name}","stats":{{"items_in":{items_in},"items_out":2,"dropped":0,"rules":{{}}}}}}"#
        )
    };
    let body = format!(
        "{}\n{}\n",
        rec("a-1", "a", "a.jsonl", 1),
        rec("a-2", "a", "a.jsonl", 2)
    );
    let stats = format!(
        "{{\"stats\":[{},{}]}}",
        stage("normalize", 2),
        stage("noise", 1)
    );
    std::fs::write(&part, format!("{body}{stats}\n")).unwrap();
    let e = read_staged(&part, &[], &order).unwrap_err().to_string();
    assert!(
        e.contains("part-0:3: the stats line says stage noise took in 1, but stage normalize before it passed on 2"),
        "{e}"
    );
    // One input record cannot become two items the first stage took in as one.
    let stats = format!("{{\"stats\":[{}]}}", stage("normalize", 1));
    std::fs::write(&part, format!("{body}{stats}\n")).unwrap();
    let e = read_staged(&part, &[], &order).unwrap_err().to_string();
    assert!(
        e.contains("part-0:3: the stats line says stage normalize took in 1"),
        "{e}"
    );
}

#[test]
fn a_stats_line_with_counts_past_u64_is_refused_not_overflowed() {
    let dir = tempfile::tempdir().unwrap();
    let r = recipe(dir.path());
    let order = InputOrder::new(&r, dir.path());
    let part = dir.path().join("part-0");
    let drop = serde_json::json!({"decision": Decision {
        item: "a-2".into(),
        stage: "filter".into(),
        rule: kcurate_core::RuleId::new("filter.short"),
        action: kcurate_core::Action::Drop,
        detail: "short".into(),
        score: None,
        span: None,
        text: None,
        source: "a".into(),
        origin: "a.jsonl:2".into(),
    }});
    let stats = format!(
        r#"{{"stats":[{{"name":"filter","stats":{{"items_in":2,"items_out":{},"dropped":1,"rules":{{"filter.short":{{"drop":1,"edit":0,"flag":0}}}}}}}}]}}"#,
        u64::MAX
    );
    let body = format!("{}\n{drop}\n{stats}\n", rec("a-1", "a", "a.jsonl", 1));
    std::fs::write(&part, body).unwrap();
    let e = read_staged(&part, &[], &order).unwrap_err();
    assert_eq!(e.fault, Fault::Refused);
    assert!(
        e.to_string()
            .contains("part-0:3: the stats line says stage filter passed on 18446744073709551615 record(s), the part holds 1"),
        "{e}"
    );
}

#[test]
fn a_stats_line_with_rule_counts_past_u64_is_refused_not_overflowed() {
    let dir = tempfile::tempdir().unwrap();
    let r = recipe(dir.path());
    let order = InputOrder::new(&r, dir.path());
    let part = dir.path().join("part-0");
    let stats = format!(
        r#"{{"stats":[{{"name":"filter","stats":{{"items_in":1,"items_out":1,"dropped":0,"rules":{{"filter.short":{{"drop":{m},"edit":{m},"flag":0}}}}}}}}]}}"#,
        m = u64::MAX
    );
    let body = format!("{}\n{stats}\n", rec("a-1", "a", "a.jsonl", 1));
    std::fs::write(&part, body).unwrap();
    let e = read_staged(&part, &[], &order).unwrap_err();
    assert_eq!(e.fault, Fault::Refused);
    assert!(
        e.to_string().contains(
            "part-0:2: the stats line counts 18446744073709551615 decision(s) of stage filter by rule, the part holds 0"
        ),
        "{e}"
    );
}

#[test]
fn a_part_given_twice_is_refused_as_an_item_seen_twice_naming_where_first() {
    let dir = tempfile::tempdir().unwrap();
    let r = recipe(dir.path());
    let order = InputOrder::new(&r, dir.path());
    let parts = dir.path().join("parts");
    std::fs::create_dir(&parts).unwrap();
    let p = format!(
        "{}\n{}\n{STATS}\n",
        rec("a-1", "a", "a.jsonl", 1),
        rec("a-2", "a", "a.jsonl", 2)
    );
    std::fs::write(parts.join("part-0"), &p).unwrap();
    std::fs::write(parts.join("part-1"), &p).unwrap();
    let e = read_staged(&parts, &[], &order).unwrap_err();
    assert_eq!(e.fault, Fault::Refused);
    let first = format!("{}:1", parts.join("part-0").display());
    assert!(
        matches!(&e.problem, Problem::Twice { what: "record", id, first: f } if id == "a-1" && *f == first),
        "{e:?}"
    );
    assert!(
        e.to_string().ends_with(&format!(
            "part-1:1: record a-1 again (first at {first}): a part given twice, or partitions that overlap"
        )),
        "{e}"
    );
}

#[test]
fn a_missing_parts_path_is_unreadable_with_the_io_error() {
    let dir = tempfile::tempdir().unwrap();
    let r = recipe(dir.path());
    let order = InputOrder::new(&r, dir.path());
    let e = read_staged(&dir.path().join("no-such-parts"), &[], &order).unwrap_err();
    assert_eq!(e.fault, Fault::Unreadable);
    assert!(matches!(e.problem, Problem::Io(_)), "{e:?}");
    assert!(e.to_string().contains("no-such-parts:0: "), "{e}");
}
