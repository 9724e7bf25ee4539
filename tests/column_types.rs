//! One type per column across a release's JSONL and Parquet files: the Parquet
//! schema, the JSONL values and the card's `features` agree column by column; dates are ISO
//! `YYYY-MM-DD` strings in JSONL, date32 in Parquet and `date32` in the card.

mod common;
use arrow::datatypes::DataType;
use common::*;
use std::path::Path;

fn parquet_rows(p: &Path) -> (arrow::datatypes::SchemaRef, Vec<serde_json::Value>) {
    let f = std::fs::File::open(p).unwrap();
    let builder =
        parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(f).unwrap();
    let schema = builder.schema().clone();
    let mut w = arrow::json::LineDelimitedWriter::new(Vec::new());
    for b in builder.build().unwrap() {
        w.write(&b.unwrap()).unwrap();
    }
    w.finish().unwrap();
    let text = String::from_utf8(w.into_inner()).unwrap();
    let rows = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    (schema, rows)
}

fn is_iso_date(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 10
        && b[4] == b'-'
        && b[7] == b'-'
        && b.iter()
            .enumerate()
            .all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit())
}

/// The card's `dtype` of a top-level column in the `features` list.
fn card_dtype<'a>(card: &'a str, column: &str) -> Option<&'a str> {
    // Names other than plain ASCII are quoted YAML strings.
    let at = card
        .find(&format!("  - name: {column}\n"))
        .or_else(|| card.find(&format!("  - name: \"{column}\"\n")))?;
    let rest = &card[at..];
    let line = rest.lines().nth(1)?;
    line.trim().strip_prefix("dtype: ")
}

#[test]
fn dates_have_one_type_in_jsonl_parquet_and_the_card() {
    let (_out, dir) = default_release("2");
    let card = std::fs::read_to_string(dir.join("README.md")).unwrap();
    assert_eq!(card_dtype(&card, "date"), Some("date32"), "{card}");
    assert_eq!(card_dtype(&card, "text"), Some("string"));
    assert!(card.contains("`date32` in the Parquet files"));
    let mut dates = 0;
    for split in ["train", "validation", "test"] {
        let (schema, prows) = parquet_rows(&dir.join(format!("sentences/{split}.parquet")));
        let jsonl = std::fs::read_to_string(dir.join(format!("sentences/{split}.jsonl"))).unwrap();
        let jrows: Vec<serde_json::Value> = jsonl
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(prows.len(), jrows.len(), "{split}");
        for f in schema.fields() {
            let want = match f.data_type() {
                DataType::Utf8 => "string",
                DataType::Date32 => "date32",
                t => panic!(
                    "{split}: column {} is {t}: not a sentence release type",
                    f.name()
                ),
            };
            assert_eq!(
                card_dtype(&card, f.name()),
                Some(want),
                "{split}: column {} is {want} in Parquet",
                f.name()
            );
        }
        assert_eq!(
            schema.field_with_name("date").unwrap().data_type(),
            &DataType::Date32,
            "{split}"
        );
        for (j, p) in jrows.iter().zip(&prows) {
            // The same value in both files, an ISO date in the JSONL.
            assert_eq!(j["date"], p["date"], "{j}");
            if let Some(d) = j["date"].as_str() {
                assert!(is_iso_date(d), "{split}: date {d:?} is not ISO");
                dates += 1;
            }
        }
    }
    assert!(dates > 0, "the sample release has dated sentences");
}

#[test]
fn a_date_that_is_no_date_is_an_ingest_decision_naming_the_field() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(
        tmp.path().join("d.jsonl"),
        "{\"text\":\"첫 번째 문장입니다.\",\"date\":\"21.09.27\"}\n\
         {\"text\":\"두 번째 문장입니다.\",\"date\":\"어제\"}\n\
         {\"text\":\"세 번째 문장입니다.\",\"date\":\"\"}\n",
    )
    .unwrap();
    std::fs::write(
        tmp.path().join("r.toml"),
        "name = \"d\"\nversion = \"1\"\nseed = 1\n[[source]]\nid = \"s\"\npath = \"d.jsonl\"\n\
         format = \"jsonl\"\nlicense = \"CC0-1.0\"\ndomain = \"news\"\nstyle = \"formal\"\n\
         [source.fields]\ntext = \"text\"\ndate = \"date\"\n",
    )
    .unwrap();
    let out = tmp.path().join("out");
    let o = kcurate(&[
        "run",
        tmp.path().join("r.toml").to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(3), "{}{}", stdout(&o), stderr(&o));
    let dir = out.join("d/1");
    let decisions = std::fs::read_to_string(dir.join("audit/decisions.jsonl")).unwrap();
    let bad: Vec<&str> = decisions
        .lines()
        .filter(|l| l.contains("ingest.malformed"))
        .collect();
    assert_eq!(bad.len(), 1, "{decisions}");
    assert!(
        bad[0].contains("d.jsonl:2") && bad[0].contains("not a date"),
        "{}",
        bad[0]
    );
    let rows: String = ["train", "validation", "test"]
        .iter()
        .map(|s| std::fs::read_to_string(dir.join(format!("sentences/{s}.jsonl"))).unwrap())
        .collect();
    assert!(rows.contains("\"date\":\"2021-09-27\""), "{rows}");
    assert_eq!(rows.lines().count(), 2, "{rows}");
}
