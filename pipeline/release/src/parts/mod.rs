//! The parts an engine (Spark, a shell loop) leaves after running the leading per-record
//! stages on partitions of `kcurate ingest`'s output, read back for `kcurate finalise`.
//!
//! A part is the stdout of `kcurate stage --before-corpus --decisions -`: output records,
//! tagged decisions `{"decision":{...}}` and, last, one `{"stats":[...]}` line with the
//! books of the stages it ran. Parts and their lines may arrive in any order: records and
//! decisions are put back in input order ([`InputOrder`]: the recipe's source order, the
//! source's file order, the line), so the release does not depend on how the engine cut or
//! gathered the partitions. The lines one input record produced stay together in the order
//! `stage` wrote them (one process writes them one after the other), and a stable sort
//! keeps them so.
//!
//! Nothing in a part is taken on trust that can be checked against the rest of it
//! ([`tally`]): each part's stats line must add up to the records and decisions the part
//! holds, no item may come twice (a part given twice, partitions that overlap), and a key
//! line (`stage --dedup-keys`) must follow the record it is for. A part that fails is
//! refused ([`Fault::Refused`]), naming the file and line.

use kcurate_core::recipe::Recipe;
use kcurate_core::{Decision, Record, StageStats};
use kcurate_io::ingest::list_files;
use std::collections::BTreeMap;
use std::io::BufRead;
use std::path::{Path, PathBuf};

mod problem;
mod tally;
pub use problem::Problem;
use tally::{Seen, Tally};

/// A part or decisions file that cannot be used: the file, the line and what is wrong.
#[derive(Debug, thiserror::Error)]
#[error("{path}:{line}: {problem}")]
pub struct PartsError {
    /// The part or decisions file.
    pub path: String,
    /// 1-based line in it (0: the file as a whole).
    pub line: u64,
    /// What is wrong with the line.
    pub problem: Problem,
    /// Whether the file could not be read, or was read and does not hold together.
    pub fault: Fault,
}

/// Why a part or decisions file cannot be used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// It cannot be read (missing, unlistable, an I/O error).
    Unreadable,
    /// It was read and does not hold together: not a part of this recipe, a line that is
    /// no part line, books that do not add up to its lines, an item given twice.
    Refused,
}

impl PartsError {
    fn unreadable(path: &Path, line: u64, e: std::io::Error) -> Self {
        PartsError {
            path: path.display().to_string(),
            line,
            problem: Problem::Io(e),
            fault: Fault::Unreadable,
        }
    }

    fn refused(path: &Path, line: u64, problem: Problem) -> Self {
        PartsError {
            path: path.display().to_string(),
            line,
            problem,
            fault: Fault::Refused,
        }
    }
}

/// Where a line was read: its part (an index into [`Staged::parts`]) and its 1-based line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineAt {
    /// Index of the part in [`Staged::parts`].
    pub part: usize,
    /// 1-based line in the part.
    pub line: u64,
}

/// A record's dedup key line as its part holds it (`stage --dedup-keys`): what a shuffle
/// groups by, for `finalise` to check dedup's verdicts against. The signature is left out:
/// the check recomputes it from the record's text where it needs it.
#[derive(Debug, Clone, serde::Deserialize)]
pub struct StagedKey {
    /// The record id.
    pub id: String,
    /// Its place in input order: source index, file index, line, number among the records
    /// the line became.
    pub at: [u64; 4],
    /// The hash of the record's dedup key, 32 hex digits.
    pub exact: String,
    /// The keys the local index can match the record by, as numbers: an exact key (`x`
    /// and 24 hex digits) with the top bit set over its 96 bits, a band key (`b` and 16)
    /// as it is. Held for every record of a large corpus, so not as strings.
    #[serde(deserialize_with = "meet_codes")]
    pub meet: Vec<u128>,
    /// Where the key line is (set when read).
    #[serde(skip, default = "no_line")]
    pub read_at: LineAt,
}

/// The tag an exact meeting key carries in [`StagedKey::meet`].
pub const EXACT_MEET: u128 = 1 << 127;

fn meet_codes<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<u128>, D::Error> {
    use serde::de::Error;
    let keys: Vec<String> = serde::Deserialize::deserialize(d)?;
    keys.iter()
        .map(|k| {
            let code = match (k.get(..1), k.get(1..)) {
                (Some("x"), Some(h)) if h.len() == 24 => {
                    u128::from_str_radix(h, 16).ok().map(|v| v | EXACT_MEET)
                }
                (Some("b"), Some(h)) if h.len() == 16 => u128::from_str_radix(h, 16).ok(),
                _ => None,
            };
            code.ok_or_else(|| {
                D::Error::custom(format!(
                    "meet key {k:?} is neither x and 24 hex digits nor b and 16"
                ))
            })
        })
        .collect()
}

fn no_line() -> LineAt {
    LineAt { part: 0, line: 0 }
}

/// What the leading per-record stages produced, gathered from every part, in input order.
#[derive(Debug, Default)]
pub struct Staged {
    /// Output records of the leading stages, in input order.
    pub records: Vec<Record>,
    /// Decisions of ingest (quarantined lines) and of the leading stages, in input order,
    /// already scrubbed by the process that wrote them.
    pub decisions: Vec<Decision>,
    /// The ingest stage's books (records that entered the chain, quarantined lines).
    pub ingest: StageStats,
    /// Each leading stage's name and books, summed over the parts.
    pub stages: Vec<(String, StageStats)>,
    /// The part files as read (shown paths), in reading order.
    pub parts: Vec<String>,
    /// Where each record was read, in the order of `records`.
    pub read_at: Vec<LineAt>,
    /// Each record's dedup key line, in the order of `records` (`None`: the part has none
    /// for it).
    pub keys: Vec<Option<StagedKey>>,
}

/// A record the stage a [`Decided`](crate::runner::Decided) stands for is given, as
/// `finalise` read it: where its part holds it, and its dedup key line when the part has one.
pub struct GivenRecord<'a> {
    /// The record.
    pub record: &'a Record,
    /// The part file it was read from.
    pub part: &'a str,
    /// Its line there.
    pub line: u64,
    /// Its key line (`stage --dedup-keys`), in the same part.
    pub key: Option<&'a StagedKey>,
}

impl Staged {
    /// `part:line` of a line read from a part.
    pub fn shown(&self, at: LineAt) -> String {
        format!("{}:{}", self.parts[at.part], at.line)
    }
}

/// Input order as a function of where an item came from: (source index in the recipe, file
/// index in the source's listing, line). Independent of arrival order.
pub struct InputOrder {
    sources: BTreeMap<String, usize>,
    files: BTreeMap<(usize, String), usize>,
}

type Key = (usize, usize, u64);

impl InputOrder {
    /// The order of the recipe's inputs: each source's files as its reader lists them under
    /// `root`, so parts can be put back by (source index, file index, line).
    pub fn new(recipe: &Recipe, root: &Path) -> Self {
        let mut sources = BTreeMap::new();
        let mut files = BTreeMap::new();
        for (i, s) in recipe.sources.iter().enumerate() {
            sources.insert(s.id.clone(), i);
            let listed = list_files(s, root).unwrap_or_default();
            for (j, (name, _)) in listed.into_iter().enumerate() {
                // The release name records and decisions carry.
                files.insert((i, name), j);
            }
        }
        InputOrder { sources, files }
    }

    fn key(&self, source: &str, file: &str, line: u64) -> Option<Key> {
        let s = *self.sources.get(source)?;
        let f = *self.files.get(&(s, file.to_string()))?;
        Some((s, f, line))
    }

    /// A record's place in input order, (source index, file index, line); `None` when it
    /// is from no input of the recipe.
    pub fn record_key(&self, r: &Record) -> Option<(usize, usize, u64)> {
        self.key(&r.source, &r.origin.file, r.origin.line)
    }

    fn decision_key(&self, d: &Decision) -> Option<Key> {
        let (file, line) = d.origin.rsplit_once(':')?;
        self.key(&d.source, file, line.parse().ok()?)
    }
}

#[derive(serde::Deserialize)]
struct TaggedDecision {
    decision: Decision,
}

#[derive(serde::Deserialize)]
struct TaggedStats {
    stats: Vec<NamedStats>,
}

/// One stage's books as a part's stats line carries them.
#[derive(serde::Serialize, serde::Deserialize)]
pub struct NamedStats {
    /// The stage name as the recipe spells it.
    pub name: String,
    /// Its items in, out and dropped over the part.
    pub stats: StageStats,
}

/// The regular files of `path` (itself when a file), sorted by name; names starting with
/// `_` or `.` (an engine's `_SUCCESS` and checksum files) are left out.
fn files_of(path: &Path) -> Result<Vec<PathBuf>, PartsError> {
    let err = |e| PartsError::unreadable(path, 0, e);
    if path.is_file() {
        return Ok(vec![path.to_path_buf()]);
    }
    let mut out = Vec::new();
    for e in std::fs::read_dir(path).map_err(err)? {
        let e = e.map_err(err)?;
        let name = e.file_name().to_string_lossy().into_owned();
        if name.starts_with('_') || name.starts_with('.') || !e.path().is_file() {
            continue;
        }
        out.push(e.path());
    }
    out.sort();
    Ok(out)
}

fn lines_of(
    path: &Path,
    mut each: impl FnMut(u64, &str) -> Result<(), Problem>,
) -> Result<(), PartsError> {
    let f = std::fs::File::open(path).map_err(|e| PartsError::unreadable(path, 0, e))?;
    for (n, line) in std::io::BufReader::new(f).lines().enumerate() {
        let at = n as u64 + 1;
        let line = line.map_err(|e| PartsError::unreadable(path, at, e))?;
        if line.trim().is_empty() {
            continue;
        }
        each(at, &line).map_err(|problem| PartsError::refused(path, at, problem))?;
    }
    Ok(())
}

/// Reads the parts (a directory of part files, or one file) and the decisions files of
/// ingest (`ingest.malformed`, `ingest.duplicate_id`; `license` decisions are left out: the
/// licence gate runs again in `finalise`), checks each part's books against its lines and
/// that no item comes twice, and puts everything in input order.
pub fn read_staged(
    parts: &Path,
    decisions: &[PathBuf],
    order: &InputOrder,
) -> Result<Staged, PartsError> {
    let mut g = Gathered::default();
    for path in decisions
        .iter()
        .map(|p| files_of(p))
        .collect::<Result<Vec<_>, _>>()?
        .concat()
    {
        g.read_ingest_decisions(&path, order)?;
    }
    for path in files_of(parts)? {
        let (part_stats, line) = g.read_part(&path, order)?;
        g.add_part_stats(&path, line, &part_stats)?;
    }
    Ok(g.into_staged())
}

/// One output record of a part, with its place in input order and where it was read.
struct Read {
    key: Key,
    record: Record,
    at: LineAt,
    dedup: Option<StagedKey>,
}

/// What [`read_staged`] has read so far, each item with its place in input order.
#[derive(Default)]
struct Gathered {
    records: Vec<Read>,
    decided: Vec<(Key, Decision)>,
    ingest: StageStats,
    /// Each leading stage's books summed over the parts read (`None` before the first).
    stages: Option<Vec<(String, StageStats)>>,
    parts: Vec<String>,
    /// Every item a part has put out or dropped so far, and where.
    seen: Seen,
    /// The part being read: what its lines add up to.
    tally: Tally,
}

/// The problem of an item whose source or file is not an input of the recipe.
fn not_an_input(what: &'static str, source: &str, origin: &str) -> Problem {
    Problem::NotAnInput {
        what,
        source_id: source.to_string(),
        origin: origin.to_string(),
    }
}

#[derive(serde::Deserialize)]
struct TaggedKey {
    dedup: StagedKey,
}

impl Gathered {
    /// One decisions file of ingest: its `ingest` decisions counted in ingest's books.
    fn read_ingest_decisions(&mut self, path: &Path, order: &InputOrder) -> Result<(), PartsError> {
        lines_of(path, |_, line| {
            let d: Decision = match serde_json::from_str::<TaggedDecision>(line) {
                Ok(t) => t.decision,
                Err(_) => serde_json::from_str(line).map_err(Problem::NotADecision)?,
            };
            match d.stage.as_str() {
                "license" => return Ok(()),
                "ingest" => {}
                other => {
                    return Err(Problem::StageDecision {
                        stage: other.to_string(),
                    });
                }
            }
            let key = order
                .decision_key(&d)
                .ok_or_else(|| not_an_input("decision", &d.source, &d.origin))?;
            self.ingest.items_in += 1;
            self.ingest.dropped += 1;
            self.ingest.count(&d);
            self.decided.push((key, d));
            Ok(())
        })
    }

    /// One part: its records, tagged decisions and key lines, and the stats line it must
    /// end with (returned with its line number).
    fn read_part(
        &mut self,
        path: &Path,
        order: &InputOrder,
    ) -> Result<(Vec<NamedStats>, u64), PartsError> {
        let part = self.parts.len();
        self.parts.push(path.display().to_string());
        self.tally = Tally::default();
        let mut part_stats = None;
        // The line just read was this record (index into `records`): its key line may follow.
        let mut last_record = None;
        lines_of(path, |n, line| {
            let at = LineAt { part, line: n };
            if part_stats.is_some() {
                return Err(Problem::AfterStats);
            }
            let just_read = last_record.take();
            if line.starts_with("{\"decision\":") {
                self.read_decision(line, at, order)?;
            } else if line.starts_with("{\"dedup\":") {
                self.read_key_line(line, at, just_read)?;
            } else if line.starts_with("{\"stats\":") {
                let s =
                    serde_json::from_str::<TaggedStats>(line).map_err(Problem::NotAStatsLine)?;
                part_stats = Some((s.stats, n));
            } else {
                last_record = Some(self.read_record(line, at, order)?);
            }
            Ok(())
        })?;
        part_stats.ok_or_else(|| PartsError::refused(path, 0, Problem::NoStatsLine))
    }

    fn read_decision(&mut self, line: &str, at: LineAt, order: &InputOrder) -> Result<(), Problem> {
        let d = serde_json::from_str::<TaggedDecision>(line)
            .map_err(Problem::NotATaggedDecision)?
            .decision;
        let key = order
            .decision_key(&d)
            .ok_or_else(|| not_an_input("decision", &d.source, &d.origin))?;
        // A stage's own quarantined lines (`ingest.malformed`) are no stage's books.
        if d.stage != "ingest" {
            if d.action == kcurate_core::Action::Drop {
                self.seen.once(&d.item, "dropped item", at, &self.parts)?;
            }
            self.tally.decision(&d, key);
        }
        self.decided.push((key, d));
        Ok(())
    }

    /// A record line; returns its index in `records`.
    fn read_record(
        &mut self,
        line: &str,
        at: LineAt,
        order: &InputOrder,
    ) -> Result<usize, Problem> {
        let r: Record = serde_json::from_str(line).map_err(Problem::NotARecord)?;
        let key = order
            .record_key(&r)
            .ok_or_else(|| not_an_input("record", &r.source, &r.origin.to_string()))?;
        self.seen.once(&r.id, "record", at, &self.parts)?;
        self.tally.record(key);
        self.records.push(Read {
            key,
            record: r,
            at,
            dedup: None,
        });
        Ok(self.records.len() - 1)
    }

    /// A record's dedup keys (`stage --dedup-keys`): right after the record they are for,
    /// at its place in input order.
    fn read_key_line(
        &mut self,
        line: &str,
        at: LineAt,
        after: Option<usize>,
    ) -> Result<(), Problem> {
        let mut k = serde_json::from_str::<TaggedKey>(line)
            .map_err(Problem::NotAKeyLine)?
            .dedup;
        let id = &k.id;
        let Some(r) = after
            .map(|i| &mut self.records[i])
            .filter(|r| &r.record.id == id)
        else {
            return Err(Problem::KeyNotAfterRecord { id: id.clone() });
        };
        let place = [r.key.0 as u64, r.key.1 as u64, r.key.2];
        if k.at[..3] != place {
            return Err(Problem::KeyMisplaced {
                id: id.clone(),
                at: k.at,
                place,
            });
        }
        k.read_at = at;
        r.dedup = Some(k);
        Ok(())
    }

    /// Adds a part's books to the sum, once they are checked against its lines; every part
    /// must have run the same stages.
    fn add_part_stats(
        &mut self,
        path: &Path,
        line: u64,
        part_stats: &[NamedStats],
    ) -> Result<(), PartsError> {
        self.tally
            .check(part_stats)
            .map_err(|m| PartsError::refused(path, line, m))?;
        let sum = self.stages.get_or_insert_with(|| {
            part_stats
                .iter()
                .map(|n| (n.name.clone(), StageStats::default()))
                .collect()
        });
        let names: Vec<&str> = part_stats.iter().map(|n| n.name.as_str()).collect();
        let want: Vec<&str> = sum.iter().map(|(n, _)| n.as_str()).collect();
        if names != want {
            return Err(PartsError::refused(
                path,
                0,
                Problem::OtherStages {
                    ran: names.iter().map(|n| n.to_string()).collect(),
                    other: want.iter().map(|n| n.to_string()).collect(),
                },
            ));
        }
        for (s, n) in sum.iter_mut().zip(part_stats) {
            s.1 += &n.stats;
        }
        Ok(())
    }

    /// Everything in input order, with ingest's books completed.
    fn into_staged(self) -> Staged {
        let Gathered {
            mut records,
            mut decided,
            mut ingest,
            stages,
            parts,
            ..
        } = self;
        let stages = stages.unwrap_or_default();
        // The records that entered the chain: the first stage's input, or (no stage ran) the
        // records themselves.
        let entered = stages
            .first()
            .map_or(records.len() as u64, |(_, s)| s.items_in);
        ingest.items_in += entered;
        ingest.items_out += entered;
        // Stable: the lines of one input record keep the order they were written in.
        records.sort_by_key(|a| a.key);
        decided.sort_by_key(|a| a.0);
        let mut staged = Staged {
            decisions: decided.into_iter().map(|(_, d)| d).collect(),
            ingest,
            stages,
            parts,
            ..Default::default()
        };
        for r in records {
            staged.records.push(r.record);
            staged.read_at.push(r.at);
            staged.keys.push(r.dedup);
        }
        staged
    }
}

#[cfg(test)]
mod tests;
