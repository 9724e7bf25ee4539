//! Streaming readers for the source formats. Each yields [`Item`]s: a record, or a
//! [`Malformed`] input naming file, line, field and reason. Its [`Problem`] says what the
//! runner does with it: a bad record becomes an `ingest.malformed` decision (or a stop, with
//! `on_error = "fail"`), a second record with an id already seen in the source an
//! `ingest.duplicate_id` decision, and a source that cannot be read at all (missing, empty,
//! unreadable) stops the run. Files compressed with gzip or zstd are decompressed as they
//! are read, found by their magic bytes, not their names. Nothing is read whole into memory
//! except one JSON-array file at a time (the unit NSMC ships).

//!
//! One file per concern; a hand-written fast path sits in its own file next to the plain
//! version it must equal, with a property test comparing the two:
//!
//! | file | holds |
//! | --- | --- |
//! | `mod.rs` | [`Item`], [`Malformed`], [`Problem`], [`read_source`], listing and probing files |
//! | `names.rs` | the names files go by in a release (no absolute path, no personal data) |
//! | `decode.rs` | [`Compression`], [`open_decoded`], [`bytes_read`] (for progress displays) |
//! | `lines.rs` | JSONL and plain text, one record a line |
//! | `csv.rs`, `csv_lines.rs` | TSV/CSV; the newline counting and line cutting under the `csv` crate |
//! | `json_array.rs`, `json_array_fast.rs`, `json_object.rs` | JSON-array files; the fast paths for elements and the hand cut of plain objects they use |
//! | `fields.rs`, `fields_fast.rs` | an object to a [`Record`] by the field map; borrowed entries (fast) |
//! | `bytes.rs` | UTF-8 validation (SIMD, fast) and byte scans |
//! | `ids.rs` | a source's own ids: empty or control characters (`ingest.bad_id`), duplicates after NFKC |
//! | `seen_ids_flat.rs`, `seen_ids.rs` | duplicate ids within a source: in bounded memory, runs on disk; the plain map, its oracle |
//!
//! The string-skipping bracket scan ([`JsonScan`]) is core's (`kcurate_core::json_scan`):
//! agree's Label Studio reader, a stage crate, scans with it too.

mod bytes;
mod csv;
mod csv_lines;
mod decode;
mod fields;
mod fields_fast;
mod ids;
mod json_array;
mod json_array_fast;
mod json_object;
mod lines;
pub use kcurate_core::names;
#[cfg(test)]
mod seen_ids;
mod seen_ids_flat;

pub use decode::{Compression, bytes_read, open_decoded};
pub use kcurate_core::json_scan::{JsonByte, JsonScan, json_deeper_than};

use self::csv::csv_items;
use json_array::json_array_items;
use kcurate_core::recipe::{Format, SourceConfig};
use kcurate_core::record::Record;
use lines::{LineItems, LineKind};
use seen_ids_flat::SeenIds;
use std::io::BufRead;
use std::path::{Path, PathBuf};

/// A bad input line: where it is and what is wrong with it.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{file}:{line}: {field}: {reason}")]
pub struct Malformed {
    /// The file by its release name ([`names::release_name`]).
    pub file: String,
    /// 1-based line (0: the file as a whole).
    pub line: u64,
    /// The field at fault, or `-` for the whole line.
    pub field: String,
    /// What is wrong, for a reader.
    pub reason: String,
    /// What the run does with it.
    pub kind: Problem,
}

/// What kind of problem a [`Malformed`] item is, and so what the run does with it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Problem {
    /// A bad record: quarantined as `ingest.malformed` (a stop with `on_error = "fail"`).
    #[default]
    Record,
    /// A record whose id an earlier record of the same source has: quarantined as
    /// `ingest.duplicate_id` (a stop with `on_error = "fail"`).
    DuplicateId,
    /// A record whose own id is empty or holds a control character (a newline, a tab, NUL):
    /// quarantined as `ingest.bad_id` (a stop with `on_error = "fail"`); such an id cannot
    /// be told apart from another in a listing, a TSV or a terminal.
    BadId,
    /// An input past one of the recipe's `[limits]` (a line, a record, a nesting depth):
    /// quarantined as `ingest.over_limit` (a stop with `on_error = "fail"`), never read
    /// whole into memory.
    Limit,
    /// The source, or one of its files, cannot be read at all (a missing path, an empty
    /// directory, an empty or unreadable file, a read error): the run stops.
    Source,
}

impl Problem {
    /// The rule id of the decision that quarantines such an input.
    pub fn rule(self) -> &'static str {
        match self {
            Problem::Record | Problem::Source => "ingest.malformed",
            Problem::DuplicateId => "ingest.duplicate_id",
            Problem::BadId => "ingest.bad_id",
            Problem::Limit => "ingest.over_limit",
        }
    }
}

/// What a reader yields: a record, or an input that is not one.
#[derive(Debug)]
pub enum Item {
    /// A record, mapped by the source's fields.
    Record(Box<Record>),
    /// A bad input, with where and why.
    Malformed(Malformed),
}

/// Opens a source: the files it names, in byte order of their names. The ids kept on disk
/// to find duplicates (a source of more than half a million records) go in the system's
/// temporary directory.
pub fn read_source(src: &SourceConfig, root: &Path) -> Box<dyn Iterator<Item = Item> + Send> {
    read_source_with(
        src,
        root,
        &|jobs| jobs.into_iter().map(|job| job().items).collect(),
        &std::env::temp_dir(),
    )
}

/// The sha256 and size of the file a job read whole, computed from the bytes it parsed:
/// the manifest takes them from here instead of reading the file a second time.
#[derive(Debug, Clone, PartialEq)]
pub struct FileDigest {
    /// [`path_key`] of the file's path as shown, to check that a digest is matched to its
    /// file.
    pub path_key: u64,
    /// The sha256 of the file's bytes on disk.
    pub sha256: [u8; 32],
    /// The file's size in bytes on disk.
    pub size: u64,
}

/// A short key of a path, for [`FileDigest::path_key`] (stable within a process).
pub fn path_key(shown: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::hash::DefaultHasher::new();
    shown.hash(&mut h);
    h.finish()
}

/// A whole file's items, and its digest when the whole file was read.
#[derive(Debug)]
pub struct FileItems {
    /// The file's items, in file order.
    pub items: Vec<Item>,
    /// The file's digest, when it was read whole.
    pub digest: Option<FileDigest>,
}

/// A file's items, produced by a job that may run on another thread.
pub type FileJob = Box<dyn FnOnce() -> FileItems + Send>;

/// [`read_source`] with a caller-supplied way to run whole-file parse jobs (JSON-array
/// files), e.g. on a thread pool. `run_jobs` must return the jobs' items in job order; the
/// items, their numbering and ids are then the same as [`read_source`]'s. It may keep the
/// jobs' digests: the jobs come in the order of [`list_files`]. The ids kept on disk to
/// find duplicates go in `temp_dir`, in files removed as they are made (the run's temporary
/// directory: `seen_ids_flat.rs`).
pub fn read_source_with<'a>(
    src: &SourceConfig,
    root: &Path,
    run_jobs: &'a (dyn Fn(Vec<FileJob>) -> Vec<Vec<Item>> + Sync),
    temp_dir: &Path,
) -> Box<dyn Iterator<Item = Item> + Send + 'a> {
    let files = match list_files(src, root) {
        Ok(f) => f,
        Err(m) => return Box::new(std::iter::once(Item::Malformed(m))),
    };
    let src = src.clone();
    let src_id = src.id.clone();
    // The length of `<source>-` before a mapped id.
    let scope = Record::id_prefix(&src.id).len() + 1;
    let mut number = 0u64;
    let limit = src.limit;
    // Generated ids are unique by construction: only mapped ids are checked.
    let mut seen = src
        .fields
        .id
        .is_some()
        .then(|| SeenIds::new(temp_dir.to_path_buf()));
    let iter: Box<dyn Iterator<Item = Item> + Send + 'a> = if src.format == Format::Json {
        // Whole files, parsed a batch at a time by `run_jobs`.
        const BATCH: usize = 32;
        let batches: Vec<Vec<(String, PathBuf)>> =
            files.chunks(BATCH).map(|c| c.to_vec()).collect();
        Box::new(batches.into_iter().flat_map(move |batch| {
            let jobs: Vec<FileJob> = batch
                .into_iter()
                .map(|(shown, path)| {
                    let src = src.clone();
                    let key = path_key(&shown);
                    Box::new(move || json_array_items(&src, shown, key, &path)) as FileJob
                })
                .collect();
            run_jobs(jobs).into_iter().flatten()
        }))
    } else {
        Box::new(files.into_iter().flat_map(move |(shown, path)| {
            let key = path_key(&shown);
            let items: Box<dyn Iterator<Item = Item> + Send> = match src.format {
                Format::Jsonl => Box::new(LineItems::open(&src, shown, &path, LineKind::Jsonl)),
                Format::Txt => Box::new(LineItems::open(&src, shown, &path, LineKind::Txt)),
                Format::Tsv | Format::Csv => Box::new(csv_items(&src, shown, &path)),
                Format::Json => {
                    Box::new(json_array_items(&src, shown, key, &path).items.into_iter())
                }
            };
            items
        }))
    };
    Box::new(
        iter.map(move |mut item| {
            number += 1;
            if let Item::Record(r) = &mut item {
                if r.id.is_empty() {
                    r.id = Record::document_id(&src_id, number);
                }
                if let Some(seen) = seen.as_mut() {
                    if let Some(bad) = ids::bad_id(r, scope) {
                        return Item::Malformed(bad);
                    }
                    if let Some(dup) = ids::check_normalised(seen, r) {
                        return Item::Malformed(dup);
                    }
                }
            }
            item
        })
        .take(if limit == 0 {
            usize::MAX
        } else {
            limit as usize
        }),
    )
}

/// Why a source file fails [`probe_file`].
#[derive(Debug, thiserror::Error)]
pub enum ProbeError {
    /// The file cannot be opened (or its compression is not recognised).
    #[error("cannot open: {0}")]
    Open(std::io::Error),
    /// Reading or decompressing failed.
    #[error("read error: {0}")]
    Read(std::io::Error),
    /// The file holds nothing but white space.
    #[error("empty file: no records")]
    Empty,
}

/// Checks, without reading it through, that a source file can be opened and decompressed
/// and holds more than white space (what `kcurate check` asks of every source file).
pub fn probe_file(path: &Path) -> Result<(), ProbeError> {
    let mut r = open_decoded(path).map_err(ProbeError::Open)?;
    let mut first = true;
    loop {
        let buf = r.fill_buf().map_err(ProbeError::Read)?;
        if buf.is_empty() {
            return Err(ProbeError::Empty);
        }
        let body = if first {
            buf.strip_prefix(b"\xEF\xBB\xBF".as_slice()).unwrap_or(buf)
        } else {
            buf
        };
        first = false;
        if body.iter().any(|b| !b.is_ascii_whitespace()) {
            return Ok(());
        }
        let n = buf.len();
        r.consume(n);
    }
}

/// Whether a directory's file `name` is read as a source of `format`: for the JSON formats
/// only names with the format's extension (plain or `.gz`/`.zst`), so a release directory's
/// Parquet twins are not read as JSON.
fn listed(format: Format, name: &str) -> bool {
    let ext = match format {
        Format::Jsonl => ".jsonl",
        Format::Json => ".json",
        _ => return true,
    };
    let base = name
        .strip_suffix(".gz")
        .or_else(|| name.strip_suffix(".zst"))
        .unwrap_or(name);
    base.ends_with(ext)
}

/// The name of directory entry `e` when it is a file of source `src` (a symbolic link is
/// followed: a linked file is read like any other); `None` for a hidden name, a name of
/// another format, or a directory. An entry that would be read but cannot be (a link to
/// nothing, a FIFO or a device, a name that is not UTF-8) is an error naming it: a file
/// skipped without a word would make the release look complete.
fn directory_file(
    src: &SourceConfig,
    e: &std::fs::DirEntry,
) -> Result<Option<String>, UnreadableEntry> {
    let raw = e.file_name();
    let name = raw.to_string_lossy();
    if name.starts_with('.') || !listed(src.format, &name) {
        return Ok(None);
    }
    let shown = format!("{}/{name}", src.path.trim_end_matches('/'));
    let meta =
        std::fs::metadata(e.path()).map_err(|err| UnreadableEntry::Dangling(shown.clone(), err))?;
    if meta.is_dir() {
        return Ok(None);
    }
    if !meta.is_file() {
        return Err(UnreadableEntry::NotRegular(shown));
    }
    match raw.into_string() {
        Ok(n) => Ok(Some(n)),
        Err(_) => Err(UnreadableEntry::NotUtf8(shown)),
    }
}

/// Why a directory entry that would be read as a source file cannot be (each names it).
#[derive(Debug, thiserror::Error)]
enum UnreadableEntry {
    /// Its metadata cannot be read: most often a link to nothing.
    #[error("{0}: cannot open (a link to nothing?): {1}")]
    Dangling(String, std::io::Error),
    /// A FIFO, a device or a socket.
    #[error("{0}: not a regular file (a FIFO, a device or a socket)")]
    NotRegular(String),
    /// A name that is not UTF-8.
    #[error("{0}: the file name is not UTF-8")]
    NotUtf8(String),
}

/// The files of a source, each as (its release name, its path): the path itself, or a
/// directory's files sorted by name (for the JSON formats only those with the format's
/// extension, see [`listed`]). The release name ([`names::release_name`]) is what records'
/// `origin`, decisions and the manifest's inputs call the file. A missing path or a
/// directory without such files is a [`Problem::Source`]: the run stops.
pub fn list_files(src: &SourceConfig, root: &Path) -> Result<Vec<(String, PathBuf)>, Malformed> {
    let path = kcurate_core::recipe::Recipe::resolve(root, &src.path);
    let missing = |reason: String| Malformed {
        file: src.path.clone(),
        line: 0,
        field: "path".into(),
        reason,
        kind: Problem::Source,
    };
    let meta = std::fs::metadata(&path).map_err(|e| missing(format!("cannot open: {e}")))?;
    if !meta.is_dir() {
        return Ok(vec![(names::release_name(src, 0, &src.path), path)]);
    }
    let mut files = Vec::new();
    for e in std::fs::read_dir(&path).map_err(|e| missing(format!("cannot list directory: {e}")))? {
        let e = e.map_err(|e| missing(format!("cannot list directory: {e}")))?;
        if let Some(n) = directory_file(src, &e).map_err(|e| missing(e.to_string()))? {
            files.push(n);
        }
    }
    files.sort();
    if files.is_empty() {
        return Err(missing(match src.format {
            Format::Jsonl => "directory holds no *.jsonl files".into(),
            Format::Json => "directory holds no *.json files".into(),
            _ => "directory holds no files".into(),
        }));
    }
    let base = src.path.trim_end_matches('/');
    Ok(files
        .into_iter()
        .enumerate()
        .map(|(i, n)| {
            let shown = format!("{base}/{n}");
            (names::release_name(src, i, &shown), path.join(&n))
        })
        .collect())
}

pub(super) fn malformed(file: &str, line: u64, field: &str, reason: impl Into<String>) -> Item {
    Item::Malformed(Malformed {
        file: file.to_string(),
        line,
        field: field.to_string(),
        reason: reason.into(),
        kind: Problem::Record,
    })
}

/// An input past one of the recipe's `[limits]` ([`Problem::Limit`]).
pub(super) fn over_limit(file: &str, line: u64, field: &str, reason: impl Into<String>) -> Item {
    Item::Malformed(Malformed {
        file: file.to_string(),
        line,
        field: field.to_string(),
        reason: reason.into(),
        kind: Problem::Limit,
    })
}

/// Why a line of `len` bytes (a record of its own) is past the limits, if it is.
pub(super) fn line_over_limits(src: &SourceConfig, len: u64) -> Option<String> {
    if len > src.limits.max_line_bytes as u64 {
        return Some(format!(
            "line longer than limits.max_line_bytes ({} bytes; skipped to its end, not read)",
            src.limits.max_line_bytes
        ));
    }
    (len > src.record_limit() as u64).then(|| {
        format!(
            "record longer than max_record_bytes ({} bytes; not read)",
            src.record_limit()
        )
    })
}

/// The reason a record nested deeper than the limit is quarantined.
pub(super) fn too_deep(src: &SourceConfig) -> String {
    format!(
        "JSON nested deeper than limits.max_depth ({} levels)",
        src.limits.max_depth
    )
}

/// A file that cannot be read at all ([`Problem::Source`]).
pub(super) fn unreadable(file: &str, line: u64, reason: impl Into<String>) -> Item {
    Item::Malformed(Malformed {
        file: file.to_string(),
        line,
        field: "-".into(),
        reason: reason.into(),
        kind: Problem::Source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_directory_lists_compressed_files_of_its_format() {
        assert!(listed(Format::Json, "1.json"));
        assert!(listed(Format::Json, "1.json.gz"));
        assert!(listed(Format::Json, "1.json.zst"));
        assert!(!listed(Format::Json, "1.parquet"));
        assert!(!listed(Format::Json, "1.jsonl.gz"));
        assert!(listed(Format::Jsonl, "a.jsonl.zst"));
        assert!(listed(Format::Csv, "anything"));
    }
}
