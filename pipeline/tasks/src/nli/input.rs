//! Reading the JSONL inputs of the `kcurate nli` commands: written pairs
//! (`{"id","premise","hypothesis","label"[,"source"]}`) and premises to write hypotheses for
//! (`{"id","text"[,"source"]}`). Blank lines are skipped; an error names file:line and the
//! field, so a curator can open the line that stopped the command.

use super::select::Pair;
use serde_json::Value;

/// Why an NLI input file cannot be used; `file` is the name the caller gave, `line` 1-based.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    /// A non-blank line is not one JSON value.
    #[error("{file}:{line}: invalid JSON: {source}")]
    Json {
        /// The input as the caller named it.
        file: String,
        /// 1-based line number.
        line: usize,
        /// What the JSON parser said.
        source: serde_json::Error,
    },
    /// A field a pair needs is absent, empty, or not a string.
    #[error("{file}:{line}: {field}: missing, empty or not a string")]
    Field {
        /// The input as the caller named it.
        file: String,
        /// 1-based line number.
        line: usize,
        /// The field at fault.
        field: &'static str,
    },
    /// A field a premise needs is absent or not a string.
    #[error("{file}:{line}: {field}: missing field")]
    Missing {
        /// The input as the caller named it.
        file: String,
        /// 1-based line number.
        line: usize,
        /// The field at fault.
        field: &'static str,
    },
}

/// One premise a writer batch is made from: its id, its text and where it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Premise {
    /// The premise id (a writer task's id is `<id>-<label>`).
    pub id: String,
    /// The premise text shown to the writer.
    pub text: String,
    /// The source the premise was drawn from, when the input names one.
    pub source: Option<String>,
}

/// The non-blank lines of `text` as JSON values with their 1-based line numbers.
fn values<'a>(
    file: &'a str,
    text: &'a str,
) -> impl Iterator<Item = Result<(usize, Value), InputError>> + 'a {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(move |(n, l)| {
            serde_json::from_str(l)
                .map(|v| (n + 1, v))
                .map_err(|source| InputError::Json {
                    file: file.to_string(),
                    line: n + 1,
                    source,
                })
        })
}

/// Parses written pairs; `id`, `premise`, `hypothesis` and `label` must be non-empty strings,
/// `source` is optional.
pub fn parse_pairs(file: &str, text: &str) -> Result<Vec<Pair>, InputError> {
    values(file, text)
        .map(|item| {
            let (line, v) = item?;
            let field = |k: &'static str| {
                v[k].as_str()
                    .filter(|s| !s.is_empty())
                    .map(String::from)
                    .ok_or_else(|| InputError::Field {
                        file: file.to_string(),
                        line,
                        field: k,
                    })
            };
            Ok(Pair {
                id: field("id")?,
                premise: field("premise")?,
                hypothesis: field("hypothesis")?,
                label: field("label")?,
                source: v["source"].as_str().map(String::from),
            })
        })
        .collect()
}

/// Parses premises; `id` and `text` must be strings, `source` is optional.
pub fn parse_premises(file: &str, text: &str) -> Result<Vec<Premise>, InputError> {
    values(file, text)
        .map(|item| {
            let (line, v) = item?;
            let field = |k: &'static str| {
                v[k].as_str()
                    .map(String::from)
                    .ok_or_else(|| InputError::Missing {
                        file: file.to_string(),
                        line,
                        field: k,
                    })
            };
            Ok(Premise {
                id: field("id")?,
                text: field("text")?,
                source: v["source"].as_str().map(String::from),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_skip_blank_lines_and_keep_the_optional_source() {
        let text = "{\"id\":\"a\",\"premise\":\"p\",\"hypothesis\":\"h\",\"label\":\"neutral\"}\n\n  \n\
                    {\"id\":\"b\",\"premise\":\"p\",\"hypothesis\":\"h2\",\"label\":\"entailment\",\"source\":\"news\"}\n";
        let pairs = parse_pairs("p.jsonl", text).unwrap();
        assert_eq!(pairs.len(), 2);
        assert_eq!(pairs[0].source, None);
        assert_eq!(pairs[1].id, "b");
        assert_eq!(pairs[1].label, "entailment");
        assert_eq!(pairs[1].source.as_deref(), Some("news"));
    }

    #[test]
    fn a_pair_error_names_file_line_and_field() {
        let text = "{\"id\":\"a\",\"premise\":\"p\",\"hypothesis\":\"h\",\"label\":\"neutral\"}\n\n\
                    {\"id\":\"b\",\"premise\":\"p\",\"hypothesis\":\"\",\"label\":\"neutral\"}\n";
        let e = parse_pairs("p.jsonl", text).unwrap_err().to_string();
        assert_eq!(e, "p.jsonl:3: hypothesis: missing, empty or not a string");
        let e = parse_pairs("p.jsonl", "{\"id\":1}\n")
            .unwrap_err()
            .to_string();
        assert_eq!(e, "p.jsonl:1: id: missing, empty or not a string");
    }

    #[test]
    fn invalid_json_names_its_line() {
        let e = parse_premises("w.jsonl", "{\"id\":\"a\",\"text\":\"t\"}\n{oops\n")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("w.jsonl:2: invalid JSON: "), "{e}");
    }

    #[test]
    fn premises_need_id_and_text() {
        let got = parse_premises(
            "w.jsonl",
            "{\"id\":\"a\",\"text\":\"비가 온다.\",\"source\":\"wiki\"}\n{\"id\":\"b\",\"text\":\"\"}\n",
        )
        .unwrap();
        assert_eq!(
            got,
            vec![
                Premise {
                    id: "a".into(),
                    text: "비가 온다.".into(),
                    source: Some("wiki".into())
                },
                Premise {
                    id: "b".into(),
                    text: String::new(),
                    source: None
                },
            ]
        );
        let e = parse_premises("w.jsonl", "{\"id\":\"a\"}\n")
            .unwrap_err()
            .to_string();
        assert_eq!(e, "w.jsonl:1: text: missing field");
    }
}
