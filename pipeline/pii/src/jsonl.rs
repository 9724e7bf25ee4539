//! `pii detect`, `pii pseudonymise` (JSONL on a reader → JSONL on a writer) and
//! `pii leak-check` (a release directory).

use crate::detect::detect;
use crate::pseudo::{PiiKey, fingerprint, pseudonymise};
use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::io::{BufRead, Write};
use std::path::Path;

/// A JSONL input that cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum JsonlError {
    /// A line that is not a record with an id and a text.
    #[error("line {line}: {message}")]
    Line {
        /// 1-based line number.
        line: u64,
        /// What is wrong.
        message: String,
    },
    /// Reading or writing failed.
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

fn records(input: impl BufRead) -> impl Iterator<Item = Result<(u64, String, String), JsonlError>> {
    input.lines().enumerate().filter_map(|(n, l)| {
        let line = n as u64 + 1;
        let l = match l {
            Ok(l) => l,
            Err(e) => return Some(Err(e.into())),
        };
        if l.trim().is_empty() {
            return None;
        }
        let v: Value = match serde_json::from_str(&l) {
            Ok(v) => v,
            Err(e) => {
                return Some(Err(JsonlError::Line {
                    line,
                    message: format!("invalid JSON: {e}"),
                }));
            }
        };
        let id = match &v["id"] {
            Value::String(s) => s.clone(),
            Value::Null => {
                return Some(Err(JsonlError::Line {
                    line,
                    message: "id: missing field".into(),
                }));
            }
            other => other.to_string(),
        };
        match v["text"].as_str() {
            Some(t) => Some(Ok((line, id, t.to_string()))),
            None => Some(Err(JsonlError::Line {
                line,
                message: "text: missing field or not a string".into(),
            })),
        }
    })
}

/// Writes `row(id, text)` as one JSONL line per record of `input`; bad lines are returned,
/// not fatal (what `pii detect` and `pii pseudonymise` share).
fn map_records(
    input: impl BufRead,
    mut output: impl Write,
    row: impl Fn(String, String) -> Value,
) -> Result<Vec<JsonlError>, JsonlError> {
    let mut bad = Vec::new();
    for r in records(input) {
        match r {
            Ok((_, id, text)) => {
                serde_json::to_writer(&mut output, &row(id, text)).map_err(std::io::Error::from)?;
                output.write_all(b"\n")?;
            }
            Err(JsonlError::Io(e)) => return Err(e.into()),
            Err(e) => bad.push(e),
        }
    }
    output.flush()?;
    Ok(bad)
}

/// `{"id","text"}` → `{"id","spans":[{"start","end","type"}]}`. Bad lines are returned, not fatal.
pub fn detect_jsonl(
    input: impl BufRead,
    output: impl Write,
) -> Result<Vec<JsonlError>, JsonlError> {
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
) -> Result<Vec<JsonlError>, JsonlError> {
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
    /// `original` (its fingerprint is an original's) or `unprocessed` (not a pseudonym the
    /// release's decisions made).
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

/// The JSONL files of a release outside `audit/`, sorted. A linked directory is not
/// followed: it may lead out of the release.
fn output_jsonl(release: &Path) -> Result<Vec<std::path::PathBuf>, std::io::Error> {
    let mut files = Vec::new();
    let mut stack = vec![release.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d)? {
            let e = e?;
            let p = e.path();
            if e.file_type()?.is_dir() {
                if p.file_name().is_some_and(|n| n != "audit") {
                    stack.push(p);
                }
            } else if p.extension().is_some_and(|x| x == "jsonl") {
                files.push(p);
            }
        }
    }
    files.sort();
    Ok(files)
}

/// Scans every JSONL output of a release (not the audit trail) for detector hits. A hit
/// whose keyed fingerprint is an original's (from `audit/decisions.jsonl`) is a leaked
/// original; a hit that is not a pseudonym the release made is unprocessed PII.
pub fn leak_check(release: &Path, key: &PiiKey) -> Result<Vec<Finding>, std::io::Error> {
    let mut originals = BTreeSet::new();
    let mut pseudonyms = BTreeSet::new();
    let dec = release.join("audit/decisions.jsonl");
    let mut findings = Vec::new();
    let release_files = kcurate_core::bounded::ReleaseFiles::of(release)?;
    let named = |p: &Path, e: std::io::Error| {
        std::io::Error::new(e.kind(), format!("{}: {e}", p.display()))
    };
    let text = match release_files.read_to_string(&dec) {
        Ok(text) => Some(text),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(named(&dec, e)),
    };
    if let Some(text) = text {
        for (n, l) in text.lines().enumerate() {
            let Ok(d) = serde_json::from_str::<Value>(l) else {
                continue;
            };
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
            {
                for field in quoted {
                    for s in field.as_str().map(detect).unwrap_or_default() {
                        findings.push(Finding {
                            file: "audit/decisions.jsonl".into(),
                            line: n as u64 + 1,
                            kind: s.kind,
                            reason: "unscrubbed",
                        });
                    }
                }
            }
            if d["rule"].as_str().is_some_and(|r| r.starts_with("pii.")) {
                if let Some(b) = d["span"]["before"].as_str() {
                    originals.insert(b.trim_start_matches("fp:").to_string());
                }
                if let Some(a) = d["span"]["after"].as_str() {
                    pseudonyms.insert(a.to_string());
                }
            }
        }
    }
    for f in output_jsonl(release)? {
        let shown = f.strip_prefix(release).unwrap_or(&f).display().to_string();
        let text = release_files.read_to_string(&f).map_err(|e| named(&f, e))?;
        for (n, l) in text.lines().enumerate() {
            let Ok(v) = serde_json::from_str::<Value>(l) else {
                continue;
            };
            let mut texts = Vec::new();
            strings(&v, &mut texts);
            for t in texts {
                let chars: Vec<char> = t.chars().collect();
                for s in detect(&t) {
                    let val: String = chars[s.start..s.end].iter().collect();
                    let reason = if originals.contains(&fingerprint(key, &s.kind, &val)) {
                        "original"
                    } else if pseudonyms.contains(&val) {
                        continue;
                    } else {
                        "unprocessed"
                    };
                    findings.push(Finding {
                        file: shown.clone(),
                        line: n as u64 + 1,
                        kind: s.kind.clone(),
                        reason,
                    });
                }
            }
        }
    }
    Ok(findings)
}
