//! Reading `{"id","text"}` JSONL and writing the reference's output format; [`run_gsm`]
//! is what `kcurate sts gsm --input F --metric M --seed N` calls.

use super::{Pair, match_fast, prepare};
use crate::rouge::Metric;
use kcurate_core::jsonl::{self, JsonlError};
use std::collections::BTreeSet;
use std::io::{BufRead, Write};

/// An input or output failure, naming the file, the line and the field.
#[derive(Debug, thiserror::Error)]
pub enum GsmError {
    /// An input line is unreadable, not JSON, or has a missing, non-string or repeated
    /// field.
    #[error("{path}:{line}: {field}: {message}")]
    Input {
        /// The input's name.
        path: String,
        /// 1-based line.
        line: usize,
        /// `id`, `text`, or `-` for the whole line.
        field: String,
        /// What is wrong.
        message: String,
    },
    /// Writing the output failed.
    #[error("{path}: {source}")]
    Io {
        /// The output's name.
        path: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}

impl From<JsonlError> for GsmError {
    fn from(e: JsonlError) -> Self {
        let (path, line, field, message) = match e {
            JsonlError::Io { path, line, source } => {
                (path, line, "-".into(), format!("unreadable: {source}"))
            }
            JsonlError::Json { path, line, source } => {
                (path, line, "-".into(), format!("not JSON: {source}"))
            }
            JsonlError::Field {
                path,
                line,
                field,
                message,
            } => (path, line, field, message),
        };
        GsmError::Input {
            path,
            line,
            field,
            message,
        }
    }
}

/// What a run produced (the reference's stderr line, minus timings).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GsmSummary {
    /// Sentences read.
    pub n: usize,
    /// Pairs written (n / 2, rounded down).
    pub pairs: usize,
    /// The id of the sentence left without a partner when `n` is odd.
    pub unmatched: Option<String>,
}

/// Reads `{"id","text"}` JSON Lines (`path` only names the input in errors). Ids must be
/// unique strings, texts strings; blank lines are errors too (the reference has none).
pub fn read_input(input: impl BufRead, path: &str) -> Result<(Vec<String>, Vec<String>), GsmError> {
    let (mut ids, mut texts) = (Vec::new(), Vec::new());
    let mut seen = BTreeSet::new();
    const NOT_STRING: &str = "missing or not a string";
    for item in jsonl::from_reader(path, input).blank_lines_are_errors() {
        let (line, v) = item?;
        let id = jsonl::str_field(&v, "id", path, line, NOT_STRING)?;
        let text = jsonl::str_field(&v, "text", path, line, NOT_STRING)?;
        if !seen.insert(id.to_string()) {
            return Err(JsonlError::field(path, line, "id", format!("duplicate {id:?}")).into());
        }
        ids.push(id.to_string());
        texts.push(text.to_string());
    }
    Ok((ids, texts))
}

/// Greedy Sentence Matching from a reader to a writer, byte-identical to the reference
/// (`gsm_naive.py --input F --metric M --seed N`). Uses the fast matcher.
pub fn run_gsm(
    input: impl BufRead,
    path: &str,
    output: impl Write,
    metric: Metric,
    seed: u64,
) -> Result<GsmSummary, GsmError> {
    let (ids, texts) = read_input(input, path)?;
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let s = prepare(&refs, metric);
    let (pairs, un) = match_fast(&s, metric, seed);
    write_output(output, &ids, &pairs, un, metric, seed).map_err(|source| GsmError::Io {
        path: "<output>".into(),
        source,
    })?;
    Ok(GsmSummary {
        n: ids.len(),
        pairs: pairs.len(),
        unmatched: un.map(|u| ids[u].clone()),
    })
}

/// Writes pairs and the summary line in the reference's exact format.
pub fn write_output(
    mut out: impl Write,
    ids: &[String],
    pairs: &[Pair],
    unmatched: Option<usize>,
    metric: Metric,
    seed: u64,
) -> std::io::Result<()> {
    let js = |s: &str| serde_json::to_string(s).expect("strings serialise");
    for (a, b, sc) in pairs {
        writeln!(
            out,
            "{{\"a\":{},\"b\":{},\"score\":{}}}",
            js(&ids[*a]),
            js(&ids[*b]),
            sc.six()
        )?;
    }
    let un: Vec<String> = unmatched.iter().map(|u| js(&ids[*u])).collect();
    writeln!(
        out,
        "{{\"summary\":{{\"metric\":\"{}\",\"seed\":{seed},\"n\":{},\"pairs\":{},\"unmatched\":[{}]}}}}",
        metric.name(),
        ids.len(),
        pairs.len(),
        un.join(",")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_the_reference_format_and_names_bad_lines() {
        let input = "{\"id\":\"a\",\"text\":\"힛걸 진심 최고다\"}\n{\"id\":\"b\",\"text\":\"힛걸 진심 최고로\"}\n{\"id\":\"c\",\"text\":\"다른 문장\"}\n";
        let mut out = Vec::new();
        let sum = run_gsm(input.as_bytes(), "in.jsonl", &mut out, Metric::Rouge1, 42).unwrap();
        assert_eq!(sum.n, 3);
        assert_eq!(sum.pairs, 1);
        let text = String::from_utf8(out).unwrap();
        let last = text.lines().last().unwrap();
        assert!(last.starts_with(
            "{\"summary\":{\"metric\":\"rouge1\",\"seed\":42,\"n\":3,\"pairs\":1,\"unmatched\":[\""
        ));
        assert!(text.ends_with("]}}\n"));
        let bad = "{\"id\":\"a\",\"text\":\"x\"}\n{\"id\":\"a\",\"text\":\"y\"}\n";
        let e = run_gsm(bad.as_bytes(), "in.jsonl", Vec::new(), Metric::Rouge1, 1).unwrap_err();
        assert_eq!(e.to_string(), "in.jsonl:2: id: duplicate \"a\"");
        let e = read_input("{\"id\":1}\n".as_bytes(), "f").unwrap_err();
        assert_eq!(e.to_string(), "f:1: id: missing or not a string");
    }
}
