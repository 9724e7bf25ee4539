//! PII however it is spelled: every row of tests/fixtures/pii_spellings.tsv (phone numbers,
//! emails, RRNs and card numbers written with HTML character references, soft hyphens,
//! zero-width characters, full-width forms, `(010)`, a line break inside the number,
//! `hong @ example.com`, `hong(at)example.com`, ...; and a few texts that only look like
//! PII) is planted as `연락처는 <spelling> 입니다.` in a document of its own, and the real
//! binary runs normalize -> split -> pii over them. Each PII spelling comes out whole in one
//! sentence (a line break inside the number included), pseudonymised in its own spelling (the fixture's `expect` shape) with a
//! decision of its type's rule; the others come out as written. `pii leak-check` finds every
//! PII spelling in a release built without the pii stage, and nothing in one built with it.

mod common;
use common::*;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

struct Row {
    /// The document's id in the corpus (`s07`).
    doc: String,
    spelling: String,
    kind: String,
    pseudonymise: bool,
    expect: String,
    gone: Vec<String>,
}

/// `\n` and `\uXXXX` as the characters they name.
fn unescape(s: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(i) = rest.find('\\') {
        out.push_str(&rest[..i]);
        let esc = &rest[i + 1..];
        if let Some(r) = esc.strip_prefix('n') {
            out.push('\n');
            rest = r;
        } else {
            let hex = esc.strip_prefix('u').expect("\\n or \\uXXXX");
            let c = u32::from_str_radix(&hex[..4], 16).unwrap();
            out.push(char::from_u32(c).unwrap());
            rest = &hex[4..];
        }
    }
    out.push_str(rest);
    out
}

fn rows() -> Vec<Row> {
    let text = std::fs::read_to_string(repo().join("tests/fixtures/pii_spellings.tsv")).unwrap();
    let mut lines = text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty());
    assert_eq!(lines.next(), Some("spelling\tkind\tdecision\texpect\tgone"));
    lines
        .enumerate()
        .map(|(i, l)| {
            let f: Vec<&str> = l.split('\t').collect();
            assert_eq!(f.len(), 5, "pii_spellings.tsv line {l:?}");
            assert!(matches!(f[2], "pseudonymise" | "keep"), "{l:?}");
            Row {
                doc: format!("s{i:02}"),
                spelling: unescape(f[0]),
                kind: f[1].to_string(),
                pseudonymise: f[2] == "pseudonymise",
                expect: unescape(f[3]),
                gone: f[4]
                    .split(' ')
                    .filter(|g| *g != "-")
                    .map(String::from)
                    .collect(),
            }
        })
        .collect()
}

fn planted(r: &Row) -> String {
    format!("연락처는 {} 입니다.", r.spelling)
}

/// Whether `s` has the shape `expect`: `{dN}` N ASCII digits, `{DN}` N full-width digits,
/// `{aN}` N ASCII letters or digits, `{AN}` N full-width ones; anything else literal.
fn has_shape(s: &str, expect: &str) -> bool {
    let mut want: Vec<Box<dyn Fn(char) -> bool>> = Vec::new();
    let mut rest = expect;
    while let Some(c) = rest.chars().next() {
        let class = rest.strip_prefix('{').and_then(|r| {
            let close = r.find('}')?;
            let n: usize = r[1..close].parse().ok()?;
            Some((r.chars().next()?, n, &r[close + 1..]))
        });
        if let Some((k, n, after)) = class {
            for _ in 0..n {
                want.push(match k {
                    'd' => Box::new(|c: char| c.is_ascii_digit()),
                    'D' => Box::new(|c: char| ('０'..='９').contains(&c)),
                    'a' => Box::new(|c: char| c.is_ascii_alphanumeric()),
                    _ => Box::new(|c: char| {
                        ('０'..='９').contains(&c)
                            || ('Ａ'..='Ｚ').contains(&c)
                            || ('ａ'..='ｚ').contains(&c)
                    }),
                });
            }
            rest = after;
        } else {
            want.push(Box::new(move |x: char| x == c));
            rest = &rest[c.len_utf8()..];
        }
    }
    let got: Vec<char> = s.chars().collect();
    got.len() == want.len() && got.iter().zip(&want).all(|(c, w)| w(*c))
}

/// ASCII letters and digits of `s`, full-width forms folded, lower case.
fn alnum(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            '\u{FF01}'..='\u{FF5E}' => char::from_u32(c as u32 - 0xFEE0).unwrap(),
            _ => c,
        })
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

/// Writes the corpus and a recipe (normalize -> split [-> pii] -> assign_split) into `dir`.
fn recipe(dir: &Path, rows: &[Row], pii: bool) -> PathBuf {
    let data = dir.join("spellings.jsonl");
    let lines: String = rows
        .iter()
        .map(|r| serde_json::json!({"id": r.doc, "text": planted(r)}).to_string() + "\n")
        .collect();
    std::fs::write(&data, lines).unwrap();
    let stage = if pii {
        "[[stage]]\nname = \"pii\"\n\n"
    } else {
        ""
    };
    let text = format!(
        r#"name = "spellings"
version = "1.0.0"
seed = 7

[[source]]
id = "spell"
path = "{data}"
format = "jsonl"
license = "CC0-1.0"
domain = "reviews"
style = "colloquial"
[source.fields]
text = "text"
id = "id"

[[stage]]
name = "normalize"

[[stage]]
name = "split"

{stage}[[stage]]
name = "assign_split"

[task]
name = "sentences"
"#,
        data = data.display()
    );
    let p = dir.join(if pii {
        "with-pii.toml"
    } else {
        "without-pii.toml"
    });
    std::fs::write(&p, text).unwrap();
    p
}

/// Builds the release (with or without the pii stage) under `dir`.
fn build(dir: &Path, rows: &[Row], pii: bool) -> PathBuf {
    let r = recipe(dir, rows, pii);
    let out = dir.join(if pii { "out-pii" } else { "out-plain" });
    let o = kcurate(&[
        "run",
        r.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--threads",
        "1",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    out.join("spellings/1.0.0")
}

/// Released sentences by document: `doc -> [(file, line, id, text)]`, in id order.
type Released = BTreeMap<String, Vec<(String, u64, String, String)>>;

fn released(release: &Path) -> Released {
    let mut by_doc: Released = BTreeMap::new();
    for split in ["train", "validation", "test"] {
        let file = format!("sentences/{split}.jsonl");
        let text = std::fs::read_to_string(release.join(&file)).unwrap_or_default();
        for (n, l) in text.lines().enumerate() {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            let id = v["id"].as_str().unwrap().to_string();
            let doc = id
                .strip_prefix("spell-")
                .and_then(|r| r.split('-').next())
                .unwrap()
                .to_string();
            let text = v["text"].as_str().unwrap().to_string();
            by_doc
                .entry(doc)
                .or_default()
                .push((file.clone(), n as u64 + 1, id, text));
        }
    }
    by_doc
        .values_mut()
        .for_each(|v| v.sort_by(|a, b| a.2.cmp(&b.2)));
    by_doc
}

#[test]
fn every_spelling_is_pseudonymised_in_its_spelling_with_its_rule() {
    let rows = rows();
    assert!(rows.iter().filter(|r| r.pseudonymise).count() >= 31);
    let tmp = tempfile::tempdir().unwrap();
    let release = build(tmp.path(), &rows, true);
    let by_doc = released(&release);
    let decisions = std::fs::read_to_string(release.join("audit/decisions.jsonl")).unwrap();
    let decisions: Vec<serde_json::Value> = decisions
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let mut wrong = Vec::new();
    for r in &rows {
        // The splitter may end a sentence after a character reference (`…&#54;` then `입니다.`:
        // its `;` reads as an emoticon tail), never inside the value: the sentences joined
        // by a space have the expected shape, with a line break only where one was planted.
        let sents = by_doc.get(&r.doc).map(Vec::as_slice).unwrap_or_default();
        let text = &sents
            .iter()
            .map(|s| s.3.as_str())
            .collect::<Vec<_>>()
            .join(" ");
        let ids: Vec<&str> = sents.iter().map(|s| s.2.as_str()).collect();
        let want = format!("연락처는 {} 입니다.", r.expect);
        if !has_shape(text, &want) {
            wrong.push(format!(
                "{:?}: released {sents:?}, want {want:?}",
                r.spelling
            ));
        }
        if let Some(g) = r.gone.iter().find(|g| alnum(text).contains(g.as_str())) {
            wrong.push(format!("{:?}: {g:?} survives in {text:?}", r.spelling));
        }
        let rule = format!("pii.{}", r.kind);
        let mine = |d: &&serde_json::Value| {
            d["stage"] == "pii" && d["item"].as_str().is_some_and(|i| ids.contains(&i))
        };
        let edits = decisions.iter().filter(mine).count();
        let of_kind = decisions.iter().filter(mine).any(|d| d["rule"] == rule);
        if r.pseudonymise && (edits != 1 || !of_kind) {
            wrong.push(format!(
                "{:?}: {edits} pii decisions, not one {rule}",
                r.spelling
            ));
        }
        if !r.pseudonymise && edits != 0 {
            wrong.push(format!("{:?}: not PII, {edits} pii decisions", r.spelling));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} rows wrong:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

#[test]
fn leak_check_finds_every_spelling_without_the_pii_stage_and_none_with_it() {
    let rows = rows();
    let tmp = tempfile::tempdir().unwrap();
    let plain = build(tmp.path(), &rows, false);
    let o = kcurate(&["pii", "leak-check", plain.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    // `<release>/<file>:<line>: <type> (<reason>)`, one line per finding.
    let err = stderr(&o);
    let by_doc = released(&plain);
    let mut wrong = Vec::new();
    for r in &rows {
        let sents = by_doc.get(&r.doc).map(Vec::as_slice).unwrap_or_default();
        let found: Vec<&str> = err
            .lines()
            .filter(|l| {
                sents
                    .iter()
                    .any(|(f, n, _, _)| l.contains(&format!("/{f}:{n}: ")))
            })
            .collect();
        let of_kind = found
            .iter()
            .any(|l| l.contains(&format!(": {} (unprocessed)", r.kind)));
        if r.pseudonymise && !of_kind {
            wrong.push(format!(
                "{:?} ({}) not found: {found:?}",
                r.spelling, r.kind
            ));
        }
        if !r.pseudonymise && !found.is_empty() {
            wrong.push(format!("{:?} is no PII, found {found:?}", r.spelling));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} rows wrong:\n{}",
        wrong.len(),
        wrong.join("\n")
    );

    let with = build(tmp.path(), &rows, true);
    let o = kcurate(&["pii", "leak-check", with.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));

    // The names of a release's files are read too: a file named after a person's number and
    // email (harmless text inside) is a finding.
    std::fs::write(
        with.join("sentences/010-4321-8765_hong.gildong@example.com.txt"),
        "nothing personal\n",
    )
    .unwrap();
    let o = kcurate(&["pii", "leak-check", with.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let err = stderr(&o);
    for kind in ["phone", "email"] {
        assert!(
            err.lines()
                .any(|l| l.contains("hong.gildong@example.com.txt:0: ") && l.contains(kind)),
            "{kind}: {err}"
        );
    }
}
