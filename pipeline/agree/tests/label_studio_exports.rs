//! Exports written by a real Label Studio server (1.23.2, through `make test-labelstudio`)
//! read as exactly the votes that were submitted: the shapes kcurate's hand-written fixtures
//! might not have (annotators as user ids, a Number vote as `[{"number": 5.0}]` in JSON-MIN
//! and CSV, a row with a null annotator for a task nobody annotated, a cancelled annotation
//! present in JSON only, a comment beside a vote) stay covered by `make test`, which needs no
//! Python. The fixtures are described in `fixtures/label-studio-1.23.2/README.md`.

use kcurate_agree::io::{Format, LabelStudio, ReadOptions, Scale, read, read_with};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn fixture(case: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/label-studio-1.23.2")
        .join(case)
}

type Votes = BTreeSet<(String, String, String)>;

fn votes(rows: &[kcurate_agree::io::Annotation]) -> Votes {
    rows.iter()
        .map(|r| (r.item.clone(), r.annotator.clone(), r.value.to_string()))
        .collect()
}

#[test]
fn each_real_export_reads_as_the_votes_submitted_and_the_cancelled_one_only_in_json() {
    for (case, scale) in [
        (
            "nli",
            Scale::Labels(
                ["entailment", "neutral", "contradiction"]
                    .map(String::from)
                    .to_vec(),
            ),
        ),
        ("sts", Scale::Range(0.0, 5.0)),
    ] {
        let dir = fixture(case);
        let submitted = read(&dir.join("votes.tsv"), Format::Long, &scale, None).unwrap();
        let want = votes(&submitted.rows);
        assert_eq!(want.len(), 10, "{case}: two tasks by five annotators");
        let config = std::fs::read_to_string(dir.join("labeling-config.xml")).unwrap();
        let opts = ReadOptions {
            scale: scale.clone(),
            label_studio: LabelStudio {
                from_name: None,
                label_config: Some(config),
            },
            ..Default::default()
        };
        for (name, cancelled) in [
            ("export.json", 1),
            ("export-min.json", 0),
            ("export.csv", 0),
        ] {
            let got = read_with(&dir.join(name), Format::LabelStudio, &opts)
                .unwrap_or_else(|e| panic!("{case} {name}: {e}"));
            assert!(got.rejected.is_empty(), "{case} {name}: {:?}", got.rejected);
            assert_eq!(votes(&got.rows), want, "{case} {name}");
            let rules: Vec<&str> = got.skipped.iter().map(|d| d.rule.as_str()).collect();
            assert_eq!(rules, vec!["agree.cancelled"; cancelled], "{case} {name}");
        }
    }
}
