//! Streaming readers for the source formats. Each yields [`Item`]s: a record, or a
//! [`Malformed`] input naming file, line, field and reason. Its [`Problem`] says what the
//! runner does with it: a bad record becomes an `ingest.malformed` decision (or a stop, with
//! `on_error = "fail"`), a second record with an id already seen in the source an
//! `ingest.duplicate_id` decision, and a source that cannot be read at all (missing, empty,
//! unreadable) stops the run. Files compressed with gzip or zstd are decompressed as they
//! are read, found by their magic bytes, not their names. Nothing is read whole into memory
//! except one JSON-array file at a time (the unit NSMC ships).

use crate::recipe::{FieldMap, Format, SourceConfig};
use crate::record::{Kind, Origin, Record};
use serde_json::Value;
use serde_json::value::RawValue;
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A bad input line: where it is and what is wrong with it.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{file}:{line}: {field}: {reason}")]
pub struct Malformed {
    pub file: String,
    pub line: u64,
    /// The field at fault, or `-` for the whole line.
    pub field: String,
    pub reason: String,
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
            Problem::Limit => "ingest.over_limit",
        }
    }
}

/// How a file's bytes are compressed, from its first bytes (not its name).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    None,
    Gzip,
    Zstd,
}

impl Compression {
    /// The compression whose magic bytes `head` starts with.
    pub fn sniff(head: &[u8]) -> Compression {
        if head.starts_with(&[0x1f, 0x8b]) {
            Compression::Gzip
        } else if head.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
            Compression::Zstd
        } else {
            Compression::None
        }
    }
}

/// Opens a file for reading; gzip (also several members) and zstd (also several frames) are
/// decompressed as it is read.
pub fn open_decoded(path: &Path) -> std::io::Result<Box<dyn BufRead + Send>> {
    let mut raw = BufReader::with_capacity(1 << 16, std::fs::File::open(path)?);
    let head = raw.fill_buf()?;
    Ok(match Compression::sniff(head) {
        Compression::None => Box::new(raw),
        Compression::Gzip => Box::new(BufReader::with_capacity(
            1 << 16,
            flate2::bufread::MultiGzDecoder::new(raw),
        )),
        Compression::Zstd => Box::new(BufReader::with_capacity(
            1 << 16,
            zstd::stream::read::Decoder::with_buffer(raw)?,
        )),
    })
}

/// The decompressed bytes of a file's `data` (as they are when not compressed), at most
/// `cap + 1` of them (so a caller can tell that there were more).
fn decode_all(data: Vec<u8>, cap: u64) -> std::io::Result<Vec<u8>> {
    let mut out = Vec::new();
    match Compression::sniff(&data) {
        Compression::None => return Ok(data),
        Compression::Gzip => {
            flate2::bufread::MultiGzDecoder::new(&data[..])
                .take(cap + 1)
                .read_to_end(&mut out)?;
        }
        Compression::Zstd => {
            zstd::stream::read::Decoder::with_buffer(&data[..])?
                .take(cap + 1)
                .read_to_end(&mut out)?;
        }
    }
    Ok(out)
}

#[derive(Debug)]
pub enum Item {
    Record(Box<Record>),
    Malformed(Malformed),
}

/// Opens a source: the files it names, in byte order of their names.
pub fn read_source(src: &SourceConfig, root: &Path) -> Box<dyn Iterator<Item = Item> + Send> {
    read_source_with(src, root, &|jobs| {
        jobs.into_iter().map(|job| job().items).collect()
    })
}

/// The sha256 and size of the file a job read whole, computed from the bytes it parsed:
/// the manifest takes them from here instead of reading the file a second time.
#[derive(Debug, Clone, PartialEq)]
pub struct FileDigest {
    /// [`path_key`] of the file's path as shown, to check that a digest is matched to its
    /// file.
    pub path_key: u64,
    pub sha256: [u8; 32],
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
    pub items: Vec<Item>,
    pub digest: Option<FileDigest>,
}

/// A file's items, produced by a job that may run on another thread.
pub type FileJob = Box<dyn FnOnce() -> FileItems + Send>;

/// [`read_source`] with a caller-supplied way to run whole-file parse jobs (JSON-array
/// files), e.g. on a thread pool. `run_jobs` must return the jobs' items in job order; the
/// items, their numbering and ids are then the same as [`read_source`]'s. It may keep the
/// jobs' digests: the jobs come in the order of [`list_files`].
pub fn read_source_with<'a>(
    src: &SourceConfig,
    root: &Path,
    run_jobs: &'a (dyn Fn(Vec<FileJob>) -> Vec<Vec<Item>> + Sync),
) -> Box<dyn Iterator<Item = Item> + Send + 'a> {
    let files = match list_files(src, root) {
        Ok(f) => f,
        Err(m) => return Box::new(std::iter::once(Item::Malformed(m))),
    };
    let src = src.clone();
    let src_id = src.id.clone();
    let mut number = 0u64;
    let limit = src.limit;
    // Generated ids are unique by construction: only mapped ids are checked.
    let mut seen = src.fields.id.is_some().then(SeenIds::default);
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
                    let name = origin_name(&src, shown);
                    Box::new(move || json_array_items(&src, name, key, &path)) as FileJob
                })
                .collect();
            run_jobs(jobs).into_iter().flatten()
        }))
    } else {
        Box::new(files.into_iter().flat_map(move |(shown, path)| {
            let key = path_key(&shown);
            let shown = origin_name(&src, shown);
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
                if let Some(seen) = seen.as_mut()
                    && let Some(dup) = seen.check(r)
                {
                    return Item::Malformed(dup);
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

/// The name a file of a source goes by in records' `origin` and in decisions: the path as
/// the recipe gives it (`shown`, from [`list_files`]) when that is relative; for an
/// absolute source path, the source id and the file's path below it (`nsmc/ratings.txt`),
/// so that released rows do not carry local directory and user names. The manifest's
/// inputs keep the path the recipe gives (a rebuild opens them).
pub fn origin_name(src: &SourceConfig, shown: String) -> String {
    if !Path::new(&src.path).is_absolute() {
        return shown;
    }
    let base = src.path.trim_end_matches('/');
    let below = shown
        .strip_prefix(base)
        .map(|r| r.trim_start_matches('/'))
        .filter(|r| !r.is_empty());
    let name = match below {
        Some(r) => r.to_string(),
        None => Path::new(base)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default(),
    };
    format!("{}/{name}", src.id)
}

/// The ids a source's records had so far, to find a second record with an id already used.
/// Kept compact for corpora of millions of records: per record a 64-bit hash of its id and
/// where it was, as a line number counted across the source's files (12 bytes, stored as
/// `u32`s so without padding, plus the table's control byte: 13 bytes a slot); freed when
/// the source is read. Two different ids with the same 64-bit hash (for a source of 10^7
/// records, a chance of about 3 in 10^6) would be taken for duplicates.
#[derive(Default)]
struct SeenIds {
    first: std::collections::HashMap<IdKey, u32, IdentityBuild>,
    /// The source's files in the order they were read, each with the number of lines
    /// counted before it (a record's file is the last one, or a new one).
    files: Vec<(Arc<str>, u64)>,
    /// The last line seen in the last file.
    last_line: u64,
}

/// A 64-bit hash as two `u32`s: with a `u32` value, a table entry is 12 bytes, not 16.
#[derive(PartialEq, Eq)]
struct IdKey([u32; 2]);

impl std::hash::Hash for IdKey {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        state.write_u64((u64::from(self.0[0]) << 32) | u64::from(self.0[1]));
    }
}

type IdentityBuild = std::hash::BuildHasherDefault<IdentityHasher>;

/// A hasher for keys that are already hashes.
#[derive(Default)]
struct IdentityHasher(u64);

impl std::hash::Hasher for IdentityHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = (self.0 << 8) | u64::from(*b);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

impl SeenIds {
    /// The duplicate-id problem of `r`, when an earlier record of the source had its id.
    fn check(&mut self, r: &Record) -> Option<Malformed> {
        use std::hash::Hasher;
        if !self
            .files
            .last()
            .is_some_and(|(f, _)| Arc::ptr_eq(f, &r.origin.file))
        {
            let before = self.files.last().map_or(0, |(_, b)| b + self.last_line);
            self.files.push((r.origin.file.clone(), before));
            self.last_line = 0;
        }
        self.last_line = self.last_line.max(r.origin.line);
        let before = self.files.last().map_or(0, |(_, b)| *b);
        // u32::MAX: past 4G lines in a source the first place is not kept.
        let counted = u32::try_from(before + r.origin.line).unwrap_or(u32::MAX);
        // SipHash with fixed keys: the table lives only as long as this process.
        let mut h = std::hash::DefaultHasher::new();
        h.write(r.id.as_bytes());
        let hash = h.finish();
        let key = IdKey([(hash >> 32) as u32, hash as u32]);
        let first = match self.first.entry(key) {
            std::collections::hash_map::Entry::Vacant(v) => {
                v.insert(counted);
                return None;
            }
            std::collections::hash_map::Entry::Occupied(o) => *o.get(),
        };
        Some(Malformed {
            file: r.origin.file.to_string(),
            line: r.origin.line,
            field: "id".into(),
            reason: format!(
                "duplicate record id {:?}: the record at {} has it; this one is quarantined",
                r.id,
                self.place(first)
            ),
            kind: Problem::DuplicateId,
        })
    }

    /// `file:line` of a line counted across the source's files.
    fn place(&self, counted: u32) -> String {
        if counted == u32::MAX {
            return "an earlier line".into();
        }
        let counted = u64::from(counted);
        // File k holds the lines counted in (before_k, before_k+1].
        let k = self
            .files
            .partition_point(|(_, before)| *before < counted)
            .saturating_sub(1);
        match self.files.get(k) {
            Some((file, before)) => format!("{file}:{}", counted - before),
            None => "an earlier line".into(),
        }
    }
}

/// Checks, without reading it through, that a source file can be opened and decompressed
/// and holds more than white space (what `kcurate check` asks of every source file).
pub fn probe_file(path: &Path) -> Result<(), String> {
    let mut r = open_decoded(path).map_err(|e| format!("cannot open: {e}"))?;
    let mut first = true;
    loop {
        let buf = r.fill_buf().map_err(|e| format!("read error: {e}"))?;
        if buf.is_empty() {
            return Err("empty file: no records".into());
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

/// The files of a source: the path itself, or a directory's files sorted by name (for the
/// JSON formats only those with the format's extension, see [`listed`]). A missing path or
/// a directory without such files is a [`Problem::Source`]: the run stops.
pub fn list_files(src: &SourceConfig, root: &Path) -> Result<Vec<(String, PathBuf)>, Malformed> {
    let path = crate::recipe::Recipe::resolve(root, &src.path);
    let missing = |reason: String| Malformed {
        file: src.path.clone(),
        line: 0,
        field: "path".into(),
        reason,
        kind: Problem::Source,
    };
    let meta = std::fs::metadata(&path).map_err(|e| missing(format!("cannot open: {e}")))?;
    if !meta.is_dir() {
        return Ok(vec![(src.path.clone(), path)]);
    }
    let mut names: Vec<String> = std::fs::read_dir(&path)
        .map_err(|e| missing(format!("cannot list directory: {e}")))?
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().map(|t| t.is_file()).unwrap_or(false))
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| !n.starts_with('.'))
        .filter(|n| listed(src.format, n))
        .collect();
    names.sort();
    if names.is_empty() {
        return Err(missing(match src.format {
            Format::Jsonl => "directory holds no *.jsonl files".into(),
            Format::Json => "directory holds no *.json files".into(),
            _ => "directory holds no files".into(),
        }));
    }
    let base = src.path.trim_end_matches('/');
    Ok(names
        .into_iter()
        .map(|n| (format!("{base}/{n}"), path.join(&n)))
        .collect())
}

fn malformed(file: &str, line: u64, field: &str, reason: impl Into<String>) -> Item {
    Item::Malformed(Malformed {
        file: file.to_string(),
        line,
        field: field.to_string(),
        reason: reason.into(),
        kind: Problem::Record,
    })
}

/// An input past one of the recipe's `[limits]` ([`Problem::Limit`]).
fn over_limit(file: &str, line: u64, field: &str, reason: impl Into<String>) -> Item {
    Item::Malformed(Malformed {
        file: file.to_string(),
        line,
        field: field.to_string(),
        reason: reason.into(),
        kind: Problem::Limit,
    })
}

/// Why a line of `len` bytes (a record of its own) is past the limits, if it is.
fn line_over_limits(src: &SourceConfig, len: u64) -> Option<String> {
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

/// Whether JSON `text` nests arrays and objects deeper than `max` (the outermost counting
/// 1): a byte scan that skips strings, run before a parser recurses into it.
pub fn json_deeper_than(text: &[u8], max: usize) -> bool {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for &b in text {
        if in_string {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                if depth > max {
                    return true;
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    false
}

/// The reason a record nested deeper than the limit is quarantined.
fn too_deep(src: &SourceConfig) -> String {
    format!(
        "JSON nested deeper than limits.max_depth ({} levels)",
        src.limits.max_depth
    )
}

/// A file that cannot be read at all ([`Problem::Source`]).
fn unreadable(file: &str, line: u64, reason: impl Into<String>) -> Item {
    Item::Malformed(Malformed {
        file: file.to_string(),
        line,
        field: "-".into(),
        reason: reason.into(),
        kind: Problem::Source,
    })
}

/// A scalar's text (a string is moved, not copied); any other value is handed back.
fn value_text(v: Value) -> Result<String, Value> {
    match v {
        Value::String(s) => Ok(s),
        Value::Number(n) => Ok(n.to_string()),
        Value::Bool(b) => Ok(b.to_string()),
        v => Err(v),
    }
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Maps the JSON object `text` to a record, parsing only the fields the mapping names
/// (the common case borrows keys and raw values without building the whole object).
fn map_json_object(src: &SourceConfig, file: &Arc<str>, line: u64, text: &str) -> Item {
    if let Ok(Entries(entries)) = serde_json::from_str::<Entries>(text) {
        return map_entries(src, file, line, &entries);
    }
    if json_deeper_than(text.as_bytes(), src.limits.max_depth) {
        return over_limit(file, line, "-", too_deep(src));
    }
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(obj)) => map_fields(src, file, line, &|n| obj.get(n).cloned()),
        Ok(v) => malformed(
            file,
            line,
            "-",
            format!("expected a JSON object, got {}", type_name(&v)),
        ),
        Err(e) => malformed(file, line, "-", format!("invalid JSON: {e}")),
    }
}

/// Maps an object's entries (key, value as raw JSON) to a record.
fn map_entries(src: &SourceConfig, file: &Arc<str>, line: u64, obj: &[(&str, &str)]) -> Item {
    // The object is level 1: a value nests from level 2.
    if let Some((k, _)) = obj.iter().find(|(_, raw)| {
        matches!(raw.as_bytes().first(), Some(b'[' | b'{'))
            && json_deeper_than(raw.as_bytes(), src.limits.max_depth.saturating_sub(1))
    }) {
        return over_limit(file, line, k, too_deep(src));
    }
    // The last of duplicate keys wins, as in a map.
    map_fields(src, file, line, &|n| {
        obj.iter()
            .rev()
            .find(|(k, _)| *k == n)
            .and_then(|(_, raw)| raw_value(raw))
    })
}

/// An object's entries, borrowed from the input (no map is built: records have a handful of
/// fields, and this runs once per input record). Keys with escapes do not borrow; such an
/// object takes the general path.
struct Entries<'a>(Vec<(&'a str, &'a str)>);

impl<'de> serde::Deserialize<'de> for Entries<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Entries<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut m: A,
            ) -> Result<Self::Value, A::Error> {
                let mut v = Vec::with_capacity(m.size_hint().unwrap_or(8));
                while let Some((k, raw)) = m.next_entry::<&'de str, &'de RawValue>()? {
                    v.push((k, raw.get()));
                }
                Ok(Entries(v))
            }
        }
        d.deserialize_map(V)
    }
}

/// A raw JSON value as a [`Value`]; a string without escapes is sliced, not parsed (most
/// corpus fields are such strings, and this is the ingest's inner loop).
fn raw_value(raw: &str) -> Option<Value> {
    // Inside a raw JSON string only an escape can hold a backslash (a bare `"` would have
    // ended it), and a byte search finds one faster than a search for chars.
    if let Some(inner) = raw.strip_prefix('"').and_then(|r| r.strip_suffix('"'))
        && !inner.as_bytes().contains(&b'\\')
    {
        return Some(Value::String(inner.to_string()));
    }
    serde_json::from_str::<Value>(raw).ok()
}

/// Maps one input object to a record. `get` looks a field up by name.
fn map_fields(
    src: &SourceConfig,
    file: &Arc<str>,
    line: u64,
    get: &dyn Fn(&str) -> Option<Value>,
) -> Item {
    let fm: &FieldMap = &src.fields;
    let text = match get(&fm.text) {
        Some(Value::String(s)) => s,
        Some(v) => {
            return malformed(
                file,
                line,
                &fm.text,
                format!("wrong type: expected string, got {}", type_name(&v)),
            );
        }
        None => return malformed(file, line, &fm.text, "missing field"),
    };
    let scalar = |name: &Option<String>| -> Result<Option<String>, Item> {
        let Some(name) = name else { return Ok(None) };
        match get(name) {
            None | Some(Value::Null) if fm.optional.contains(name) => Ok(None),
            None => Err(malformed(file, line, name, "missing field")),
            Some(Value::Null) => Err(malformed(
                file,
                line,
                name,
                "null, but a value is required (list the field in `optional` to allow it)",
            )),
            Some(v) => value_text(v).map(Some).map_err(|v| {
                malformed(
                    file,
                    line,
                    name,
                    format!("wrong type: expected a scalar, got {}", type_name(&v)),
                )
            }),
        }
    };
    let id = match scalar(&fm.id) {
        Ok(v) => v,
        Err(m) => return m,
    };
    // A date is released as ISO `YYYY-MM-DD` (the card's date32 column); one that is not a
    // date would make the column a string in one file and a date in another.
    let date = match scalar(&fm.date) {
        // A blank cell is no date (as a missing optional one is).
        Ok(Some(d)) if d.trim().is_empty() => None,
        Ok(Some(d)) => match crate::date::iso_date(&d) {
            Some(iso) => Some(iso),
            None => {
                return malformed(
                    file,
                    line,
                    fm.date.as_deref().unwrap_or("date"),
                    format!(
                        "not a date: {d:?} (YYYY-MM-DD, YYYY.MM.DD, YYYY/MM/DD or YY.MM.DD, a time after it allowed)"
                    ),
                );
            }
        },
        Ok(None) => None,
        Err(m) => return m,
    };
    let label = match scalar(&fm.label) {
        Ok(v) => v,
        Err(m) => return m,
    };
    let mut fields = BTreeMap::new();
    for name in &fm.extra {
        if let Some(v) = get(name) {
            fields.insert(name.clone(), v);
        }
    }
    Item::Record(Box::new(Record {
        id: id
            .map(|i| source_scoped_id(&src.id, &i))
            .unwrap_or_default(),
        kind: Kind::Document,
        source: src.id.clone(),
        origin: Origin {
            file: file.clone(),
            line,
        },
        text,
        date,
        label,
        parents: Vec::new(),
        fields,
    }))
}

/// `<source>-<id>`, concatenated (`format!` showed in the ingest profile, once per record).
fn source_scoped_id(source: &str, id: &str) -> String {
    let mut s = String::with_capacity(source.len() + 1 + id.len());
    s.push_str(source);
    s.push('-');
    s.push_str(id);
    s
}

#[derive(Clone, Copy)]
enum LineKind {
    Jsonl,
    Txt,
}

/// Line-oriented formats (JSONL, plain text): one record a line, bounded memory per line,
/// CRLF and a leading BOM accepted, invalid UTF-8 reported with its byte offset.
struct LineItems {
    src: SourceConfig,
    file: Arc<str>,
    reader: Option<Box<dyn BufRead + Send>>,
    kind: LineKind,
    line: u64,
    offset: u64,
    pending: Option<Item>,
    saw_any: bool,
    buf: Vec<u8>,
}

impl LineItems {
    fn open(src: &SourceConfig, file: String, path: &Path, kind: LineKind) -> Self {
        let (reader, pending) = match open_decoded(path) {
            Ok(r) => (Some(r), None),
            Err(e) => (
                None,
                Some(unreadable(&file, 0, format!("cannot open: {e}"))),
            ),
        };
        LineItems {
            src: src.clone(),
            file: file.into(),
            reader,
            kind,
            line: 0,
            offset: 0,
            pending,
            saw_any: false,
            buf: Vec::new(),
        }
    }

    /// Reads one line into `self.buf` (without the newline). Returns `None` at end of file,
    /// else the line's length in bytes when it is past the limits (`[limits]
    /// max_line_bytes`, the record limit): such a line is skipped to its end, never held in
    /// memory beyond the smaller limit.
    fn next_line(&mut self) -> Result<Option<Option<u64>>, std::io::Error> {
        let limit = self.src.limits.max_line_bytes.min(self.src.record_limit());
        let reader = match self.reader.as_mut() {
            Some(r) => r,
            None => return Ok(None),
        };
        self.buf.clear();
        let mut too_long = false;
        let mut len = 0u64;
        let mut read_any = false;
        loop {
            let chunk = reader.fill_buf()?;
            if chunk.is_empty() {
                break;
            }
            read_any = true;
            let (take, done) = match memchr_nl(chunk) {
                Some(i) => (i + 1, true),
                None => (chunk.len(), false),
            };
            let body = if done {
                &chunk[..take - 1]
            } else {
                &chunk[..take]
            };
            len += body.len() as u64;
            if !too_long {
                if self.buf.len() + body.len() > limit {
                    too_long = true;
                    self.buf = Vec::new();
                } else {
                    self.buf.extend_from_slice(body);
                }
            }
            self.offset += take as u64;
            reader.consume(take);
            if done {
                break;
            }
        }
        if !read_any {
            return Ok(None);
        }
        self.line += 1;
        Ok(Some(too_long.then_some(len)))
    }
}

fn memchr_nl(b: &[u8]) -> Option<usize> {
    b.iter().position(|&c| c == b'\n')
}

impl Iterator for LineItems {
    type Item = Item;

    fn next(&mut self) -> Option<Item> {
        if let Some(p) = self.pending.take() {
            return Some(p);
        }
        loop {
            let line_start = self.offset;
            let too_long = match self.next_line() {
                Ok(Some(t)) => t,
                Ok(None) => {
                    if !self.saw_any && self.reader.is_some() {
                        self.saw_any = true;
                        self.reader = None;
                        return Some(unreadable(&self.file, 0, "empty file: no records"));
                    }
                    self.reader = None;
                    return None;
                }
                Err(e) => {
                    self.reader = None;
                    return Some(unreadable(
                        &self.file,
                        self.line + 1,
                        format!("read error: {e}"),
                    ));
                }
            };
            let (file, line) = (self.file.clone(), self.line);
            if let Some(len) = too_long {
                self.saw_any = true;
                let reason = line_over_limits(&self.src, len)
                    .unwrap_or_else(|| format!("line of {len} bytes past the limits"));
                return Some(over_limit(&file, line, "-", reason));
            }
            let mut bytes: &[u8] = &self.buf;
            if line == 1 && bytes.starts_with(b"\xEF\xBB\xBF") {
                bytes = &bytes[3..];
            }
            if bytes.last() == Some(&b'\r') {
                bytes = &bytes[..bytes.len() - 1];
            }
            let text = match utf8(bytes) {
                Ok(t) => t,
                Err(e) => {
                    self.saw_any = true;
                    let at = line_start
                        + e.valid_up_to() as u64
                        + if line == 1 && self.buf.starts_with(b"\xEF\xBB\xBF") {
                            3
                        } else {
                            0
                        };
                    return Some(malformed(
                        &file,
                        line,
                        "-",
                        format!("invalid UTF-8 at byte offset {at}"),
                    ));
                }
            };
            if text.trim().is_empty() {
                continue;
            }
            self.saw_any = true;
            return Some(match self.kind {
                LineKind::Txt => {
                    let owned = text.to_string();
                    map_fields(&self.src, &file, line, &|name: &str| {
                        (name == self.src.fields.text).then(|| Value::String(owned.clone()))
                    })
                }
                LineKind::Jsonl => map_json_object(&self.src, &file, line, text),
            });
        }
    }
}

/// TSV/CSV through the `csv` crate: quoted fields, CRLF, BOM, header or not.
/// Counts the newlines a reader passes on, so a record's line can be computed from its
/// byte offset (the `csv` crate's own line numbers drift on CRLF files). Only newlines
/// between the current record and the reader's read-ahead are kept. With quoting on, it
/// also follows the quoting as the `csv` crate reads it, to find a quote never closed.
#[derive(Clone, Default)]
struct Newlines(std::sync::Arc<std::sync::Mutex<Scan>>);

#[derive(Default)]
struct Scan {
    /// Offsets of newlines not yet passed by a record.
    pending: std::collections::VecDeque<u64>,
    /// Newlines passed.
    passed: u64,
    /// Newlines read in all.
    total: u64,
    quote: QuoteState,
    /// Offset and 1-based line of the quote that opened the current quoted field.
    opened: (u64, u64),
    /// Whether the reader reached the end of the input.
    eof: bool,
    /// Offsets of text right after a closing quote (`"a"b`, which `csv` reads as `ab`), with
    /// the line the quoted field opened on: a stray quote that paired with a later one.
    stray: std::collections::VecDeque<(u64, u64)>,
    /// Lines longer than `[limits] max_line_bytes`, each handed on as its newline alone:
    /// (offset of that newline in what the `csv` crate reads, 1-based line).
    cuts: std::collections::VecDeque<(u64, u64)>,
    /// The line of a quoted field that grew past the record limit: the reader stopped there.
    overlong: Option<u64>,
}

/// Where the bytes read so far leave a CSV field, as `csv_core` parses with its defaults
/// (a quote opens a field only at its start; `""` inside a quoted field is a quote).
#[derive(Default, Clone, Copy, PartialEq, Eq)]
enum QuoteState {
    #[default]
    FieldStart,
    Unquoted,
    Quoted,
    /// A quote inside a quoted field: a closing quote, or the first of `""`.
    QuoteInQuoted,
}

impl Newlines {
    /// 1-based line of byte offset `at` (offsets must not decrease between calls).
    fn line_at(&self, at: u64) -> u64 {
        let mut g = self.0.lock().expect("newline counter lock");
        // `<=`: on CRLF files the csv crate places a record at the `\n` ending the line before.
        while g.pending.front().is_some_and(|&nl| nl <= at) {
            g.pending.pop_front();
            g.passed += 1;
        }
        g.passed + 1
    }

    /// The first stray-quote offset in `start..end` (a record's bytes) with its quote's
    /// line; those before `end` are forgotten.
    fn stray_quote_in(&self, start: u64, end: u64) -> Option<u64> {
        let mut g = self.0.lock().expect("newline counter lock");
        let mut found = None;
        while let Some(&(at, line)) = g.stray.front() {
            if at >= end {
                break;
            }
            g.stray.pop_front();
            if at >= start && found.is_none() {
                found = Some(line);
            }
        }
        found
    }

    /// Lines cut for their length that start before `end`, with whether each lies strictly
    /// inside the record starting at `start` (a cut line is empty to the `csv` crate, so it
    /// can only be inside a quoted field spanning lines, never a record's start).
    fn cuts_before(&self, start: u64, end: u64) -> Vec<(u64, bool)> {
        let mut g = self.0.lock().expect("newline counter lock");
        let mut out = Vec::new();
        while let Some(&(at, line)) = g.cuts.front() {
            if at >= end {
                break;
            }
            g.cuts.pop_front();
            out.push((line, at > start));
        }
        out
    }

    /// The line of a quoted field that grew past the record limit, if one did.
    fn overlong(&self) -> Option<u64> {
        self.0.lock().expect("newline counter lock").overlong
    }

    /// When the input ended inside a quoted field that opened before `end`: the quote's
    /// line and the number of lines read in all.
    fn unclosed_quote_before(&self, end: u64) -> Option<(u64, u64)> {
        let g = self.0.lock().expect("newline counter lock");
        (g.eof && g.quote == QuoteState::Quoted && g.opened.0 < end)
            .then_some((g.opened.1, g.total + 1))
    }
}

struct CountingReader<R> {
    inner: R,
    offset: u64,
    newlines: Newlines,
    /// `(delimiter)` when `"` quotes fields.
    quoting: Option<u8>,
    /// The record limit: a quoted field longer than this ends the input here.
    max_record: u64,
}

impl<R: Read> Read for CountingReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        {
            let mut g = self.newlines.0.lock().expect("newline counter lock");
            if matches!(g.quote, QuoteState::Quoted | QuoteState::QuoteInQuoted)
                && self.offset - g.opened.0 > self.max_record
            {
                // A quoted field past the record limit (an unclosed quote, or a field that
                // big): stop here rather than hold the rest of the file in one record.
                g.overlong = Some(g.opened.1);
                g.eof = true;
                return Ok(0);
            }
        }
        let n = self.inner.read(buf)?;
        let mut g = self.newlines.0.lock().expect("newline counter lock");
        if n == 0 && !buf.is_empty() {
            g.eof = true;
        }
        for (i, &b) in buf[..n].iter().enumerate() {
            let at = self.offset + i as u64;
            if let Some(delim) = self.quoting
                // A leading BOM is not part of the first field.
                && !(at < 3 && b == [0xEF, 0xBB, 0xBF][at as usize])
            {
                use QuoteState::*;
                let end = b == b'\n' || b == b'\r';
                g.quote = match (g.quote, b) {
                    (FieldStart, b'"') => {
                        g.opened = (at, g.total + 1);
                        Quoted
                    }
                    (Quoted, b'"') => QuoteInQuoted,
                    (Quoted, _) => Quoted,
                    (QuoteInQuoted, b'"') => Quoted,
                    (_, _) if b == delim || end => FieldStart,
                    (QuoteInQuoted, _) => {
                        let opened = g.opened.1;
                        g.stray.push_back((at, opened));
                        Unquoted
                    }
                    _ => Unquoted,
                };
            }
            if b == b'\n' {
                g.pending.push_back(at);
                g.total += 1;
            }
        }
        self.offset += n as u64;
        Ok(n)
    }
}

/// Hands a TSV/CSV file on line by line, each line whole or, past `max` bytes, as its
/// newline alone (the line is skipped to its end, never held in memory); cut lines go to
/// the shared [`Scan`] as (output offset, line).
struct BoundedLines<R> {
    inner: R,
    max: usize,
    /// The current line, with its newline, and how much of it is handed on.
    line: Vec<u8>,
    at: usize,
    lineno: u64,
    /// Bytes handed on so far.
    out: u64,
    newlines: Newlines,
}

impl<R: BufRead> BoundedLines<R> {
    /// Reads the next line into `self.line`; false at the end of the input.
    fn fill_line(&mut self) -> std::io::Result<bool> {
        self.line.clear();
        self.at = 0;
        let (mut len, mut cut, mut newline) = (0u64, false, false);
        loop {
            let chunk = self.inner.fill_buf()?;
            if chunk.is_empty() {
                break;
            }
            let (take, done) = match memchr_nl(chunk) {
                Some(i) => (i + 1, true),
                None => (chunk.len(), false),
            };
            len += take as u64;
            if !cut {
                if self.line.len() + take - usize::from(done) > self.max {
                    cut = true;
                    self.line = Vec::new();
                } else {
                    self.line.extend_from_slice(&chunk[..take]);
                }
            }
            self.inner.consume(take);
            if done {
                newline = true;
                break;
            }
        }
        if len == 0 {
            return Ok(false);
        }
        self.lineno += 1;
        if cut {
            let mut g = self.newlines.0.lock().expect("newline counter lock");
            g.cuts.push_back((self.out, self.lineno));
            drop(g);
            if newline {
                self.line.push(b'\n');
            }
        }
        Ok(true)
    }
}

impl<R: BufRead> Read for BoundedLines<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        while self.at == self.line.len() {
            if !self.fill_line()? {
                return Ok(0);
            }
        }
        let n = (self.line.len() - self.at).min(buf.len());
        buf[..n].copy_from_slice(&self.line[self.at..self.at + n]);
        self.at += n;
        self.out += n as u64;
        Ok(n)
    }
}

type CsvReader = csv::Reader<CountingReader<BoundedLines<Box<dyn BufRead + Send>>>>;

fn csv_items(
    src: &SourceConfig,
    file: String,
    path: &Path,
) -> impl Iterator<Item = Item> + Send + use<> {
    let delimiter = if src.format == Format::Tsv {
        b'\t'
    } else {
        b','
    };
    let quoting = src.quote.unwrap_or(src.format == Format::Csv);
    let file: Arc<str> = file.into();
    let opened = open_decoded(path);
    let src = src.clone();
    let newlines = Newlines::default();
    let mut state: Option<(CsvReader, Vec<String>)> = None;
    let mut first: Option<Item> = None;
    match opened {
        Err(e) => first = Some(unreadable(&file, 0, format!("cannot open: {e}"))),
        Ok(f) => {
            let mut rdr = csv::ReaderBuilder::new()
                .delimiter(delimiter)
                .quoting(quoting)
                .has_headers(src.header)
                .flexible(true)
                .from_reader(CountingReader {
                    inner: BoundedLines {
                        inner: f,
                        max: src.limits.max_line_bytes,
                        line: Vec::new(),
                        at: 0,
                        lineno: 0,
                        out: 0,
                        newlines: newlines.clone(),
                    },
                    offset: 0,
                    newlines: newlines.clone(),
                    quoting: quoting.then_some(delimiter),
                    max_record: src.record_limit() as u64,
                });
            let columns = if src.header {
                match rdr.byte_headers() {
                    Ok(h) if h.is_empty() || (h.len() == 1 && h[0].is_empty()) => {
                        first = Some(unreadable(&file, 0, "empty file: no header"));
                        Vec::new()
                    }
                    Ok(h) => h
                        .iter()
                        .map(|c| {
                            String::from_utf8_lossy(c)
                                .trim_start_matches('\u{feff}')
                                .to_string()
                        })
                        .collect(),
                    Err(e) => {
                        first = Some(unreadable(&file, 1, format!("unreadable header: {e}")));
                        Vec::new()
                    }
                }
            } else {
                src.columns.clone()
            };
            if src.header
                && newlines
                    .0
                    .lock()
                    .expect("newline counter lock")
                    .cuts
                    .front()
                    .is_some_and(|c| c.1 == 1)
            {
                first = Some(over_limit(
                    &file,
                    1,
                    "-",
                    format!(
                        "header line longer than limits.max_line_bytes ({} bytes); the file is not read",
                        src.limits.max_line_bytes
                    ),
                ));
            }
            if first.is_none() {
                for need in needed_columns(&src.fields) {
                    if !columns.iter().any(|c| c == need) {
                        first = Some(malformed(
                            &file,
                            1,
                            need,
                            format!("no such column (columns: {})", columns.join(", ")),
                        ));
                    }
                }
            }
            if first.is_none() {
                state = Some((rdr, columns));
            }
        }
    }
    let mut rec = csv::ByteRecord::new();
    let mut any = false;
    let mut first_done = false;
    let mut pending: std::collections::VecDeque<Item> = std::collections::VecDeque::new();
    std::iter::from_fn(move || {
        if !first_done {
            first_done = true;
            if let Some(f) = first.take() {
                return Some(f);
            }
        }
        loop {
            if let Some(p) = pending.pop_front() {
                return Some(p);
            }
            let (rdr, columns) = state.as_mut()?;
            match rdr.read_byte_record(&mut rec) {
                Ok(false) => {
                    let over = newlines.overlong();
                    state = None;
                    for (l, _) in newlines.cuts_before(0, u64::MAX) {
                        pending.push_back(line_cut(&src, &file, l));
                    }
                    if let Some(l) = over {
                        pending.push_back(quoted_overlong(&src, &file, l));
                    }
                    if !any && pending.is_empty() {
                        any = true;
                        return Some(unreadable(&file, 0, "empty file: no records"));
                    }
                    any = true;
                    continue;
                }
                Err(e) => {
                    let line = e
                        .position()
                        .map(|p| newlines.line_at(p.byte()))
                        .unwrap_or(0);
                    any = true;
                    // An I/O error ends the file (and the run); a parse error only this record.
                    if matches!(e.kind(), csv::ErrorKind::Io(_)) {
                        state = None;
                        return Some(unreadable(&file, line, format!("read error: {e}")));
                    }
                    return Some(malformed(&file, line, "-", format!("unreadable row: {e}")));
                }
                Ok(true) => {}
            }
            // Lines cut for their length: before this record, each a decision of its own; inside
            // it (a quoted field spanning lines), the record's.
            let (start, end) = (
                rec.position().map_or(0, |p| p.byte()),
                rdr.position().byte(),
            );
            let mut cut_inside = None;
            for (l, inside) in newlines.cuts_before(start, end) {
                if inside {
                    cut_inside.get_or_insert(l);
                } else {
                    any = true;
                    pending.push_back(line_cut(&src, &file, l));
                }
            }
            if let Some(l) = newlines.overlong() {
                state = None;
                any = true;
                pending.push_back(quoted_overlong(&src, &file, l));
                continue;
            }
            let line = rec
                .position()
                .map(|p| newlines.line_at(p.byte()))
                .unwrap_or(0);
            if rec.len() == 1 && rec[0].is_empty() {
                continue;
            }
            any = true;
            let item = 'rec: {
                if let Some(l) = cut_inside {
                    break 'rec over_limit(
                        &file,
                        line,
                        "-",
                        format!(
                            "line {l} of this row is longer than limits.max_line_bytes ({} bytes; \
                         skipped to its end, not read)",
                            src.limits.max_line_bytes
                        ),
                    );
                }
                if end - start > src.record_limit() as u64 {
                    break 'rec over_limit(
                        &file,
                        line,
                        "-",
                        format!(
                            "record longer than max_record_bytes ({} bytes)",
                            src.record_limit()
                        ),
                    );
                }
                // A quote opened in this record and never closed took the rest of the file
                // into one field: the rows it swallowed are not read as text.
                if let Some((quote_line, last)) =
                    newlines.unclosed_quote_before(rdr.position().byte())
                {
                    state = None;
                    break 'rec malformed(
                        &file,
                        quote_line,
                        "-",
                        format!(
                            "unclosed quote: the quoted field opened on this line runs to the end of \
                         the file (lines {quote_line}..{last}, in the row starting on line {line}); \
                         that row and the rest of the file are not read"
                        ),
                    );
                }
                let start = rec.position().map_or(0, |p| p.byte());
                if let Some(quote_line) = newlines.stray_quote_in(start, rdr.position().byte()) {
                    break 'rec malformed(
                        &file,
                        quote_line,
                        "-",
                        format!(
                            "text after the closing quote of the field opened on this line (in the \
                         row starting on line {line}): a stray quote paired with a later one, \
                         and the rows between are inside this field"
                        ),
                    );
                }
                if rec.len() < columns.len() {
                    break 'rec malformed(
                        &file,
                        line,
                        &column_field(columns, rec.len()),
                        format!("too few columns: {} of {}", rec.len(), columns.len()),
                    );
                }
                let extra_text = rec
                    .iter()
                    .skip(columns.len())
                    .any(|f| f != b"" && f != b"\r");
                if extra_text {
                    break 'rec malformed(
                        &file,
                        line,
                        "-",
                        format!(
                            "too many columns: {} of {} (a delimiter inside an unquoted field?)",
                            rec.len(),
                            columns.len()
                        ),
                    );
                }
                let mut values = BTreeMap::new();
                for (i, name) in columns.iter().enumerate() {
                    let mut raw = &rec[i];
                    if raw.last() == Some(&b'\r') {
                        raw = &raw[..raw.len() - 1];
                    }
                    match std::str::from_utf8(raw) {
                        Ok(s) => {
                            values.insert(name.clone(), Value::String(s.to_string()));
                        }
                        Err(e) => {
                            let at = rec.position().map(|p| p.byte()).unwrap_or(0);
                            break 'rec malformed(
                                &file,
                                line,
                                &column_field(columns, i),
                                format!(
                                    "invalid UTF-8 at byte {} of the field (row starts at byte offset {at})",
                                    e.valid_up_to()
                                ),
                            );
                        }
                    }
                }
                map_fields(&src, &file, line, &|n| values.get(n).cloned())
            };
            pending.push_back(item);
        }
    })
}

/// The decision for a line cut for its length (see [`BoundedLines`]).
fn line_cut(src: &SourceConfig, file: &str, line: u64) -> Item {
    over_limit(
        file,
        line,
        "-",
        format!(
            "line longer than limits.max_line_bytes ({} bytes; skipped to its end, not read)",
            src.limits.max_line_bytes
        ),
    )
}

/// The decision for a quoted field that grew past the record limit: the reader stopped.
fn quoted_overlong(src: &SourceConfig, file: &str, line: u64) -> Item {
    over_limit(
        file,
        line,
        "-",
        format!(
            "the quoted field opened on this line runs past max_record_bytes ({} bytes): an \
             unclosed quote or a field that large; that row and the rest of the file are not read",
            src.record_limit()
        ),
    )
}

/// The field a problem in column `i` names: the column's name, or its 1-based position when
/// the header left the name empty (a trailing delimiter).
fn column_field(columns: &[String], i: usize) -> String {
    match columns[i].as_str() {
        "" => format!("column {}", i + 1),
        name => name.to_string(),
    }
}

fn needed_columns(fm: &FieldMap) -> Vec<&str> {
    let mut v = vec![fm.text.as_str()];
    v.extend(fm.id.as_deref());
    v.extend(fm.date.as_deref());
    v.extend(fm.label.as_deref());
    v
}

/// One JSON array of objects per file, element by element with the line each starts on. A
/// syntax error stops that file with one malformed item naming the line it is on.
/// `key` is the [`path_key`] of the file's path as [`list_files`] shows it.
fn json_array_items(src: &SourceConfig, file: String, key: u64, path: &Path) -> FileItems {
    let file: Arc<str> = file.into();
    let cap = src.record_limit() as u64 * 4;
    let mut data = Vec::new();
    let read = std::fs::File::open(path).and_then(|f| {
        // Sized from the file's length: `take` hides it from `read_to_end`, which would
        // otherwise grow the buffer (and copy it) a few times per file.
        let len = f.metadata().map_or(0, |m| m.len());
        data.reserve_exact(len.min(cap + 1) as usize);
        f.take(cap + 1).read_to_end(&mut data)
    });
    if let Err(e) = read {
        return FileItems {
            items: vec![unreadable(&file, 0, format!("cannot open: {e}"))],
            digest: None,
        };
    }
    // The manifest's hash is of the file as on disk, compressed or not.
    let digest = (data.len() as u64 <= cap).then(|| FileDigest {
        path_key: key,
        sha256: crate::hash::sha256(&data),
        size: data.len() as u64,
    });
    let data = match decode_all(data, cap) {
        Ok(d) => d,
        Err(e) => {
            return FileItems {
                items: vec![unreadable(&file, 0, format!("read error: {e}"))],
                digest,
            };
        }
    };
    if data.len() as u64 > cap {
        return FileItems {
            items: vec![over_limit(
                &file,
                0,
                "-",
                format!("JSON-array file larger than 4 × max_record_bytes ({cap} bytes)"),
            )],
            digest,
        };
    }
    FileItems {
        items: json_array_file_items(src, &file, &data),
        digest,
    }
}

/// The items of a JSON-array file's bytes (see [`json_array_items`]).
fn json_array_file_items(src: &SourceConfig, file: &Arc<str>, data: &[u8]) -> Vec<Item> {
    let text = match utf8(data) {
        Ok(t) => t,
        Err(e) => {
            let line = crate::recipe::line_of(
                &String::from_utf8_lossy(&data[..e.valid_up_to()]),
                e.valid_up_to(),
            ) as u64;
            return vec![malformed(
                file,
                line,
                "-",
                format!("invalid UTF-8 at byte offset {}", e.valid_up_to()),
            )];
        }
    };
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let bytes = text.as_bytes();
    let mut pos = skip_ws(bytes, 0);
    let mut line = 1 + count_nl(&bytes[..pos]);
    if pos >= bytes.len() {
        return vec![unreadable(file, 0, "empty file: no records")];
    }
    if bytes[pos] != b'[' {
        return vec![malformed(
            file,
            line as u64,
            "-",
            "expected a JSON array of objects",
        )];
    }
    let mut items = Vec::new();
    // An element's entries, reused from one element to the next.
    let mut plain = Vec::new();
    pos += 1;
    loop {
        let next = skip_ws(bytes, pos);
        line += count_nl(&bytes[pos..next]);
        pos = next;
        if pos >= bytes.len() {
            items.push(malformed(
                file,
                line as u64,
                "-",
                "truncated JSON array: missing `]`",
            ));
            return items;
        }
        if bytes[pos] == b']' {
            return close_array(file, bytes, pos, line, items);
        }
        // Most elements are objects of plain strings: cut out by hand, in one pass. Then
        // objects with plain keys: their entries are parsed straight from the array by
        // serde_json. Anything else (keys with escapes, another kind of value, invalid
        // JSON) is cut out whole first and takes the general path.
        let (end, newlines) =
            if let Some(found) = crate::json_object::plain_object(text, pos, &mut plain) {
                items.push(map_entries(src, file, line as u64, &plain));
                found
            } else if let Some(Ok((Entries(entries), len))) = {
                let mut direct =
                    serde_json::Deserializer::from_str(&text[pos..]).into_iter::<Entries>();
                direct.next().map(|r| r.map(|e| (e, direct.byte_offset())))
            } {
                items.push(map_entries(src, file, line as u64, &entries));
                (pos + len, count_nl(&bytes[pos..pos + len]))
            } else {
                let mut de = serde_json::Deserializer::from_str(&text[pos..])
                    .into_iter::<&serde_json::value::RawValue>();
                match de.next() {
                    Some(Ok(raw)) => items.push(map_json_object(src, file, line as u64, raw.get())),
                    Some(Err(e)) => {
                        let at = line as u64 + e.line() as u64 - 1;
                        let reason = format!(
                            "invalid JSON in the record starting here (error on line {at}): {e}; \
                         rest of file skipped"
                        );
                        items.push(malformed(file, line as u64, "-", reason));
                        return items;
                    }
                    None => {
                        items.push(malformed(file, line as u64, "-", "truncated JSON array"));
                        return items;
                    }
                }
                let end = pos + de.byte_offset();
                (end, count_nl(&bytes[pos..end]))
            };
        if end - pos > src.record_limit() {
            items.pop();
            items.push(over_limit(
                file,
                line as u64,
                "-",
                format!(
                    "record longer than max_record_bytes ({} bytes)",
                    src.record_limit()
                ),
            ));
        }
        line += newlines;
        pos = skip_ws(bytes, end);
        line += count_nl(&bytes[end..pos]);
        match bytes.get(pos) {
            Some(b',') => pos += 1,
            Some(b']') => return close_array(file, bytes, pos, line, items),
            _ => {
                items.push(malformed(
                    file,
                    line as u64,
                    "-",
                    "truncated JSON array: expected `,` or `]`",
                ));
                return items;
            }
        }
    }
}

/// The items of a JSON array whose closing `]` is at `pos` (on `line`): content after it (a
/// second array, stray text) is a malformed item, so its records never vanish unnoticed;
/// an array without elements is an empty file.
fn close_array(
    file: &Arc<str>,
    bytes: &[u8],
    pos: usize,
    mut line: usize,
    mut items: Vec<Item>,
) -> Vec<Item> {
    let after = skip_ws(bytes, pos + 1);
    if after < bytes.len() {
        line += count_nl(&bytes[pos..after]);
        items.push(malformed(
            file,
            line as u64,
            "-",
            "content after the JSON array's closing `]`",
        ));
    } else if items.is_empty() {
        return vec![unreadable(file, 0, "empty JSON array: no records")];
    }
    items
}

/// UTF-8 validation: mostly Hangul input takes the standard check's slow path, the SIMD
/// check does not; the standard one runs only to locate an error.
fn utf8(bytes: &[u8]) -> Result<&str, std::str::Utf8Error> {
    simdutf8::basic::from_utf8(bytes).or_else(|_| std::str::from_utf8(bytes))
}

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && b[i].is_ascii_whitespace() {
        i += 1;
    }
    i
}

fn count_nl(b: &[u8]) -> usize {
    b.iter().filter(|&&c| c == b'\n').count()
}

#[cfg(test)]
mod tests {

    #[test]
    fn origin_names_hide_absolute_source_paths() {
        let mut src: SourceConfig = toml::from_str(
            "id = \"nsmc\"\npath = \"/home/u/data/ratings.txt\"\nformat = \"tsv\"\ndomain = \"x\"\nstyle = \"formal\"\n[fields]\ntext = \"text\"\n",
        )
        .unwrap();
        assert_eq!(origin_name(&src, src.path.clone()), "nsmc/ratings.txt");
        src.path = "/home/u/data/".into();
        assert_eq!(
            origin_name(&src, "/home/u/data/a/b.json".into()),
            "nsmc/a/b.json"
        );
        src.path = "data-samples/reviews".into();
        assert_eq!(
            origin_name(&src, "data-samples/reviews/1.json".into()),
            "data-samples/reviews/1.json"
        );
    }
    use super::*;

    /// The sliced fast path and the full parse (its oracle) agree.
    #[test]
    fn raw_value_agrees_with_serde() {
        for raw in [
            r#""평범한 리뷰""#,
            r#""escaped \"quote\" and \\ slash""#,
            r#""\ud55c\uae00""#,
            r#""""#,
            "12",
            "null",
            r#"{"a":1}"#,
        ] {
            assert_eq!(
                raw_value(raw),
                serde_json::from_str::<Value>(raw).ok(),
                "{raw}"
            );
        }
    }

    #[test]
    fn compression_is_found_by_magic_bytes() {
        assert_eq!(Compression::sniff(b"\x1f\x8b\x08\0"), Compression::Gzip);
        assert_eq!(Compression::sniff(b"\x28\xb5\x2f\xfd\0"), Compression::Zstd);
        assert_eq!(Compression::sniff(b"{\"text\":1}"), Compression::None);
        assert_eq!(Compression::sniff(b"\x1f"), Compression::None);
        assert_eq!(Compression::sniff(b""), Compression::None);
    }

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

    fn rec(file: &Arc<str>, line: u64, id: &str) -> Record {
        Record {
            id: id.into(),
            kind: Kind::Document,
            source: "s".into(),
            origin: Origin {
                file: file.clone(),
                line,
            },
            text: String::new(),
            date: None,
            label: None,
            parents: Vec::new(),
            fields: BTreeMap::new(),
        }
    }

    /// A second id names both places; the first stays the one named.
    #[test]
    fn seen_ids_name_the_first_file_and_line() {
        let (a, b): (Arc<str>, Arc<str>) = ("d/a.json".into(), "d/b.json".into());
        let mut seen = SeenIds::default();
        assert!(seen.check(&rec(&a, 2, "s-1")).is_none());
        assert!(seen.check(&rec(&a, 3, "s-2")).is_none());
        let m = seen.check(&rec(&b, 2, "s-1")).unwrap();
        assert_eq!(
            (m.file.as_str(), m.line, m.kind),
            ("d/b.json", 2, Problem::DuplicateId)
        );
        assert!(m.reason.contains("d/a.json:2"), "{m}");
        let m = seen.check(&rec(&b, 9, "s-1")).unwrap();
        assert!(m.reason.contains("d/a.json:2"), "{m}");
        assert!(seen.check(&rec(&b, 10, "s-3")).is_none());
    }

    fn csv_problems(bytes: &[u8]) -> (usize, Vec<String>) {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("a.csv"), bytes).unwrap();
        let src: SourceConfig = toml::from_str(
            "id = \"s\"\npath = \"a.csv\"\nformat = \"csv\"\nlicense = \"CC0-1.0\"\n\
             domain = \"d\"\nstyle = \"formal\"\n[fields]\ntext = \"text\"\n",
        )
        .unwrap();
        let (mut n, mut bad) = (0, Vec::new());
        for item in csv_items(&src, "a.csv".into(), &d.path().join("a.csv")) {
            match item {
                Item::Record(_) => n += 1,
                Item::Malformed(m) => bad.push(format!("{}:{}", m.line, m.reason)),
            }
        }
        (n, bad)
    }

    /// The quote tracking agrees with the `csv` crate on what is quoted: escaped quotes,
    /// quotes inside unquoted fields and a BOM are not problems; a quote left open to the end
    /// of the file, or closed by a later field's opening quote, is.
    #[test]
    fn csv_quote_problems_name_the_line_the_quote_opened() {
        let (n, bad) = csv_problems(b"text\n\"a \"\"b\"\" c\"\nx\"y\"\n\"multi\nline\"\n");
        assert_eq!((n, bad.len()), (3, 0), "{bad:?}");
        let (n, bad) = csv_problems(b"\xEF\xBB\xBF\"text\"\r\n\"a\"\r\n");
        assert_eq!((n, bad.len()), (1, 0), "{bad:?}");
        let (n, bad) = csv_problems(b"text\nok\n\"open\nrest\nrest\n");
        assert_eq!(n, 1);
        assert!(
            bad.len() == 1 && bad[0].starts_with("3:unclosed quote"),
            "{bad:?}"
        );
        let (n, bad) = csv_problems(b"text\n\"stray\nx\n\"q\" after\nok\n");
        assert_eq!(n, 1);
        assert!(
            bad.len() == 1 && bad[0].starts_with("2:text after the closing quote"),
            "{bad:?}"
        );
    }

    fn text_of(obj: &str) -> Option<String> {
        let src: SourceConfig = toml::from_str(
            "id = \"s\"\npath = \"x.json\"\nformat = \"json\"\nlicense = \"CC0-1.0\"\n\
             domain = \"d\"\nstyle = \"formal\"\nattribution = \"\"\n[fields]\ntext = \"text\"\n",
        )
        .unwrap();
        match map_json_object(&src, &"x.json".into(), 1, obj) {
            Item::Record(r) => Some(r.text),
            Item::Malformed(_) => None,
        }
    }

    /// Borrowed entries behave like the map they replace: the last duplicate wins, an
    /// escaped key takes the general path, a non-object is malformed.
    #[test]
    fn object_fields_are_found_like_in_a_map() {
        assert_eq!(text_of(r#"{"text":"가","id":1}"#).as_deref(), Some("가"));
        assert_eq!(text_of(r#"{"text":"a","text":"b"}"#).as_deref(), Some("b"));
        assert_eq!(text_of(r#"{"te\u0078t":"c"}"#).as_deref(), Some("c"));
        assert_eq!(text_of(r#"["text"]"#), None);
    }
}
