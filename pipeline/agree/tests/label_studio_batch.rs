//! Label Studio round trip: each batch kind's labeling config is well-formed XML
//! whose vote control is the one the export reader reads, whose `toName`s name its `Text`
//! tags and whose `$column`s are the tasks' data keys; a batch annotated in that config
//! (with comments beside the votes) comes back through the JSON, JSON-MIN and CSV exports
//! as exactly its votes.

use kcurate_agree::batch::{BatchKind, Item, write_label_studio};
use kcurate_agree::io::{Format, LabelStudio, ReadOptions, Scale, read_with};
use quick_xml::events::Event;
use serde_json::{Value, json};
use std::collections::BTreeSet;

fn kinds() -> Vec<(BatchKind, Vec<&'static str>)> {
    vec![
        (
            BatchKind::Classification {
                labels: kcurate_core::recipe::TC_TOPICS
                    .iter()
                    .map(|s| s.to_string())
                    .collect(),
            },
            vec!["text"],
        ),
        (BatchKind::NliTriple, vec!["premise", "hypothesis"]),
        (BatchKind::StsSlider, vec!["sentence1", "sentence2"]),
        (
            BatchKind::SentiNegCheck,
            vec!["original", "original_label", "text", "label", "flip_rule"],
        ),
    ]
}

/// The tags of a config (name, attributes), after checking it is well-formed: one root,
/// every tag closed by its own name, attributes quoted and escaped.
fn tags(xml: &str) -> Vec<(String, Vec<(String, String)>)> {
    let mut r = quick_xml::Reader::from_str(xml);
    let mut out = Vec::new();
    let mut open: Vec<String> = Vec::new();
    let mut roots = 0;
    loop {
        let ev = r
            .read_event()
            .unwrap_or_else(|e| panic!("not well-formed: {e}\n{xml}"));
        let (t, empty) = match ev {
            Event::Eof => break,
            Event::End(e) => {
                let name = String::from_utf8(e.name().as_ref().to_vec()).unwrap();
                assert_eq!(open.pop().as_deref(), Some(name.as_str()), "{xml}");
                continue;
            }
            Event::Start(t) => (t, false),
            Event::Empty(t) => (t, true),
            _ => continue,
        };
        if open.is_empty() {
            roots += 1;
        }
        let name = String::from_utf8(t.name().as_ref().to_vec()).unwrap();
        let attrs = t
            .attributes()
            .map(|a| {
                let a = a.unwrap_or_else(|e| panic!("bad attribute: {e}\n{xml}"));
                (
                    String::from_utf8(a.key.as_ref().to_vec()).unwrap(),
                    a.unescape_value().unwrap().into_owned(),
                )
            })
            .collect();
        if !empty {
            open.push(name.clone());
        }
        out.push((name, attrs));
    }
    assert!(open.is_empty(), "unclosed {open:?}\n{xml}");
    assert_eq!(roots, 1, "one root element\n{xml}");
    out
}

fn attr<'a>(t: &'a (String, Vec<(String, String)>), k: &str) -> Option<&'a str> {
    t.1.iter().find(|(a, _)| a == k).map(|(_, v)| v.as_str())
}

fn items(shown: &[&str]) -> Vec<Item> {
    (1..=3)
        .map(|i| {
            (
                format!("item-{i}"),
                shown
                    .iter()
                    .map(|c| (c.to_string(), format!("{c} {i}: \"따옴표\" & <꺾쇠>")))
                    .collect(),
            )
        })
        .collect()
}

#[test]
fn each_config_is_well_formed_and_names_what_the_reader_reads() {
    for (kind, shown) in kinds() {
        let xml = kind.label_config(&shown);
        let t = tags(&xml);
        assert_eq!(t.first().map(|x| x.0.as_str()), Some("View"));
        let texts: BTreeSet<&str> = t
            .iter()
            .filter(|x| x.0 == "Text")
            .map(|x| attr(x, "name").unwrap())
            .collect();
        let values: BTreeSet<String> = t
            .iter()
            .filter(|x| x.0 == "Text")
            .map(|x| {
                attr(x, "value")
                    .unwrap()
                    .trim_start_matches('$')
                    .to_string()
            })
            .collect();
        assert_eq!(
            values,
            shown.iter().map(|s| s.to_string()).collect(),
            "every shown column, and only them, is a $data key"
        );
        let controls: Vec<&str> = t
            .iter()
            .filter(|x| matches!(x.0.as_str(), "Choices" | "Number" | "Rating"))
            .map(|x| attr(x, "name").unwrap())
            .collect();
        assert_eq!(controls, [kind.control()], "{xml}");
        // The reader's own view of the config names the same control.
        assert_eq!(
            kcurate_agree::io::label_studio::config_controls(&xml),
            [kind.control()]
        );
        for x in t.iter().filter(|x| attr(x, "toName").is_some()) {
            assert!(texts.contains(attr(x, "toName").unwrap()), "{xml}");
        }
        let choices: Vec<&str> = t
            .iter()
            .filter(|x| x.0 == "Choice")
            .map(|x| attr(x, "value").unwrap())
            .collect();
        match kind.choices() {
            Some(c) => assert_eq!(choices, c.iter().map(String::as_str).collect::<Vec<_>>()),
            None => {
                let n = t.iter().find(|x| x.0 == "Number").unwrap();
                assert_eq!(
                    (attr(n, "min"), attr(n, "max"), attr(n, "step")),
                    (Some("0"), Some("5"), Some("0.5"))
                );
            }
        }
        assert!(t.iter().any(|x| x.0 == "TextArea"), "a comment box");
    }
}

/// Annotator a's vote on item i, a valid value of the kind.
fn vote(kind: &BatchKind, i: usize, a: usize) -> Value {
    match kind.choices() {
        Some(c) => json!(c[(i + a) % c.len()]),
        None => json!(((i * 3 + a) % 11) as f64 / 2.0),
    }
}

const ANNOTATORS: [&str; 3] = ["a@example.org", "b@example.org", "c@example.org"];

/// A batch annotated by three people, as the three exports Label Studio writes, and the
/// votes they hold: (item, annotator, value).
struct Annotated {
    full: Vec<Value>,
    min: Vec<Value>,
    csv: String,
    want: BTreeSet<(String, String, String)>,
}

/// Annotator `who`'s annotation of task `i` with vote `v`: the vote and, beside it, a
/// comment (never a vote, whatever it says).
fn annotation(kind: &BatchKind, i: usize, a: usize, who: &str, v: &Value) -> Value {
    let (ty, value) = match kind.choices() {
        Some(_) => ("choices", json!({"choices": [v.clone()]})),
        None => ("number", json!({"number": v.clone()})),
    };
    json!({
        "completed_by": {"email": who},
        "result": [
            {"from_name": kind.control(), "to_name": "x", "type": ty, "value": value},
            {"from_name": "comment", "to_name": "x", "type": "textarea",
             "value": {"text": [vote(kind, i + 1, a).to_string()]}}
        ]
    })
}

/// A JSON-MIN row's cells in `header` order, quoted as CSV.
fn csv_line(header: &[String], row: &serde_json::Map<String, Value>) -> String {
    let cells: Vec<String> = header
        .iter()
        .map(|h| match &row[h] {
            Value::String(s) => format!("\"{}\"", s.replace('"', "\"\"")),
            other => other.to_string(),
        })
        .collect();
    cells.join(",") + "\n"
}

fn annotate(kind: &BatchKind, shown: &[&str], tasks: &[Value]) -> Annotated {
    let control = kind.control();
    let mut out = Annotated {
        full: Vec::new(),
        min: Vec::new(),
        csv: String::new(),
        want: BTreeSet::new(),
    };
    let mut header: Vec<String> = vec!["id".into(), "item".into()];
    header.extend(shown.iter().map(|s| s.to_string()));
    header.extend(["annotator".into(), control.to_string(), "comment".into()]);
    out.csv.push_str(&header.join(","));
    out.csv.push('\n');
    for (i, t) in tasks.iter().enumerate() {
        let item = t["data"]["item"].as_str().unwrap();
        let mut anns = Vec::new();
        for (a, who) in ANNOTATORS.iter().enumerate() {
            let v = vote(kind, i, a);
            out.want.insert((
                item.to_string(),
                who.to_string(),
                v.to_string().replace('"', ""),
            ));
            anns.push(annotation(kind, i, a, who, &v));
            let mut row = t["data"].as_object().unwrap().clone();
            row.insert("id".into(), json!(i + 1));
            row.insert("annotator".into(), json!(who));
            row.insert(control.into(), v.clone());
            row.insert("comment".into(), json!("다시 볼 것"));
            out.csv.push_str(&csv_line(&header, &row));
            out.min.push(Value::Object(row));
        }
        let mut task = t.clone();
        task["id"] = json!(i + 1);
        task["annotations"] = json!(anns);
        out.full.push(task);
    }
    out
}

/// The votes the export reader reads from `export` under the batch's config.
fn read_back(
    kind: &BatchKind,
    config: &str,
    export: &std::path::Path,
) -> BTreeSet<(String, String, String)> {
    let opts = ReadOptions {
        scale: match kind.choices() {
            Some(c) => Scale::Labels(c),
            None => Scale::Range(0.0, 5.0),
        },
        label_studio: LabelStudio {
            from_name: None,
            label_config: Some(config.to_string()),
        },
        ..Default::default()
    };
    let got = read_with(export, Format::LabelStudio, &opts)
        .unwrap_or_else(|e| panic!("{kind:?} {}: {e}", export.display()));
    assert!(
        got.rejected.is_empty(),
        "{kind:?} {}: {:?}",
        export.display(),
        got.rejected
    );
    got.rows
        .iter()
        .map(|r| (r.item.clone(), r.annotator.clone(), r.value.to_string()))
        .collect()
}

#[test]
fn a_batch_comes_back_through_json_json_min_and_csv_exports() {
    for (kind, shown) in kinds() {
        let dir = tempfile::tempdir().unwrap();
        let batch = items(&shown);
        write_label_studio(&batch, &kind, dir.path()).unwrap();
        let config = std::fs::read_to_string(dir.path().join("labeling-config.xml")).unwrap();
        let tasks: Vec<Value> =
            serde_json::from_slice(&std::fs::read(dir.path().join("tasks.json")).unwrap()).unwrap();
        assert_eq!(tasks.len(), batch.len());
        let annotated = annotate(&kind, &shown, &tasks);
        let want: BTreeSet<(String, String, String)> = annotated
            .want
            .iter()
            .map(|(i, a, v)| {
                // Numbers compare as the reader prints them (2.0 → 2).
                let v = v.parse::<f64>().map(|x| x.to_string()).unwrap_or(v.clone());
                (i.clone(), a.clone(), v)
            })
            .collect();
        let exports = [
            (
                "export.json",
                serde_json::to_string_pretty(&annotated.full).unwrap(),
            ),
            (
                "export-min.json",
                serde_json::to_string(&annotated.min).unwrap(),
            ),
            ("export.csv", annotated.csv),
        ];
        for (name, text) in exports {
            let p = dir.path().join(name);
            std::fs::write(&p, text).unwrap();
            assert_eq!(read_back(&kind, &config, &p), want, "{kind:?} {name}");
        }
    }
}
