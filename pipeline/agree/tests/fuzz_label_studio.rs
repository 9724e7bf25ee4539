//! Fuzz targets (proptest, stable Rust) for the Label Studio export reader (JSON, JSON-MIN
//! and CSV exports): valid exports built from random tasks (some with `annotations`, an
//! annotation or a `result` of an odd shape), then mutated byte by byte, and
//! raw bytes, under the default per-task limits or small ones. Promised: no panic; an error
//! names the file; what is read comes back the same the second time.
//!
//! Cases: `KCURATE_FUZZ_CASES` (default small, for `make test`); `KCURATE_FUZZ_SECONDS`
//! keeps going for that long (`make fuzz`).

use kcurate_agree::io::{Format, ReadOptions, read_with};
use proptest::prelude::*;
use serde_json::json;

#[path = "../../../tests/common/fuzz.rs"]
mod fuzz_harness;
use fuzz_harness::{fuzz, mutate, mutation};

#[derive(Debug, Clone)]
struct Ann {
    annotator: u8,
    choices: Vec<String>,
    cancelled: bool,
    from_name: String,
}

fn label() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("긍정".to_string()),
        Just("부정".to_string()),
        Just("3".to_string()),
        Just("NaN".to_string()),
        Just(String::new()),
        "\\PC{0,6}",
    ]
}

fn ann() -> impl Strategy<Value = Ann> {
    (
        0u8..6,
        proptest::collection::vec(label(), 0..3),
        prop::bool::weighted(0.1),
        prop_oneof![4 => Just("sentiment".to_string()), 1 => Just("other".to_string())],
    )
        .prop_map(|(annotator, choices, cancelled, from_name)| Ann {
            annotator,
            choices,
            cancelled,
            from_name,
        })
}

/// Tasks: (task id, text, annotations).
fn tasks() -> impl Strategy<Value = Vec<(u8, String, Vec<Ann>)>> {
    proptest::collection::vec(
        (
            0u8..20,
            "[가-힣 ,\"]{0,10}",
            proptest::collection::vec(ann(), 0..5),
        ),
        0..8,
    )
}

fn export_json(tasks: &[(u8, String, Vec<Ann>)]) -> Vec<u8> {
    let v: Vec<_> = tasks
        .iter()
        .map(|(id, text, anns)| {
            let annotations: Vec<_> = anns
                .iter()
                .enumerate()
                .map(|(k, a)| {
                    json!({
                        "id": k,
                        "completed_by": a.annotator,
                        "was_cancelled": a.cancelled,
                        "result": [{
                            "from_name": a.from_name,
                            "to_name": "text",
                            "type": "choices",
                            "value": {"choices": a.choices},
                        }],
                    })
                })
                .collect();
            json!({"id": id, "data": {"text": text}, "annotations": annotations})
        })
        .collect();
    serde_json::to_vec_pretty(&v).unwrap()
}

fn min_rows(tasks: &[(u8, String, Vec<Ann>)]) -> Vec<(u8, String, u8, String)> {
    tasks
        .iter()
        .flat_map(|(id, text, anns)| {
            anns.iter().map(move |a| {
                (
                    *id,
                    text.clone(),
                    a.annotator,
                    a.choices.first().cloned().unwrap_or_default(),
                )
            })
        })
        .collect()
}

fn export_json_min(tasks: &[(u8, String, Vec<Ann>)]) -> Vec<u8> {
    let v: Vec<_> = min_rows(tasks)
        .into_iter()
        .map(|(id, text, who, choice)| {
            json!({"id": id, "text": text, "sentiment": choice, "annotator": who})
        })
        .collect();
    serde_json::to_vec(&v).unwrap()
}

fn export_csv(tasks: &[(u8, String, Vec<Ann>)]) -> Vec<u8> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(["annotation_id", "annotator", "id", "sentiment", "text"])
        .unwrap();
    for (k, (id, text, who, choice)) in min_rows(tasks).into_iter().enumerate() {
        w.write_record([k.to_string(), who.to_string(), id.to_string(), choice, text])
            .unwrap();
    }
    w.into_inner().unwrap()
}

/// A JSON export whose tasks' `annotations`, annotations or `result`s take odd shapes
/// (an object, a string, a number, null) where lists or objects belong: `shapes` picks one
/// per task (0: left valid).
fn export_json_odd(tasks: &[(u8, String, Vec<Ann>)], shapes: &[u8]) -> Vec<u8> {
    let odd = |k: u8| match k % 4 {
        0 => json!({"0": {"result": []}}),
        1 => json!("annotations"),
        2 => json!(7),
        _ => serde_json::Value::Null,
    };
    let mut v: serde_json::Value = serde_json::from_slice(&export_json(tasks)).unwrap();
    for (task, &s) in v.as_array_mut().unwrap().iter_mut().zip(shapes) {
        match s % 4 {
            1 => task["annotations"] = odd(s / 4),
            2 => {
                if let Some(a) = task["annotations"]
                    .as_array_mut()
                    .and_then(|a| a.first_mut())
                {
                    *a = odd(s / 4);
                }
            }
            3 => {
                if let Some(a) = task["annotations"]
                    .as_array_mut()
                    .and_then(|a| a.first_mut())
                {
                    a["result"] = odd(s / 4);
                }
            }
            _ => {}
        }
    }
    serde_json::to_vec(&v).unwrap()
}

/// (file name, bytes) of an export.
fn export() -> impl Strategy<Value = (&'static str, Vec<u8>)> {
    let shapes = proptest::collection::vec(any::<u8>(), 0..8);
    let valid = (tasks(), 0u8..4, shapes).prop_map(|(t, kind, shapes)| match kind {
        0 => ("ls.json", export_json(&t)),
        1 => ("ls.json", export_json_min(&t)),
        2 => ("ls.json", export_json_odd(&t, &shapes)),
        _ => ("ls.csv", export_csv(&t)),
    });
    prop_oneof![
        1 => (prop_oneof![Just("ls.json"), Just("ls.csv")], proptest::collection::vec(any::<u8>(), 0..256)),
        4 => (valid, proptest::collection::vec(mutation(), 0..6))
            .prop_map(|((name, b), ms)| (name, mutate(b, &ms))),
    ]
}

#[test]
fn fuzz_label_studio_reader() {
    // A task cap (`limits.max_record_bytes`) of the default, or small enough to cut some.
    let cap = prop_oneof![Just(16usize << 20), 32usize..600];
    let depth = prop_oneof![Just(64usize), 1usize..4];
    fuzz(
        "agree.label_studio",
        256,
        (export(), cap, depth),
        |((name, bytes), cap, depth)| {
            let d = tempfile::tempdir().unwrap();
            let path = d.path().join(name);
            std::fs::write(&path, &bytes).unwrap();
            let mut opts = ReadOptions::default();
            opts.limits.max_record_bytes = cap;
            opts.limits.max_depth = depth;
            match read_with(&path, Format::LabelStudio, &opts) {
                Ok(a) => {
                    let again = read_with(&path, Format::LabelStudio, &opts).unwrap();
                    prop_assert_eq!(format!("{:?}", a.rows), format!("{:?}", again.rows));
                    prop_assert_eq!(a.rejected.len(), again.rejected.len());
                }
                Err(e) => {
                    let shown = e.to_string();
                    prop_assert!(shown.contains(name), "error without the file: {}", shown);
                }
            }
            Ok(())
        },
    );
}
