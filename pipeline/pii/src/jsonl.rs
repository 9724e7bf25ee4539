//! `pii detect`, `pii pseudonymise` (JSONL on a reader → JSONL on a writer) and
//! `pii leak-check` (a release directory).

use crate::detect::detect;
use crate::pseudo::{PiiKey, fingerprint, pseudonymise};
use crate::reread::reread;
use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::io::{BufRead, Write};
use std::path::Path;

pub use kcurate_core::jsonl::JsonlError;

/// How `pii detect` and `pii pseudonymise` name their input in errors (both read stdin).
pub const INPUT: &str = "<stdin>";

/// Reading the input or writing the output failed (a bad input line is not fatal: it is
/// returned as a [`JsonlError`]).
#[derive(Debug, thiserror::Error)]
pub enum MapError {
    /// The input cannot be read.
    #[error(transparent)]
    Read(JsonlError),
    /// The output cannot be written.
    #[error(transparent)]
    Write(#[from] std::io::Error),
}

fn records(
    input: impl BufRead,
) -> impl Iterator<Item = Result<(usize, String, String), JsonlError>> {
    kcurate_core::jsonl::from_reader(INPUT, input).map(|item| {
        let (line, v) = item?;
        let id = match &v["id"] {
            Value::String(s) => s.clone(),
            Value::Null => return Err(JsonlError::field(INPUT, line, "id", "missing field")),
            other => other.to_string(),
        };
        let text = kcurate_core::jsonl::str_field(
            &v,
            "text",
            INPUT,
            line,
            "missing field or not a string",
        )?;
        Ok((line, id, text.to_string()))
    })
}

/// Writes `row(id, text)` as one JSONL line per record of `input`; bad lines are returned,
/// not fatal (what `pii detect` and `pii pseudonymise` share).
fn map_records(
    input: impl BufRead,
    mut output: impl Write,
    row: impl Fn(String, String) -> Value,
) -> Result<Vec<JsonlError>, MapError> {
    let mut bad = Vec::new();
    for r in records(input) {
        match r {
            Ok((_, id, text)) => {
                serde_json::to_writer(&mut output, &row(id, text)).map_err(std::io::Error::from)?;
                output.write_all(b"\n")?;
            }
            Err(e @ JsonlError::Io { .. }) => return Err(MapError::Read(e)),
            Err(e) => bad.push(e),
        }
    }
    output.flush()?;
    Ok(bad)
}

/// `{"id","text"}` → `{"id","spans":[{"start","end","type"}]}`. Bad lines are returned, not fatal.
pub fn detect_jsonl(input: impl BufRead, output: impl Write) -> Result<Vec<JsonlError>, MapError> {
    map_records(
        input,
        output,
        |id, text| json!({"id": id, "spans": detect(&text)}),
    )
}

/// `{"id","text"}` → `{"id","text","replacements":[{"start","end","type","fingerprint","pseudonym"}]}`.
pub fn pseudonymise_jsonl(
    key: &PiiKey,
    input: impl BufRead,
    output: impl Write,
) -> Result<Vec<JsonlError>, MapError> {
    map_records(input, output, |id, text| {
        let mut chars: Vec<char> = text.chars().collect();
        let orig = chars.clone();
        let mut reps = Vec::new();
        for s in detect(&text).iter().rev() {
            let v: String = orig[s.start..s.end].iter().collect();
            let p = pseudonymise(key, &s.kind, &v);
            reps.push(json!({"start": s.start, "end": s.end, "type": s.kind, "fingerprint": fingerprint(key, &s.kind, &v), "pseudonym": p}));
            chars.splice(s.start..s.end, p.chars());
        }
        reps.reverse();
        let out: String = chars.into_iter().collect();
        json!({"id": id, "text": out, "replacements": reps})
    })
}

/// One leak: where, what type, and why it counts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// The release file the leak is in.
    pub file: String,
    /// Its 1-based line.
    pub line: u64,
    /// The PII type found.
    pub kind: String,
    /// `original` (its fingerprint is an original's), `unprocessed` (not a pseudonym the
    /// release's decisions made) or `file name` (in the name of a release file; line 0).
    pub reason: &'static str,
}

impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}:{}: {} ({})",
            self.file, self.line, self.kind, self.reason
        )
    }
}

fn strings(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) => out.push(s.clone()),
        Value::Array(a) => a.iter().for_each(|x| strings(x, out)),
        Value::Object(o) => o.values().for_each(|x| strings(x, out)),
        _ => {}
    }
}

/// The PII in `text` as the leak check reads it: the detectors on the text as written and
/// on its own reading ([`reread`]), each value as read, one per type and value.
fn hits(text: &str) -> BTreeSet<(String, String)> {
    let mut out = BTreeSet::new();
    let read = reread(text);
    let written = (text, detect(text));
    let reread_ = (read.as_ref(), detect(&read));
    for (t, spans) in [written, reread_] {
        if spans.is_empty() {
            continue;
        }
        let chars: Vec<char> = t.chars().collect();
        for s in spans {
            let v: String = chars[s.start..s.end].iter().collect();
            out.insert((s.kind, reread(&v).into_owned()));
        }
    }
    out
}

/// What the release's decisions say about its PII: fingerprints of originals, pseudonyms
/// (as read), and the quoted texts that still hold PII.
struct Books {
    originals: BTreeSet<String>,
    pseudonyms: BTreeSet<String>,
    unscrubbed: Vec<Finding>,
}

fn books(
    release: &Path,
    files: &kcurate_core::bounded::ReleaseFiles,
) -> Result<Books, std::io::Error> {
    let mut b = Books {
        originals: BTreeSet::new(),
        pseudonyms: BTreeSet::new(),
        unscrubbed: Vec::new(),
    };
    let dec = release.join("audit/decisions.jsonl");
    let text = match files.read_to_string(&dec) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(b),
        Err(e) => return Err(named(&dec, e)),
    };
    let pii_ran = files
        .read_to_string(&release.join("manifest.json"))
        .ok()
        .and_then(|m| serde_json::from_str::<Value>(&m).ok())
        .and_then(|m| m["stages"].as_array().cloned())
        .is_some_and(|st| st.iter().any(|s| s["name"] == "pii"));
    for (n, l) in text.lines().enumerate() {
        let Ok(d) = serde_json::from_str::<Value>(l) else {
            continue;
        };
        // With a pii stage every decision names its item by a safe id: the PII-shaped parts
        // of one dropped before the stage are the scrubber's pseudonyms (the card and the
        // report quote them), recorded nowhere else.
        if pii_ran {
            for (_, v) in d["item"].as_str().map(hits).unwrap_or_default() {
                b.pseudonyms.insert(v);
            }
        }
        // Decisions quote text (every drop's `text`; other stages' details and spans):
        // the scrubber must have removed any PII from it.
        let quoted: &[&Value] = if d["stage"] != "pii" {
            &[
                &d["text"],
                &d["detail"],
                &d["span"]["before"],
                &d["span"]["after"],
            ]
        } else {
            &[&d["text"]]
        };
        for field in quoted {
            for (kind, _) in field.as_str().map(hits).unwrap_or_default() {
                b.unscrubbed.push(Finding {
                    file: "audit/decisions.jsonl".into(),
                    line: n as u64 + 1,
                    kind,
                    reason: "unscrubbed",
                });
            }
        }
        if d["rule"].as_str().is_some_and(|r| r.starts_with("pii.")) {
            if let Some(x) = d["span"]["before"].as_str() {
                b.originals.insert(x.trim_start_matches("fp:").to_string());
            }
            if let Some(a) = d["span"]["after"].as_str() {
                b.pseudonyms.insert(reread(a).into_owned());
            }
        }
    }
    Ok(b)
}

/// An error naming the file it is about.
fn named(p: &Path, e: std::io::Error) -> std::io::Error {
    std::io::Error::new(e.kind(), format!("{}: {e}", p.display()))
}

/// Every file under `release` but the audit trail and the recipe, sorted. The recipe is
/// the curator's own text, copied as written (its comments speak of `@mentions`).
fn release_files(release: &Path) -> Result<Vec<std::path::PathBuf>, std::io::Error> {
    let mut files = Vec::new();
    let mut stack = vec![release.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d)? {
            let e = e?;
            let p = e.path();
            // A linked directory is not followed: it may lead out of the release.
            if e.file_type()?.is_dir() {
                if p.file_name().is_some_and(|n| n != "audit") {
                    stack.push(p);
                }
            } else if p != release.join("recipe.toml") {
                files.push(p);
            }
        }
    }
    files.sort();
    Ok(files)
}

/// Scans a release for PII, reading each text as written and with the leak check's own
/// reading ([`reread`]): every string of its JSONL outputs, every line of its other text
/// files (card, report, manifest), and the texts its decisions quote. A hit whose
/// keyed fingerprint is an original's (from `audit/decisions.jsonl`) is a leaked original;
/// a hit that is not a pseudonym the release made is unprocessed PII. Binary files
/// (Parquet) are not read here.
pub fn leak_check(release: &Path, key: &PiiKey) -> Result<Vec<Finding>, std::io::Error> {
    // Every file is opened as a regular file inside the release at the size its manifest
    // records: a FIFO or a link to a device is refused instead of read without end.
    let files = kcurate_core::bounded::ReleaseFiles::of(release)?;
    let b = books(release, &files)?;
    let mut findings = b.unscrubbed;
    for f in release_files(release)? {
        let shown = f.strip_prefix(release).unwrap_or(&f).display().to_string();
        // A file's own name is read too (line 0: no line of it): a release is a directory
        // anyone can list.
        for (kind, _) in hits(&shown.replace(['_', '/'], " ")) {
            findings.push(Finding {
                file: shown.clone(),
                line: 0,
                kind,
                reason: "file name",
            });
        }
        let jsonl = f.extension().is_some_and(|x| x == "jsonl");
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut files.open(&f).map_err(|e| named(&f, e))?, &mut bytes)
            .map_err(|e| named(&f, e))?;
        let Ok(content) = String::from_utf8(bytes) else {
            continue; // not UTF-8 text: a binary twin of a JSONL file
        };
        for (n, l) in content.lines().enumerate() {
            let mut texts = Vec::new();
            if jsonl {
                let Ok(v) = serde_json::from_str::<Value>(l) else {
                    continue;
                };
                strings(&v, &mut texts);
            } else {
                texts.push(l.to_string());
            }
            for t in texts {
                for (kind, val) in hits(&t) {
                    let reason = if b.originals.contains(&fingerprint(key, &kind, &val)) {
                        "original"
                    } else if b.pseudonyms.contains(&val) {
                        continue;
                    } else {
                        "unprocessed"
                    };
                    findings.push(Finding {
                        file: shown.clone(),
                        line: n as u64 + 1,
                        kind,
                        reason,
                    });
                }
            }
        }
    }
    Ok(findings)
}
