//! The reader of JSONL side inputs (imported probabilities, round-trip translations, ...):
//! one JSON value per non-blank line, each with its 1-based line number, read one line at
//! a time; gzip and zstd files are decoded on the way in (by the opener the binary installs,
//! [`crate::open`]);
//! an error names file:line, and a field a reader requires ([`str_field`]) file:line:field.
//! Every JSONL side input (score files, `pii` and `sts gsm` inputs, annotation simulations)
//! reads through here. Sources go through kcurate-io's readers instead, where a bad line
//! becomes a decision and the run goes on.

use serde_json::Value;
use std::io::BufRead;
use std::path::Path;

/// A JSONL file that cannot be read, or a line of it that is not JSON.
#[derive(Debug, thiserror::Error)]
pub enum JsonlError {
    /// The file cannot be opened or a line cannot be read (not UTF-8, an I/O error).
    #[error("{path}: {source}")]
    Io {
        /// The file as given.
        path: String,
        /// 1-based line at fault (0: opening the file).
        line: usize,
        /// What the system said.
        source: std::io::Error,
    },
    /// A non-blank line is not one JSON value.
    #[error("{path}:{line}: not JSON: {source}")]
    Json {
        /// The file as given.
        path: String,
        /// 1-based line number.
        line: usize,
        /// What the JSON parser said.
        source: serde_json::Error,
    },
    /// A line's value lacks a field its reader needs, or has it of the wrong type.
    #[error("{path}:{line}: {field}: {message}")]
    Field {
        /// The file as given.
        path: String,
        /// 1-based line number.
        line: usize,
        /// The field at fault.
        field: String,
        /// What is wrong.
        message: String,
    },
}

impl JsonlError {
    /// The 1-based line at fault (0: opening the file).
    pub fn line(&self) -> usize {
        match self {
            JsonlError::Io { line, .. }
            | JsonlError::Json { line, .. }
            | JsonlError::Field { line, .. } => *line,
        }
    }

    /// A [`JsonlError::Field`].
    pub fn field(
        path: impl Into<String>,
        line: usize,
        field: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        JsonlError::Field {
            path: path.into(),
            line,
            field: field.into(),
            message: message.into(),
        }
    }
}

/// A [`JsonlError`] as the two cases a caller's own error type tells apart: the file could
/// not be read, or one line of it is wrong (not JSON, or a field its reader needs), with the
/// fault as text. A field fault reads `field: message`, so the field is named either way.
#[derive(Debug)]
pub enum JsonlFault {
    /// The file cannot be opened or a line cannot be read.
    Unreadable {
        /// The file as given.
        path: String,
        /// 1-based line at fault (0: opening the file).
        line: usize,
        /// What the system said.
        source: std::io::Error,
    },
    /// A line is not JSON, or lacks a field its reader needs.
    Line {
        /// The file as given.
        path: String,
        /// 1-based line number.
        line: usize,
        /// What is wrong: the parser's message, or `field: message`.
        message: String,
    },
}

impl JsonlError {
    /// This error as a [`JsonlFault`], for converting into a caller's error type.
    pub fn into_fault(self) -> JsonlFault {
        match self {
            JsonlError::Io { path, line, source } => JsonlFault::Unreadable { path, line, source },
            JsonlError::Json { path, line, source } => JsonlFault::Line {
                path,
                line,
                message: source.to_string(),
            },
            JsonlError::Field {
                path,
                line,
                field,
                message,
            } => JsonlFault::Line {
                path,
                line,
                message: format!("{field}: {message}"),
            },
        }
    }
}

/// The string at `field` of the value read at `path:line`; a missing or non-string field
/// is a [`JsonlError::Field`] saying `message`.
pub fn str_field<'v>(
    v: &'v Value,
    field: &str,
    path: &str,
    line: usize,
    message: &str,
) -> Result<&'v str, JsonlError> {
    v.get(field)
        .and_then(Value::as_str)
        .ok_or_else(|| JsonlError::field(path, line, field, message))
}

/// The non-blank lines of a JSONL file as JSON values with their 1-based line numbers
/// (see [`values`]).
pub struct Values<R = Box<dyn BufRead + Send>> {
    path: String,
    lines: std::io::Lines<R>,
    line: usize,
    blank_is_error: bool,
}

/// Opens the JSONL file at `path` through [`crate::open`] (gzip or zstd by its magic bytes
/// once kcurate-io's decoders are installed); its errors show the path as given.
pub fn values(path: &Path) -> Result<Values, JsonlError> {
    let shown = path.display().to_string();
    match crate::open::open(path) {
        Ok(r) => Ok(from_reader(shown, r as Box<dyn BufRead + Send>)),
        Err(source) => Err(JsonlError::Io {
            path: shown,
            line: 0,
            source,
        }),
    }
}

/// The JSONL read from `input` (stdin, an in-memory text), named `name` in errors; not
/// decoded.
pub fn from_reader<R: BufRead>(name: impl Into<String>, input: R) -> Values<R> {
    Values {
        path: name.into(),
        lines: input.lines(),
        line: 0,
        blank_is_error: false,
    }
}

impl<R: BufRead> Values<R> {
    /// Makes a blank line a [`JsonlError::Json`] instead of skipping it, for formats that
    /// have none (a reference implementation's inputs).
    pub fn blank_lines_are_errors(mut self) -> Self {
        self.blank_is_error = true;
        self
    }

    /// The input's name as errors show it.
    pub fn path(&self) -> &str {
        &self.path
    }
}

impl<R: BufRead> Iterator for Values<R> {
    type Item = Result<(usize, Value), JsonlError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            let text = self.lines.next()?;
            self.line += 1;
            let text = match text {
                Ok(t) => t,
                Err(source) => {
                    return Some(Err(JsonlError::Io {
                        path: self.path.clone(),
                        line: self.line,
                        source,
                    }));
                }
            };
            if text.trim().is_empty() && !self.blank_is_error {
                continue;
            }
            return Some(
                serde_json::from_str(&text)
                    .map(|v| (self.line, v))
                    .map_err(|source| JsonlError::Json {
                        path: self.path.clone(),
                        line: self.line,
                        source,
                    }),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(path: &Path) -> Vec<(usize, Value)> {
        values(path).unwrap().map(Result::unwrap).collect()
    }

    #[test]
    fn blank_lines_are_skipped_and_lines_keep_their_numbers() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.jsonl");
        std::fs::write(&p, "{\"id\":1}\n\n  \r\n{\"id\":2}\r\n[3]").unwrap();
        let got = all(&p);
        assert_eq!(
            got,
            vec![
                (1, serde_json::json!({"id": 1})),
                (4, serde_json::json!({"id": 2})),
                (5, serde_json::json!([3])),
            ]
        );
    }

    #[test]
    fn a_reader_is_read_alike_and_a_missing_field_names_file_line_and_field() {
        let text = "{\"id\":\"a\"}\n\n{\"id\":3}\n";
        let got: Vec<_> = from_reader("in.jsonl", std::io::Cursor::new(text)).collect();
        assert_eq!(got.len(), 2, "the blank line is skipped");
        let (line, v) = got[1].as_ref().unwrap();
        let err = str_field(v, "id", "in.jsonl", *line, "missing or not a string").unwrap_err();
        assert_eq!(err.to_string(), "in.jsonl:3: id: missing or not a string");
        let strict: Vec<_> = from_reader("in.jsonl", std::io::Cursor::new(text))
            .blank_lines_are_errors()
            .collect();
        let Err(JsonlError::Json { line: 2, .. }) = &strict[1] else {
            panic!("a blank line is an error when asked: {:?}", strict[1])
        };
    }

    #[test]
    fn a_fault_keeps_file_and_line_and_names_the_field() {
        let text = "{oops\n{\"id\":3}\n";
        let mut read = from_reader("in.jsonl", std::io::Cursor::new(text));
        let JsonlFault::Line {
            path,
            line,
            message,
        } = read.next().unwrap().unwrap_err().into_fault()
        else {
            panic!("a line that is not JSON is a line fault")
        };
        assert_eq!((path.as_str(), line), ("in.jsonl", 1));
        assert!(message.starts_with("key must be a string"), "{message}");
        let (line, v) = read.next().unwrap().unwrap();
        let err = str_field(&v, "id", "in.jsonl", line, "not a string").unwrap_err();
        let JsonlFault::Line { line, message, .. } = err.into_fault() else {
            panic!("a field error is a line fault")
        };
        assert_eq!((line, message.as_str()), (2, "id: not a string"));
        let dir = tempfile::tempdir().unwrap();
        let Err(e) = values(&dir.path().join("missing.jsonl")) else {
            panic!("a missing file cannot be opened")
        };
        let JsonlFault::Unreadable { line: 0, .. } = e.into_fault() else {
            panic!("a missing file is unreadable at line 0")
        };
    }

    #[test]
    fn errors_name_the_file_and_line() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("bad.jsonl");
        std::fs::write(&p, "{}\n\n{oops\n").unwrap();
        let err = values(&p).unwrap().find_map(Result::err).unwrap();
        assert!(
            err.to_string()
                .starts_with(&format!("{}:3: not JSON: ", p.display())),
            "{err}"
        );
        let missing = dir.path().join("missing.jsonl");
        let Err(JsonlError::Io { line: 0, .. }) = values(&missing) else {
            panic!("a missing file is an I/O error at line 0")
        };
    }
}
