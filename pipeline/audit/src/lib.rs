//! kcurate-audit: reading a release back. [`why`] traces one item (its origin, every
//! decision on it or its document, where it ended); [`rules`] counts decisions per rule and
//! source with seeded samples; [`diff`] compares two releases and explains each change by a
//! decision or an input. `rules` scans the columns of `audit/decisions.parquet`; `why` and
//! `diff` stream `audit/decisions.jsonl` and the split files; [`sample`] writes a stratified
//! sample of each rule's drops and edits for curators to judge and reads the judgements
//! back as per-rule precision.

pub mod diff;
#[cfg(feature = "polars")]
pub mod frame;
pub mod rules;
// Not every public item of sample.rs is documented yet; remove this allow once they are.
#[allow(missing_docs)]
pub mod sample;
pub mod scan;
pub mod why;

use std::io::{BufRead, BufReader};
use std::ops::ControlFlow;
use std::path::Path;

/// Reading a release back failed.
#[derive(Debug, thiserror::Error)]
pub enum AuditError {
    /// A file cannot be read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// A file's line (0: the file) cannot be parsed.
    #[error("{path}:{line}: {message}")]
    Parse {
        /// The file.
        path: String,
        /// 1-based line, or 0 for the whole file.
        line: usize,
        /// The parser's message.
        message: String,
    },
    /// The release's manifest cannot be loaded.
    #[error(transparent)]
    Manifest(#[from] kcurate_release::manifest::ManifestError),
}

/// Every JSON line of a file, with its line number.
pub fn json_lines(path: &Path) -> Result<Vec<(usize, serde_json::Value)>, AuditError> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    json_lines_in(&release_files(dir)?, path)
}

/// The files of release `dir` as its manifest records them: every read of a release goes
/// through it (regular files inside the release, at their recorded sizes).
pub fn release_files(dir: &Path) -> Result<kcurate_core::bounded::ReleaseFiles, AuditError> {
    kcurate_core::bounded::ReleaseFiles::of(dir).map_err(|e| AuditError::Io {
        path: dir.display().to_string(),
        source: e,
    })
}

/// [`json_lines`] of a file of a release, opened through `files`.
fn json_lines_in(
    files: &kcurate_core::bounded::ReleaseFiles,
    path: &Path,
) -> Result<Vec<(usize, serde_json::Value)>, AuditError> {
    let shown = path.display().to_string();
    let text = files.read_to_string(path).map_err(|e| AuditError::Io {
        path: shown.clone(),
        source: e,
    })?;
    kcurate_core::jsonl::from_reader(shown, text.as_bytes())
        .map(|item| item.map_err(AuditError::from))
        .collect()
}

/// A JSONL line that is not JSON is a [`AuditError::Parse`] at its file:line.
impl From<kcurate_core::jsonl::JsonlError> for AuditError {
    fn from(e: kcurate_core::jsonl::JsonlError) -> Self {
        use kcurate_core::jsonl::JsonlFault;
        match e.into_fault() {
            JsonlFault::Unreadable { path, source, .. } => AuditError::Io { path, source },
            JsonlFault::Line {
                path,
                line,
                message,
            } => AuditError::Parse {
                path,
                line,
                message,
            },
        }
    }
}

/// One non-blank line of a release's `audit/decisions.jsonl`, parsed only when asked
/// (`audit` reads a few sampled lines of a long file).
pub struct DecisionLine<'a> {
    /// 1-based line number in the file.
    pub line: usize,
    text: &'a str,
    path: &'a str,
}

impl DecisionLine<'_> {
    /// The decision as JSON; a parse error names `file:line`.
    pub fn value(&self) -> Result<serde_json::Value, AuditError> {
        serde_json::from_str(self.text).map_err(|e| AuditError::Parse {
            path: self.path.to_string(),
            line: self.line,
            message: e.to_string(),
        })
    }
}

/// Streams the decisions of release `dir` (`audit/decisions.jsonl`) in file order,
/// skipping blank lines, until `f` breaks; an unreadable file or line names its path.
pub fn for_each_decision(
    dir: &Path,
    mut f: impl FnMut(DecisionLine<'_>) -> Result<ControlFlow<()>, AuditError>,
) -> Result<(), AuditError> {
    let path = dir.join("audit/decisions.jsonl");
    let shown = path.display().to_string();
    let io = |e| AuditError::Io {
        path: shown.clone(),
        source: e,
    };
    let file = release_files(dir)?.open(&path).map_err(io)?;
    for (n, text) in BufReader::new(file).lines().enumerate() {
        let text = text.map_err(io)?;
        if text.trim().is_empty() {
            continue;
        }
        let line = DecisionLine {
            line: n + 1,
            text: &text,
            path: &shown,
        };
        if f(line)?.is_break() {
            break;
        }
    }
    Ok(())
}

/// The split rows of a release: (task, split, row).
pub fn rows(dir: &Path) -> Result<Vec<(String, String, serde_json::Value)>, AuditError> {
    let m = kcurate_release::Manifest::load(&dir.join("manifest.json"))?;
    let files = release_files(dir)?;
    let mut out = Vec::new();
    for (task, splits) in &m.splits {
        for split in splits.keys() {
            for (_, v) in json_lines_in(&files, &dir.join(task).join(format!("{split}.jsonl")))? {
                out.push((task.clone(), split.clone(), v));
            }
        }
    }
    Ok(out)
}

/// A row's id (`id`, or KLUE's `guid`).
pub fn row_id(v: &serde_json::Value) -> Option<&str> {
    v["id"].as_str().or_else(|| v["guid"].as_str())
}

/// Is decision item `d` about item `id`: the item itself, one of its ancestors (the
/// document of a sentence: `doc-s003` descends from `doc`), or its descendants.
pub fn related(d: &str, id: &str) -> bool {
    d == id
        || id.strip_prefix(d).is_some_and(|r| r.starts_with("-s"))
        || d.strip_prefix(id).is_some_and(|r| r.starts_with("-s"))
}
