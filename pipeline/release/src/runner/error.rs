//! Why `run` or `finalise` stops without writing a release.

use super::*;

/// Why `run` or `finalise` stopped without writing a release.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The recipe names stages or settings that do not build (every error, file:line).
    #[error("{}", .0.iter().map(|e| e.to_string()).collect::<Vec<_>>().join("\n"))]
    Recipe(Vec<RecipeError>),
    /// A malformed input under `on_error = "fail"`.
    #[error("{0} (on_error = \"fail\")")]
    Input(Malformed),
    /// A source, or one of its files, cannot be read at all: the run stops whatever
    /// `on_error` says (a release without the source would look complete).
    #[error(transparent)]
    Source(Box<SourceError>),
    /// The licence gate refused a source under `on_error = "fail"`.
    #[error("source {source_id}: licence refused: {reason} (on_error = \"fail\")")]
    License {
        /// The source id.
        source_id: String,
        /// Why, as the licence gate said it.
        reason: kcurate_core::license::Refused,
    },
    /// The release directory could not be written.
    #[error(transparent)]
    Write(#[from] WriteError),
    /// A Parquet twin could not be written.
    #[error(transparent)]
    Parquet(#[from] crate::parquet_out::ParquetError),
    /// A stage's items in ≠ out + dropped: an internal error, never an input's fault.
    #[error("stage {stage} broke conservation: {message}")]
    Conservation {
        /// The stage name.
        stage: String,
        /// What went wrong, in the words of the code that found it.
        message: String,
    },
    /// A file, the thread pool or the hashing thread failed.
    #[error("{path}: {source}")]
    Io {
        /// The file or directory at fault.
        path: String,
        /// The underlying error.
        source: std::io::Error,
    },
    /// The dataset card could not be made.
    #[error(transparent)]
    Card(#[from] crate::card::CardError),
    /// `finalise`: the parts an engine staged cannot be read.
    #[error(transparent)]
    Parts(#[from] crate::parts::PartsError),
    /// `finalise`: the staged parts do not match the recipe (their stages or sources), or
    /// the decisions made elsewhere do not match the parts.
    #[error("{0}")]
    Staged(String),
    /// The `[audit] judgements` file cannot be read.
    #[error("{recipe}: [audit] judgements: {source}")]
    Judgements {
        /// The recipe path.
        recipe: String,
        /// The underlying error.
        source: crate::precision::PrecisionError,
    },
}

impl RunError {
    /// `finalise` refused what it was given: parts, ingest decisions or decisions made
    /// elsewhere that were read and do not hold together (not those that could not be read).
    pub fn is_refusal(&self) -> bool {
        match self {
            RunError::Staged(_) => true,
            RunError::Parts(p) => p.fault == crate::parts::Fault::Refused,
            _ => false,
        }
    }
}

/// A source that cannot be read: the recipe file and line, the source, the file and line
/// at fault, the reason, and for a relative path where it was looked for.
#[derive(Debug, thiserror::Error)]
#[error("{recipe}:{line}: source[{index}] {source_id:?}: {file}:{file_line}: {reason}{hint}")]
pub struct SourceError {
    /// The recipe path.
    pub recipe: String,
    /// 1-based line of the `[[source]]` table in the recipe.
    pub line: usize,
    /// 0-based index of the source in the recipe.
    pub index: usize,
    /// The source id.
    pub source_id: String,
    /// The file at fault (the source path when no file could be listed).
    pub file: String,
    /// 1-based line in that file (0: the file as a whole).
    pub file_line: u64,
    /// Why it cannot be read (missing, empty, unreadable).
    pub reason: String,
    /// Where a relative path was looked for, and where else it exists.
    pub hint: String,
}
