//! The reader of JSONL side inputs (imported probabilities, round-trip translations, ...):
//! one JSON value per non-blank line, each with its 1-based line number, read one line at
//! a time; gzip and zstd files are decoded on the way in ([`crate::ingest::open_decoded`]);
//! an error names file:line. Sources go through [`crate::ingest`] instead, where a bad line
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
}

/// The non-blank lines of a JSONL file as JSON values with their 1-based line numbers
/// (see [`values`]).
pub struct Values {
    path: String,
    lines: std::io::Lines<Box<dyn BufRead + Send>>,
    line: usize,
}

/// Opens the JSONL file at `path` (gzip or zstd by its magic bytes); its errors show the
/// path as given.
pub fn values(path: &Path) -> Result<Values, JsonlError> {
    let shown = path.display().to_string();
    match crate::ingest::open_decoded(path) {
        Ok(r) => Ok(Values {
            path: shown,
            lines: r.lines(),
            line: 0,
        }),
        Err(source) => Err(JsonlError::Io {
            path: shown,
            line: 0,
            source,
        }),
    }
}

impl Iterator for Values {
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
            if text.trim().is_empty() {
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
    use std::io::Write;

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
    fn gzip_is_decoded_by_its_magic_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.data");
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gz.write_all(b"{\"id\":\"x\"}\n\n{\"id\":\"y\"}\n").unwrap();
        std::fs::write(&p, gz.finish().unwrap()).unwrap();
        let ids: Vec<(usize, String)> = all(&p)
            .into_iter()
            .map(|(n, v)| (n, v["id"].as_str().unwrap().to_string()))
            .collect();
        assert_eq!(ids, vec![(1, "x".into()), (3, "y".into())]);
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
