//! PII outside the text field: when a recipe pseudonymises PII, no
//! original may reach any file of the release (JSONL, Parquet, decisions, card, report,
//! manifest) or the run's output, whichever field it was in -- the id, the date, the label,
//! extra fields -- and whether its record was kept, dropped by a stage, or quarantined.
//! The values are synthetic (the layouts of ../shared/reference/pii/SPEC.md, taken from
//! rules/pii.toml's examples), not anyone's data.

mod common;
use common::*;
use std::path::Path;

/// (value, what it is): every one is planted in the input below.
const PLANTED: [&str; 14] = [
    "010-2345-6789",         // kept: in the id
    "gildong@example.co.kr", // kept: in the text
    "02-3456-7890",          // kept: in the title
    "4375 9735 2929 7829",   // kept: in the note (card, Luhn)
    "010-9876-5432",         // kept: the label
    "010-1357-2468",         // quarantined: a date field that is no date
    "010-4567-8901",         // dropped by the filter: in the id
    "010-5555-6666",         // dropped: in the text
    "600216-1013884",        // dropped: in the title (RRN)
    "kim@example.org",       // dropped: in the note
    "010-2468-1357",         // quarantined: in the id
    "010-1111-2222",         // quarantined: in the title
    "010-3333-4444",         // quarantined (truncated JSON): in the id
    "010-7777-8888",         // quarantined (truncated JSON): in the text
];

fn input() -> String {
    [
        r#"{"id":"rec-010-2345-6789","text":"문의는 gildong@example.co.kr으로 주세요. 답장은 빨리 드립니다.","title":"연락처 02-3456-7890","note":"카드 4375 9735 2929 7829 결제","label":"010-9876-5432","date":"2024-01-01"}"#,
        r#"{"id":"drop-010-4567-8901","text":"call 010-5555-6666 or mail now please ok ok ok","title":"주민번호 600216-1013884","note":"kim@example.org","label":"x","date":"2024-01-02"}"#,
        r#"{"id":"q-010-2468-1357","text":7,"title":"010-1111-2222","note":"n","label":"x","date":"2024-01-02"}"#,
        r#"{"id":"q2-010-3333-4444","text":"전화 010-7777-8888"#,
        r#"{"id":"ok-1","text":"평범한 문장입니다. 개인정보가 없습니다.","title":"제목","note":"메모","label":"y","date":"2024-01-03"}"#,
        // The date is released as a date: a phone number there quarantines the line, and
        // the decision naming the field carries its pseudonym, not the number.
        r#"{"id":"d-1","text":"날짜 칸이 이상합니다.","title":"t","note":"n","label":"y","date":"010-1357-2468"}"#,
    ]
    .join("\n")
        + "\n"
}

fn recipe(dir: &Path) -> std::path::PathBuf {
    std::fs::write(dir.join("data.jsonl"), input()).unwrap();
    let r = format!(
        r#"name = "pii-fields"
version = "1.0.0"
seed = 7
on_error = "quarantine"

[[source]]
id = "planted"
path = "{data}"
format = "jsonl"
license = "CC0-1.0"
domain = "reviews"
style = "colloquial"
[source.fields]
text = "text"
id = "id"
date = "date"
label = "label"
extra = ["title", "note"]

[[stage]]
name = "normalize"

[[stage]]
name = "split"

[[stage]]
name = "filter"
min_hangul_share = 0.3

[[stage]]
name = "pii"

[[stage]]
name = "assign_split"

[task]
name = "sentences"
"#,
        data = dir.join("data.jsonl").display()
    );
    let p = dir.join("recipe.toml");
    std::fs::write(&p, r).unwrap();
    p
}

/// Every Parquet file's rows as JSON lines (the files are ZSTD-compressed: the bytes
/// cannot be grepped).
fn parquet_text(p: &Path) -> String {
    let f = std::fs::File::open(p).unwrap();
    let reader = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(f)
        .unwrap()
        .build()
        .unwrap();
    let mut w = arrow::json::LineDelimitedWriter::new(Vec::new());
    for b in reader {
        w.write(&b.unwrap()).unwrap();
    }
    w.finish().unwrap();
    String::from_utf8(w.into_inner()).unwrap()
}

/// Where `needle` (or its digits alone, `01023456789`) occurs in `hay`.
fn leaks(hay: &str, needle: &str) -> bool {
    let digits: String = needle.chars().filter(char::is_ascii_digit).collect();
    hay.contains(needle) || (digits.len() >= 9 && hay.contains(&digits))
}

/// The records are all accounted for: the kept one is released under a safe id that
/// keeps its layout, with every field pseudonymised; the dropped one's decision names it
/// by its safe id; the quarantined lines are decisions.
fn assert_records_accounted_for(dir: &Path) {
    let rows: Vec<serde_json::Value> = ["train", "validation", "test"]
        .iter()
        .flat_map(|s| {
            std::fs::read_to_string(dir.join(format!("sentences/{s}.jsonl")))
                .unwrap_or_default()
                .lines()
                .map(|l| serde_json::from_str(l).unwrap())
                .collect::<Vec<_>>()
        })
        .collect();
    let kept: Vec<&serde_json::Value> = rows
        .iter()
        .filter(|r| r["id"].as_str().unwrap().starts_with("planted-rec-010-"))
        .collect();
    assert_eq!(kept.len(), 2, "two sentences of the kept record: {rows:?}");
    for k in &kept {
        let id = k["id"].as_str().unwrap();
        assert!(id.len() == "planted-rec-010-2345-6789-s000".len(), "{id}");
        let label = k["label"].as_str().unwrap();
        assert!(label.starts_with("010-") && label.len() == 13, "{label}");
        assert!(k["title"].as_str().unwrap().starts_with("연락처 02-"));
    }
    let decisions = std::fs::read_to_string(dir.join("audit/decisions.jsonl")).unwrap();
    let ds: Vec<serde_json::Value> = decisions
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let dropped = ds
        .iter()
        .find(|d| d["stage"] == "filter" && d["action"] == "drop")
        .expect("the filter drops the ASCII record");
    assert!(
        dropped["item"]
            .as_str()
            .unwrap()
            .starts_with("planted-drop-010-")
    );
    assert_eq!(
        ds.iter()
            .filter(|d| d["rule"] == "ingest.malformed")
            .count(),
        3,
        "{decisions}"
    );
    // The id edit says so, by field, without the original.
    assert!(
        ds.iter()
            .any(|d| d["stage"] == "pii" && d["detail"].as_str().unwrap().contains("in id at")),
        "{decisions}"
    );
    for field in ["title", "note", "label"] {
        assert!(
            ds.iter().any(|d| d["stage"] == "pii"
                && d["detail"]
                    .as_str()
                    .unwrap()
                    .contains(&format!(" in {field} at"))),
            "no pii decision on {field}: {decisions}"
        );
    }
}

#[test]
fn no_pii_original_in_any_field_of_any_output() {
    let tmp = tempfile::tempdir().unwrap();
    let r = recipe(tmp.path());
    let out = tmp.path().join("out");
    let o = kcurate(&[
        "run",
        r.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--threads",
        "1",
    ]);
    assert_eq!(o.status.code(), Some(3), "{}{}", stdout(&o), stderr(&o));
    let dir = out.join("pii-fields/1.0.0");
    let mut texts: Vec<(String, String)> =
        vec![("stdout".into(), stdout(&o)), ("stderr".into(), stderr(&o))];
    for (rel, bytes) in tree(&dir) {
        let text = if rel.ends_with(".parquet") {
            parquet_text(&dir.join(&rel))
        } else {
            String::from_utf8_lossy(&bytes).into_owned()
        };
        texts.push((rel, text));
    }
    assert!(texts.iter().any(|(f, _)| f == "sentences/train.parquet"
        || f == "sentences/validation.parquet"
        || f == "sentences/test.parquet"));
    let mut found = Vec::new();
    for v in PLANTED {
        for (f, t) in &texts {
            if leaks(t, v) {
                found.push(format!("{v:?} in {f}"));
            }
        }
    }
    assert!(
        found.is_empty(),
        "PII originals released:\n{}",
        found.join("\n")
    );

    assert_records_accounted_for(&dir);
    // The release passes the leak check.
    let lc = kcurate(&["pii", "leak-check", dir.to_str().unwrap()]);
    assert!(lc.status.success(), "{}{}", stdout(&lc), stderr(&lc));
}

/// A pii stage that drops a type drops the record wherever the type is: here an email in
/// an extra field, under the record's safe id.
#[test]
fn drop_mode_applies_to_every_field() {
    let tmp = tempfile::tempdir().unwrap();
    let r = recipe(tmp.path());
    let text = std::fs::read_to_string(&r).unwrap().replace(
        "name = \"pii\"\n",
        "name = \"pii\"\nmodes = { phone = \"drop\" }\n",
    );
    std::fs::write(&r, text).unwrap();
    let out = tmp.path().join("out");
    let o = kcurate(&["run", r.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let dir = out.join("pii-fields/1.0.0");
    let decisions = std::fs::read_to_string(dir.join("audit/decisions.jsonl")).unwrap();
    let pii_drops: Vec<serde_json::Value> = decisions
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|d| d["stage"] == "pii" && d["action"] == "drop")
        .collect();
    assert_eq!(
        pii_drops.len(),
        2,
        "both sentences of the kept record: {decisions}"
    );
    for d in &pii_drops {
        assert_eq!(d["rule"], "pii.phone");
        assert!(!decisions.contains("010-2345-6789"));
    }
}

/// A recipe over one line holding a phone number, with `more` appended (stages, `[release]`).
fn plain_recipe(dir: &Path, more: &str) -> std::path::PathBuf {
    std::fs::write(
        dir.join("data.jsonl"),
        "{\"id\":\"a\",\"text\":\"연락은 010-2345-6789로 주세요.\"}\n",
    )
    .unwrap();
    let p = dir.join("recipe.toml");
    std::fs::write(
        &p,
        format!(
            "name = \"plain\"\nversion = \"1\"\nseed = 1\n\n[[source]]\nid = \"s\"\n\
             path = \"data.jsonl\"\nformat = \"jsonl\"\nlicense = \"CC0-1.0\"\ndomain = \"news\"\n\
             style = \"formal\"\n[source.fields]\nid = \"id\"\ntext = \"text\"\n\n\
             [[stage]]\nname = \"normalize\"\n{more}"
        ),
    )
    .unwrap();
    p
}

const ACKNOWLEDGED: &str = "\n[release]\npii = \"none\"\npii_reason = \"synthetic text\"\n";

#[test]
fn check_warns_on_text_released_without_a_pii_stage_unless_the_recipe_says_why() {
    let tmp = tempfile::tempdir().unwrap();
    let r = plain_recipe(tmp.path(), "");
    let r = r.to_str().unwrap();
    let o = kcurate(&["check", r]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stderr(&o)
            .contains("recipe.toml:1: no `pii` stage: the release's text is not pseudonymised"),
        "{}",
        stderr(&o)
    );
    assert_eq!(kcurate(&["check", "--strict", r]).status.code(), Some(1));
    for (more, warned) in [
        (ACKNOWLEDGED, false),
        ("\n[[stage]]\nname = \"pii\"\n", false),
    ] {
        let r = plain_recipe(tmp.path(), more);
        let o = kcurate(&["check", "--strict", r.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(0), "{more}: {}", stderr(&o));
        assert_eq!(stderr(&o).contains("pii"), warned, "{}", stderr(&o));
    }
    // A statement without a reason, a reason without a statement, and a statement that
    // contradicts the stages are errors naming the line.
    for (more, expect) in [
        (
            "\n[release]\npii = \"none\"\n",
            "recipe.toml:19: release.pii_reason: `pii = \"none\"` needs a reason",
        ),
        (
            "\n[release]\npii_reason = \"x\"\n",
            "recipe.toml:20: release.pii_reason: a reason without",
        ),
        (
            &format!("\n[[stage]]\nname = \"pii\"\n{ACKNOWLEDGED}"),
            "recipe.toml:23: release.pii: \"none\", but the recipe runs a `pii` stage",
        ),
    ] {
        let r = plain_recipe(tmp.path(), more);
        let o = kcurate(&["check", r.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(2), "{more}");
        assert!(stderr(&o).contains(expect), "{more}: {}", stderr(&o));
    }
}

#[test]
fn the_card_says_plainly_whether_personal_data_was_pseudonymised() {
    let tmp = tempfile::tempdir().unwrap();
    let card = |more: &str| {
        let r = plain_recipe(tmp.path(), more);
        let out = tmp.path().join("out");
        let o = kcurate(&[
            "run",
            r.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--overwrite",
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        std::fs::read_to_string(out.join("plain/1/README.md")).unwrap()
    };
    let c = card("\n[[stage]]\nname = \"pii\"\n");
    assert!(
        c.contains("Personal data: pseudonymised by the `pii` stage, or removed where the recipe's modes say `drop` (kinds acted on in this release: phone)."),
        "{c}"
    );
    let c = card("");
    assert!(
        c.contains("Personal data: NOT pseudonymised: the recipe has no `pii` stage, and it does not say why."),
        "{c}"
    );
    let c = card(ACKNOWLEDGED);
    assert!(
        c.contains("Personal data: NOT pseudonymised: the recipe has no `pii` stage. Its reason: synthetic text"),
        "{c}"
    );
    assert!(!c.contains("where the recipe's PII stage ran"), "{c}");
}
