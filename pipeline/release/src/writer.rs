//! The release directory: written under a temporary name next to its final place and
//! renamed into place at the end, so a release appears whole or not at all.
//!
//! Next to `<out>/<name>/<version>` live, while a run writes it:
//! - `.<version>.lock`: a lock file (`flock`); a second run to the same name and version
//!   fails at once with [`WriteError::Locked`] instead of sharing its directories. The run
//!   holding it removes it when it ends (committed, failed or interrupted); a run that
//!   locked a file just removed finds another file at the path and locks that one instead.
//!   A killed run leaves the file, not the lock: the lock goes with the process.
//! - `.tmp-<version>-<pid>`: the release being written, one per process; removed when the
//!   run fails or is interrupted ([`abandon_unfinished`]), or by the next run after a crash.
//! - `.old-<version>-<pid>`: with `--overwrite`, the previous release, moved aside during
//!   the commit and deleted after it. A crash between the two renames leaves it and no
//!   release: the next run puts it back first.
//!
//! Files and directories are fsynced before the rename; the parent after it.

use crate::parquet_out::ParquetError;
use crate::parquet_stream::ParquetStream;
use crate::row::row_bytes;
use kcurate_core::hash::HashingWriter;
use kcurate_core::{Decision, Record};
use serde_json::Value;
use sink::Sink;
use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

mod sink;

/// The split roles, in release order.
pub const SPLITS: [&str; 3] = ["train", "dev", "test"];
/// Where every decision of a run is written, one JSON line each.
pub const DECISIONS_JSONL: &str = "audit/decisions.jsonl";
/// The decisions' Parquet twin.
pub const DECISIONS_PARQUET: &str = "audit/decisions.parquet";

/// Why the release directory could not be written.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    /// Reading or writing a file failed.
    #[error("{path}: {source}")]
    Io {
        /// The file or directory at fault.
        path: String,
        /// The underlying error.
        source: std::io::Error,
    },
    /// The release exists and `--overwrite` was not given.
    #[error("{path} already exists; pass --overwrite to replace it, or raise the recipe's version")]
    Exists {
        /// The file or directory at fault.
        path: String,
    },
    /// Another run holds the lock for the same name and version.
    #[error(
        "{path} is being written by another kcurate run (lock {lock} is held); wait for it to finish, or write elsewhere with --out"
    )]
    Locked {
        /// The file or directory at fault.
        path: String,
        /// The lock file another run holds.
        lock: String,
    },
    /// A name from the recipe would leave the release directory (`..`, `/`, empty).
    #[error("{what} {value:?} {why}")]
    UnsafeName {
        /// What was named (`release name`, `split name`, ...).
        what: String,
        /// The value as found.
        value: String,
        /// Why the name is refused.
        why: kcurate_core::recipe::PathComponentError,
    },
    /// A Parquet twin could not be encoded.
    #[error(transparent)]
    Parquet(#[from] ParquetError),
}

/// An `io::Error` → [`WriteError::Io`] mapper naming `path`.
pub fn io_err(path: &Path) -> impl Fn(std::io::Error) -> WriteError + '_ {
    move |e| WriteError::Io {
        path: path.display().to_string(),
        source: e,
    }
}

/// Rewrites a decision before it is written (the PII scrubber replaces personal data in
/// earlier stages' before/after spans with keyed fingerprints).
pub type Scrubber = std::sync::Arc<dyn Fn(&mut Decision) + Send + Sync>;

/// `d` as it may be written: through `scrubber` when there is one. Every decision a run or
/// `kcurate stage` writes passes here, so none reaches a file unscrubbed.
pub fn scrubbed<'d>(
    scrubber: Option<&Scrubber>,
    d: &'d Decision,
) -> std::borrow::Cow<'d, Decision> {
    match scrubber {
        Some(f) => {
            let mut c = d.clone();
            f(&mut c);
            std::borrow::Cow::Owned(c)
        }
        None => std::borrow::Cow::Borrowed(d),
    }
}

/// Temporary release directories of this process that are not committed yet; removed by
/// [`abandon_unfinished`]. A commit holds the lock while it renames.
static UNFINISHED: std::sync::Mutex<Vec<PathBuf>> = std::sync::Mutex::new(Vec::new());

fn unfinished() -> std::sync::MutexGuard<'static, Vec<PathBuf>> {
    UNFINISHED.lock().unwrap_or_else(|e| e.into_inner())
}

/// Removes the temporary directories of releases this process has not committed, and
/// their lock files (for a SIGINT/SIGTERM handler), and returns the guard with how many
/// there were: while the guard is held no commit starts, so the caller can exit holding
/// it (and the locks). A commit in progress finishes first.
pub fn abandon_unfinished() -> (std::sync::MutexGuard<'static, Vec<PathBuf>>, usize) {
    let mut g = unfinished();
    let n = g.len();
    for d in g.drain(..) {
        // Workers may still be creating files in it: a few tries.
        for _ in 0..5 {
            if std::fs::remove_dir_all(&d).is_ok() || !d.exists() {
                break;
            }
        }
        if let Some(lock) = lock_of_tmp(&d) {
            let _ = std::fs::remove_file(lock);
        }
    }
    (g, n)
}

/// The lock file of a temporary release directory: `.tmp-<version>-<pid>` → `.<version>.lock`.
fn lock_of_tmp(tmp: &Path) -> Option<PathBuf> {
    let name = tmp.file_name()?.to_str()?;
    let (version, _pid) = name.strip_prefix(".tmp-")?.rsplit_once('-')?;
    Some(tmp.with_file_name(format!(".{version}.lock")))
}

/// [`abandon_unfinished`] when no commit holds the list (from a thread that may itself be
/// committing, e.g. one whose allocation just failed): `None` without removing anything
/// when the list is held.
pub fn try_abandon_unfinished() -> Option<std::sync::MutexGuard<'static, Vec<PathBuf>>> {
    let mut g = match UNFINISHED.try_lock() {
        Ok(g) => g,
        Err(std::sync::TryLockError::Poisoned(e)) => e.into_inner(),
        Err(std::sync::TryLockError::WouldBlock) => return None,
    };
    for d in g.drain(..) {
        let _ = std::fs::remove_dir_all(&d);
    }
    Some(g)
}

/// Test hook for fault injection: `KCURATE_FAULT=<point>` makes the commit fail at that
/// point as an I/O error would (`rename-new`: moving the new release into place;
/// `after-aside`: the process aborts once the old release is moved aside, as a crash).
fn fault(point: &str) -> std::io::Result<()> {
    match std::env::var("KCURATE_FAULT") {
        Ok(v) if v == point && point == "after-aside" => std::process::abort(),
        Ok(v) if v == point => Err(std::io::Error::other(format!("injected fault at {point}"))),
        _ => Ok(()),
    }
}

/// fsync every file and directory under `dir` (and `dir`), so that what the rename
/// publishes is on disk.
fn sync_tree(dir: &Path) -> std::io::Result<()> {
    for e in std::fs::read_dir(dir)? {
        let e = e?;
        if e.file_type()?.is_dir() {
            sync_tree(&e.path())?;
        } else {
            File::open(e.path())?.sync_all()?;
        }
    }
    sync_dir(dir)
}

fn sync_dir(dir: &Path) -> std::io::Result<()> {
    File::open(dir)?.sync_all()
}

/// `<prefix><digits>` entries of `parent` (temporary and moved-aside directories of
/// earlier runs), sorted.
fn leftovers(parent: &Path, prefix: &str) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(parent)
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok())
        .filter(|e| {
            e.file_name().to_str().is_some_and(|n| {
                n.strip_prefix(prefix)
                    .is_some_and(|pid| !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit()))
            })
        })
        .map(|e| e.path())
        .collect();
    out.sort();
    out
}

/// Refuses a recipe name, version or task name that is not one safe path component.
fn check_names(name: &str, version: &str, task: &str) -> Result<(), WriteError> {
    for (what, value) in [
        ("recipe name", name),
        ("recipe version", version),
        ("task name", task),
    ] {
        kcurate_core::recipe::check_path_component(value).map_err(|why| {
            WriteError::UnsafeName {
                what: what.into(),
                value: value.into(),
                why,
            }
        })?;
    }
    Ok(())
}

/// Takes the release's lock (`<parent>/.<version>.lock`, flock), held as long as the
/// returned file is; another run writing the same release is refused.
fn lock_release(parent: &Path, version: &str, final_dir: &Path) -> Result<File, WriteError> {
    use std::os::unix::fs::MetadataExt;
    let lock_path = parent.join(format!(".{version}.lock"));
    loop {
        let lock = File::options()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock_path)
            .map_err(io_err(&lock_path))?;
        match lock.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                return Err(WriteError::Locked {
                    path: final_dir.display().to_string(),
                    lock: lock_path.display().to_string(),
                });
            }
            Err(std::fs::TryLockError::Error(e)) => return Err(io_err(&lock_path)(e)),
        }
        // The run that held it removes the file when it ends: a lock on a file no longer
        // at the path excludes nobody, so lock the one there now.
        let held = lock.metadata().map_err(io_err(&lock_path))?;
        if std::fs::metadata(&lock_path)
            .is_ok_and(|now| now.dev() == held.dev() && now.ino() == held.ino())
        {
            return Ok(lock);
        }
    }
}

/// Under the lock, no other run is using these: a crash between the commit's two renames
/// left the old release aside and none in place (put it back); stale temporary and
/// set-aside directories of killed runs are removed.
fn clear_leftovers(parent: &Path, version: &str, final_dir: &Path) -> Result<(), WriteError> {
    let aside = leftovers(parent, &format!(".old-{version}-"));
    if !final_dir.exists()
        && let Some(old) = aside.last()
    {
        std::fs::rename(old, final_dir).map_err(io_err(final_dir))?;
        tracing::warn!(restored = %final_dir.display(), "an interrupted --overwrite left the old release aside; put it back");
    }
    for stale in leftovers(parent, &format!(".old-{version}-"))
        .into_iter()
        .chain(leftovers(parent, &format!(".tmp-{version}-")))
        .chain(Some(parent.join(format!(".tmp-{version}"))).filter(|p| p.exists()))
    {
        std::fs::remove_dir_all(&stale).map_err(io_err(&stale))?;
    }
    Ok(())
}

/// A release being written.
pub struct ReleaseDir {
    /// Where the release goes: `<out>/<name>/<version>`.
    pub final_dir: PathBuf,
    /// Where it is written until [`ReleaseDir::commit`] renames it into place.
    pub tmp_dir: PathBuf,
    /// Held (flock) until the release is committed or abandoned, then removed.
    _lock: File,
    lock_path: PathBuf,
    task: String,
    splits: BTreeMap<String, Sink>,
    /// The recipe's split names: a record's split role (`dev`) is written under its name.
    names: Arc<kcurate_core::recipe::SplitNames>,
    decisions: Sink,
    /// Where the Parquet twins are encoded while the JSONL is written.
    pool: Arc<rayon::ThreadPool>,
    committed: bool,
    /// source → rule → counts, kept as decisions are written.
    pub by_source: BTreeMap<String, BTreeMap<String, kcurate_core::stage::RuleCount>>,
    /// Applied to every decision before it is written (see [`Scrubber`]).
    pub scrubber: Option<Scrubber>,
    /// split → text length bucket (20 characters wide, by lower bound) → rows.
    pub lengths: BTreeMap<String, BTreeMap<u64, u64>>,
    /// Release-relative path → (sha256, size) of the files hashed as they were written (the
    /// JSONL files, and the Parquet twins written alongside them).
    pub hashed: BTreeMap<String, (String, u64)>,
    /// A decision's line, reused from one decision to the next.
    line: Vec<u8>,
    /// rule → a few of its decisions (scrubbed), for report.html: per rule the
    /// [`EXAMPLES_PER_RULE`] whose seeded hash of `item \t rule` is smallest, so the choice
    /// does not depend on the order decisions arrive in.
    pub examples: BTreeMap<String, Vec<(u64, crate::report::RuleExample)>>,
    /// The curators' judgements the recipe names, and which of them name a decision of
    /// this release (set as decisions are written).
    pub judged: crate::precision::JudgedIndex,
}

/// How many decisions of each rule report.html shows.
pub const EXAMPLES_PER_RULE: usize = 3;

impl ReleaseDir {
    /// Prepares `<out>/<name>/<version>` (refusing an existing one unless `overwrite`) and
    /// its temporary twin. A stale temporary directory from a killed run is removed.
    pub fn create(
        out: &Path,
        name: &str,
        version: &str,
        task: &str,
        names: &kcurate_core::recipe::SplitNames,
        overwrite: bool,
        pool: Arc<rayon::ThreadPool>,
    ) -> Result<Self, WriteError> {
        check_names(name, version, task)?;
        let parent = out.join(name);
        let final_dir = parent.join(version);
        std::fs::create_dir_all(&parent).map_err(io_err(&parent))?;
        let lock = lock_release(&parent, version, &final_dir)?;
        clear_leftovers(&parent, version, &final_dir)?;
        if final_dir.exists() && !overwrite {
            return Err(WriteError::Exists {
                path: final_dir.display().to_string(),
            });
        }
        let tmp_dir = parent.join(format!(".tmp-{version}-{}", std::process::id()));
        unfinished().push(tmp_dir.clone());
        let audit = tmp_dir.join("audit");
        std::fs::create_dir_all(&audit).map_err(io_err(&audit))?;
        let task_dir = tmp_dir.join(task);
        std::fs::create_dir_all(&task_dir).map_err(io_err(&task_dir))?;
        let decisions = Sink::create(&tmp_dir, DECISIONS_JSONL, &pool)?;
        let mut splits = BTreeMap::new();
        for s in SPLITS.map(|r| names.name(r)) {
            let rel = format!("{task}/{s}.jsonl");
            splits.insert(s.to_string(), Sink::create(&tmp_dir, &rel, &pool)?);
        }
        Ok(ReleaseDir {
            final_dir,
            tmp_dir,
            _lock: lock,
            lock_path: parent.join(format!(".{version}.lock")),
            task: task.to_string(),
            names: Arc::new(names.clone()),
            splits,
            decisions,
            pool,
            committed: false,
            by_source: BTreeMap::new(),
            scrubber: None,
            lengths: BTreeMap::new(),
            hashed: BTreeMap::new(),
            line: Vec::new(),
            examples: BTreeMap::new(),
            judged: crate::precision::JudgedIndex::default(),
        })
    }

    /// The task directory the rows go to (`sentences`, `sts`, ...).
    pub fn task(&self) -> &str {
        &self.task
    }

    /// Writes a decision to `audit/decisions.jsonl` through the scrubber (when there is one),
    /// counting it per source and keeping it as one of its rule's examples when its hash is
    /// among the smallest.
    pub fn write_decision(&mut self, d: &Decision) -> Result<(), WriteError> {
        let d = scrubbed(self.scrubber.as_ref(), d);
        self.write_scrubbed_decision(&d)
    }

    /// Writes a decision already scrubbed (by the `kcurate stage` process that made it).
    pub fn write_scrubbed_decision(&mut self, d: &Decision) -> Result<(), WriteError> {
        self.note_decision(d);
        self.line.clear();
        serde_json::to_writer(&mut self.line, d).expect("decisions serialise");
        self.line.push(b'\n');
        let line = std::mem::take(&mut self.line);
        let written = self.write_line(None, &line);
        self.line = line;
        written
    }

    /// Counts a scrubbed decision, keeps it as an example and marks it judged; its line
    /// follows through [`write_decision_line`](Self::write_decision_line). Only the order
    /// among one rule's decisions matters (the first of equal example hashes is kept).
    pub fn note_decision(&mut self, d: &Decision) {
        let c = self
            .by_source
            .entry(d.source.clone())
            .or_default()
            .entry(d.rule.as_str().to_string())
            .or_default();
        match d.action {
            kcurate_core::Action::Drop => c.drop += 1,
            kcurate_core::Action::Edit => c.edit += 1,
            kcurate_core::Action::Flag => c.flag += 1,
        }
        self.keep_example(d);
        self.judged.observe_decision(d);
    }

    /// Writes the line (JSON and newline) of a decision [noted](Self::note_decision) before.
    pub fn write_decision_line(&mut self, line: &[u8]) -> Result<(), WriteError> {
        self.write_line(None, line)
    }

    /// Keeps `d` as one of its rule's examples if its hash is among the smallest so far.
    fn keep_example(&mut self, d: &Decision) {
        let h = kcurate_core::hash::seeded_u64(0, format!("{}\t{}", d.item, d.rule).as_bytes());
        let v = self
            .examples
            .entry(d.rule.as_str().to_string())
            .or_default();
        // One example per item: another decision of the rule on the same item has its hash.
        if (v.len() == EXAMPLES_PER_RULE && v.last().is_some_and(|(top, _)| *top <= h))
            || v.iter().any(|(x, e)| *x == h && e.item == d.item)
        {
            return;
        }
        let at = v.partition_point(|(x, _)| *x <= h);
        v.insert(at, (h, crate::report::RuleExample::of(d)));
        v.truncate(EXAMPLES_PER_RULE);
    }

    /// Appends finished row groups until fewer than one per pool thread are in flight over
    /// all the release's Parquet twins: memory stays bounded however many files fill up.
    fn make_room(&mut self) -> Result<(), WriteError> {
        let limit = self.pool.current_num_threads().max(1);
        loop {
            let total = self.decisions.in_flight()
                + self.splits.values().map(Sink::in_flight).sum::<usize>();
            if total < limit {
                return Ok(());
            }
            let busiest = std::iter::once(&mut self.decisions)
                .chain(self.splits.values_mut())
                .max_by_key(|s| s.in_flight())
                .and_then(|s| s.parquet.as_mut());
            match busiest {
                Some(p) => {
                    p.append_oldest()?;
                }
                None => return Ok(()),
            }
        }
    }

    /// Writes a record to its split (`fields.split`, else `fallback`).
    pub fn write_record(&mut self, rec: &Record, fallback: &str) -> Result<(), WriteError> {
        let split = rec
            .fields
            .get("split")
            .and_then(Value::as_str)
            .unwrap_or(fallback)
            .to_string();
        self.write_row_bytes(&split, &row_bytes(rec), rec.text.chars().count())
    }

    /// Writes a row already serialised by [`row_bytes`](crate::row::row_bytes) (workers serialise in parallel).
    pub fn write_row_bytes(
        &mut self,
        split: &str,
        bytes: &[u8],
        text_chars: usize,
    ) -> Result<(), WriteError> {
        let names = self.names.clone();
        let split = names.name(split);
        let bucket = text_chars as u64 / 20 * 20;
        match self.lengths.get_mut(split) {
            Some(l) => *l.entry(bucket).or_default() += 1,
            None => {
                self.lengths
                    .insert(split.to_string(), BTreeMap::from([(bucket, 1)]));
            }
        }
        if !self.splits.contains_key(split) {
            // A split name can come from input (`fields.split`): it becomes a file name.
            kcurate_core::recipe::check_path_component(split).map_err(|why| {
                WriteError::UnsafeName {
                    what: "split name".into(),
                    value: split.into(),
                    why,
                }
            })?;
            let rel = format!("{}/{split}.jsonl", self.task);
            let sink = Sink::create(&self.tmp_dir, &rel, &self.pool)?;
            self.splits.insert(split.to_string(), sink);
        }
        self.write_line(Some(split), bytes)
    }

    /// The decisions file (`None`) or a split's file.
    fn sink(&mut self, split: Option<&str>) -> &mut Sink {
        match split {
            None => &mut self.decisions,
            Some(s) => self.splits.get_mut(s).expect("split writer exists"),
        }
    }

    /// Writes one line to a file; a row group it completes goes to the pool, once there is
    /// room for it.
    fn write_line(&mut self, split: Option<&str>, line: &[u8]) -> Result<(), WriteError> {
        if self.sink(split).write_line(line)? {
            self.make_room()?;
            self.sink(split).submit()?;
        }
        Ok(())
    }

    /// Flushes every file, finishes the streamed Parquet twins and records the hashes of
    /// the JSONL files; returns rows per split.
    pub fn finish_rows(&mut self) -> Result<BTreeMap<String, u64>, WriteError> {
        // The files' last row groups go to the pool together and are awaited after: each
        // submitted and awaited in turn, they were a serial tail of every run.
        // Largest first: the pool starts them in that order, and a large group started
        // last would be the run's tail on its own.
        let mut last: Vec<&mut Sink> = std::iter::once(&mut self.decisions)
            .chain(self.splits.values_mut())
            .collect();
        last.sort_by_key(|s| std::cmp::Reverse(s.buffered()));
        for sink in last {
            sink.submit_last()?;
        }
        self.decisions.finish(&mut self.hashed)?;
        let mut rows = BTreeMap::new();
        for (s, sink) in &mut self.splits {
            sink.finish(&mut self.hashed)?;
            rows.insert(s.clone(), sink.rows);
        }
        Ok(rows)
    }

    /// Moves the finished release into place: every file and directory is fsynced; an
    /// existing release (`--overwrite`) is moved aside, the new one renamed into place and
    /// only then the old one deleted. If the new one cannot be moved into place, the old one
    /// is put back and the error returned.
    pub fn commit(mut self) -> Result<PathBuf, WriteError> {
        sync_tree(&self.tmp_dir).map_err(io_err(&self.tmp_dir))?;
        let parent = self
            .final_dir
            .parent()
            .expect("a release directory has a parent")
            .to_path_buf();
        let mut registry = unfinished();
        let aside = if self.final_dir.exists() {
            let version = self
                .final_dir
                .file_name()
                .unwrap_or_default()
                .to_string_lossy();
            let aside = parent.join(format!(".old-{version}-{}", std::process::id()));
            std::fs::rename(&self.final_dir, &aside).map_err(io_err(&self.final_dir))?;
            fault("after-aside").map_err(io_err(&aside))?;
            Some(aside)
        } else {
            None
        };
        let moved =
            fault("rename-new").and_then(|()| std::fs::rename(&self.tmp_dir, &self.final_dir));
        if let Err(e) = moved {
            if let Some(aside) = &aside
                && let Err(back) = std::fs::rename(aside, &self.final_dir)
            {
                return Err(WriteError::Io {
                    path: self.final_dir.display().to_string(),
                    source: std::io::Error::new(
                        e.kind(),
                        format!(
                            "{e}; and the old release could not be put back from {}: {back}",
                            aside.display()
                        ),
                    ),
                });
            }
            return Err(io_err(&self.final_dir)(e));
        }
        self.committed = true;
        registry.retain(|d| d != &self.tmp_dir);
        drop(registry);
        sync_dir(&parent).map_err(io_err(&parent))?;
        if let Some(aside) = aside {
            std::fs::remove_dir_all(&aside).map_err(io_err(&aside))?;
        }
        Ok(self.final_dir.clone())
    }
}

impl Drop for ReleaseDir {
    /// A run that fails leaves nothing behind (a killed one leaves the temporary
    /// directory, which the next run to the same release removes).
    fn drop(&mut self) {
        let registry = if self.committed {
            None
        } else {
            let mut registry = unfinished();
            let _ = std::fs::remove_dir_all(&self.tmp_dir);
            registry.retain(|d| d != &self.tmp_dir);
            Some(registry)
        };
        // Removed while still held (the file closes after this): see the module's doc.
        let _ = std::fs::remove_file(&self.lock_path);
        drop(registry);
    }
}
