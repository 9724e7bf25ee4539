//! The two-pass form of a whole-corpus stage that decides on compact keys
//! ([`kcurate_core::CorpusStage::keyed`], assign_split's): the first pass gives it each
//! record's key as the records come and writes the records to disk in that order; the
//! stage decides; the second pass reads the records back a chunk at a time, lets the stage
//! keep or drop them, and writes them (or holds them for a later corpus stage). While the
//! records fit the run's memory budget they stay in memory instead of going to disk; the
//! first that does not fit sends them all to the file. The bytes equal the held path's
//! ([`run_corpus`]): same records, decisions, books and order, in memory or from disk.

use super::memory::{Budget, record_bytes};
use super::segment::Plan;
use super::spill::SortedRuns;
use super::spill::crypt::{SpillFile, SpillReader};
use super::*;
use kcurate_core::KeyedStage;
use std::io::{BufRead, Write};

/// A keyed corpus stage as the runner drives it, with its books.
pub(super) struct KeyedRun<'a> {
    /// Its place in the plan.
    at: usize,
    planned: &'a Planned,
    stage: Box<dyn KeyedStage + 'a>,
    stats: StageStats,
    dir: PathBuf,
    /// The records in the order they came, each line flagged `1` when the stage applies to
    /// it and `0` when it passes it by.
    path: PathBuf,
    /// Sealed like the spill ([`SpillFile`]): the records are from before `pii`.
    file: Option<SpillFile>,
    /// The records (flagged as in the file) while they fit `budget`, with the bytes they
    /// took from it; empty once the file is opened.
    held: Vec<(Record, bool)>,
    budget: Budget,
    taken: usize,
    /// The unit of the records the stage takes, for the progress line.
    unit: &'static str,
    line: Vec<u8>,
    /// The last id seen, and whether every id so far came after the one before: then the
    /// order [`run_corpus`] leaves (by id) is the order they came in.
    last: Option<String>,
    ascending: bool,
}

fn io_error(path: &Path) -> impl Fn(std::io::Error) -> RunError + '_ {
    move |e| RunError::Io {
        path: path.display().to_string(),
        source: e,
    }
}

impl<'a> KeyedRun<'a> {
    /// The corpus stage at `at` in its keyed form, if it has one. Its files go in
    /// `.keyed-<at>/` under the release's temporary directory, removed when it finishes.
    pub(super) fn start(
        planned: &'a [Planned],
        at: usize,
        release: &ReleaseDir,
        budget: &Budget,
    ) -> Option<Self> {
        let p = planned.get(at)?;
        let BuiltStage::Corpus(stage) = &p.stage else {
            return None;
        };
        let dir = release.tmp_dir.join(format!(".keyed-{at}"));
        Some(KeyedRun {
            at,
            planned: p,
            stage: stage.keyed(&dir)?,
            stats: StageStats::default(),
            path: dir.join("records.jsonl"),
            dir,
            file: None,
            held: Vec::new(),
            budget: budget.clone(),
            taken: 0,
            unit: "items",
            line: Vec::new(),
            last: None,
            ascending: true,
        })
    }

    /// First pass: the next records, in the order [`run_corpus`] would get them.
    pub(super) fn take(&mut self, recs: Vec<Record>, run: &Run) -> Result<(), RunError> {
        if recs.is_empty() {
            return Ok(());
        }
        let p = self.planned;
        let mine: Vec<bool> = recs.iter().map(|r| p.applies(r, run.sources)).collect();
        self.stats.items_in += recs.len() as u64;
        if let Some(r) = recs
            .iter()
            .zip(&mine)
            .find(|(_, m)| **m)
            .map(|(r, _)| r)
            .or(recs.first())
        {
            self.stats.unit_in_of(r.kind);
            self.unit = r.kind.unit();
        }
        let stage = &*self.stage;
        let keys: Vec<Vec<u8>> = run.pool.install(|| {
            recs.par_iter()
                .zip(mine.par_iter())
                .filter(|(_, m)| **m)
                .map(|(r, _)| {
                    let mut k = Vec::new();
                    stage.key(r, &mut k);
                    k
                })
                .collect()
        });
        let err = io_error(&self.dir);
        for k in &keys {
            self.stage.note(k).map_err(&err)?;
        }
        drop(err);
        for (r, m) in recs.into_iter().zip(mine) {
            if self.ascending {
                self.ascending = self.last.as_ref().is_none_or(|l| *l < r.id);
                self.last = Some(r.id.clone());
            }
            self.hold_or_write(r, m)?;
        }
        Ok(())
    }

    /// Keeps a record in memory while it fits the budget; past it, every record held so far
    /// and every one after goes to the records file.
    fn hold_or_write(&mut self, r: Record, mine: bool) -> Result<(), RunError> {
        if self.file.is_none() {
            let n = record_bytes(&r);
            if self.budget.take(n) {
                self.taken += n;
                self.held.push((r, mine));
                return Ok(());
            }
            self.open_file()?;
            for (h, m) in std::mem::take(&mut self.held) {
                self.write_line(&h, m)?;
            }
            self.budget.give_back(std::mem::take(&mut self.taken));
        }
        self.write_line(&r, mine)
    }

    fn open_file(&mut self) -> Result<(), RunError> {
        let f = SpillFile::create(self.path.clone()).map_err(io_error(&self.path))?;
        self.file = Some(f);
        Ok(())
    }

    fn write_line(&mut self, r: &Record, mine: bool) -> Result<(), RunError> {
        let w = self.file.as_mut().expect("opened before the first line");
        self.line.clear();
        self.line.push(if mine { b'1' } else { b'0' });
        serde_json::to_writer(&mut self.line, r).expect("records serialise");
        self.line.push(b'\n');
        w.write_all(&self.line).map_err(io_error(&self.path))
    }

    /// The stage decides; the second pass reads the records back, through the stage, and
    /// on to the release (or, when a corpus stage follows, to [`run_rest`]).
    pub(super) fn finish(
        mut self,
        run: &Run,
        plan: &Plan,
        books: &mut Books,
        release: &mut ReleaseDir,
    ) -> Result<(), RunError> {
        let p = self.planned;
        let events = run.opts.events();
        events.start(&p.name, self.unit, Some(self.stats.items_in));
        let mut out = Out::new(p.name.clone());
        self.stage.decide(&mut out).map_err(io_error(&self.dir))?;
        let metrics = out.take_metrics();
        let last = self.at + 1 == plan.planned.len();
        let mut held: Vec<Record> = Vec::new();
        // Records that came out of id order go through sorted runs; in order, straight on.
        let mut sorted = (!self.ascending)
            .then(|| SortedRuns::new(self.dir.join("sorted"), self.budget.clone()));
        let direct = sorted.is_none();
        let mut emit = |r: Record, late: bool, release: &mut ReleaseDir| -> Result<(), RunError> {
            if let Some(s) = &mut sorted {
                return s.push(r, late);
            }
            if last {
                release.write_record(&r, run.recipe.split.assign(run.recipe.seed, &r.id))?;
            } else {
                held.push(r);
            }
            Ok(())
        };
        let mut records = self.records()?;
        while let Some((mine, passed)) = records.next_chunk(&self.path, run)? {
            let all = self.apply_chunk(mine, passed, &mut out, release)?;
            for (r, late) in all {
                emit(r, late, release)?;
            }
        }
        drop(records);
        // Removed here, before its directory is.
        let from_disk = self.file.take().is_some();
        if let Some(s) = sorted.take() {
            for r in s.into_merged()? {
                let r = r?;
                if last {
                    release.write_record(&r, run.recipe.split.assign(run.recipe.seed, &r.id))?;
                } else {
                    held.push(r);
                }
            }
        }
        tracing::debug!(
            stage = %p.name,
            records = self.stats.items_in,
            in_id_order = direct,
            from_disk,
            "keyed corpus stage: records streamed"
        );
        books.add_metrics(&p.name, metrics);
        events.finish(&p.name, self.stats.items_in);
        books.add_stage(self.at, &self.stats);
        if self.dir.exists() {
            std::fs::remove_dir_all(&self.dir).map_err(io_error(&self.dir))?;
        }
        if !last {
            run_rest(run, plan, self.at + 1, held, books, release)?;
        }
        Ok(())
    }

    /// The stage keeps or drops the records it applies to (`mine`); its decisions are
    /// written and counted. Returns the chunk's records in the order `run_corpus` leaves them
    /// (by id, passed-by before kept among equals), each flagged `true` when the stage kept it.
    fn apply_chunk(
        &mut self,
        mine: Vec<Record>,
        passed: Vec<Record>,
        out: &mut Out,
        release: &mut ReleaseDir,
    ) -> Result<Vec<(Record, bool)>, RunError> {
        let p = self.planned;
        let in_ids: Vec<String> = mine.iter().map(|r| r.id.clone()).collect();
        self.stage.apply(mine, out);
        let (mut kept, mut ds) = (Vec::new(), Vec::new());
        let dropped = out.drain_into(&mut kept, &mut ds);
        check_corpus(p, &in_ids, &kept, &ds)?;
        let ids: BTreeSet<&str> = in_ids.iter().map(String::as_str).collect();
        if let Some(r) = kept.iter().find(|r| !ids.contains(r.id.as_str())) {
            return Err(RunError::Conservation {
                stage: p.name.clone(),
                message: format!(
                    "kept a record {} it was not given (a keyed stage makes no records)",
                    r.id
                ),
            });
        }
        for d in &ds {
            self.stats.count(d);
            release.write_decision(d)?;
        }
        self.stats.dropped += dropped;
        self.stats.items_out += (kept.len() + passed.len()) as u64;
        if let Some(r) = kept.first().or(passed.first()) {
            self.stats.unit_out_of(r.kind);
        }
        // As `run_corpus` leaves them: by id, passed-by before kept among equals
        // (within a chunk of ascending ids this is their order overall).
        let mut all: Vec<(Record, bool)> = passed.into_iter().map(|r| (r, false)).collect();
        all.extend(kept.into_iter().map(|r| (r, true)));
        if self.ascending {
            all.sort_by(|a, b| a.0.id.cmp(&b.0.id));
        }
        Ok(all)
    }
}

/// The records a keyed stage took, in the order they came: in memory, or in its file.
enum Taken {
    Memory(std::vec::IntoIter<(Record, bool)>, Budget, usize),
    File(SpillReader),
}

impl KeyedRun<'_> {
    /// The records taken, for the second pass.
    fn records(&mut self) -> Result<Taken, RunError> {
        let Some(file) = self.file.as_mut() else {
            let held = std::mem::take(&mut self.held).into_iter();
            let taken = std::mem::take(&mut self.taken);
            return Ok(Taken::Memory(held, self.budget.clone(), taken));
        };
        let reader = file.reader().map_err(io_error(&self.path))?;
        Ok(Taken::File(reader))
    }
}

impl Taken {
    /// The next `CHUNK * 4` records, split as [`read_chunk`] splits them; a chunk leaving
    /// memory gives its share of the budget back.
    #[allow(clippy::type_complexity)]
    fn next_chunk(
        &mut self,
        path: &Path,
        run: &Run,
    ) -> Result<Option<(Vec<Record>, Vec<Record>)>, RunError> {
        let (held, budget, taken) = match self {
            Taken::File(reader) => return read_chunk(reader, path, run),
            Taken::Memory(held, budget, taken) => (held, budget, taken),
        };
        let (mut mine, mut passed) = (Vec::new(), Vec::new());
        for (r, m) in held.by_ref().take(CHUNK * 4) {
            let n = record_bytes(&r).min(*taken);
            budget.give_back(n);
            *taken -= n;
            if m { mine.push(r) } else { passed.push(r) }
        }
        Ok((!(mine.is_empty() && passed.is_empty())).then_some((mine, passed)))
    }
}

/// The next chunk of the records file (up to `CHUNK * 4` lines), parsed on the pool and
/// split by each line's flag: the records the stage applies to, then those it passes by.
/// `None` at the end of the file.
#[allow(clippy::type_complexity)]
fn read_chunk(
    reader: &mut impl BufRead,
    path: &Path,
    run: &Run,
) -> Result<Option<(Vec<Record>, Vec<Record>)>, RunError> {
    let mut lines = Vec::with_capacity(CHUNK * 4);
    for _ in 0..CHUNK * 4 {
        let mut line = String::new();
        if reader.read_line(&mut line).map_err(io_error(path))? == 0 {
            break;
        }
        lines.push(line);
    }
    if lines.is_empty() {
        return Ok(None);
    }
    let parsed: Vec<Result<(bool, Record), RunError>> = run.pool.install(|| {
        lines
            .par_iter()
            .map(|l| {
                let rec = serde_json::from_str(&l[1..]).map_err(|e| RunError::Io {
                    path: path.display().to_string(),
                    source: std::io::Error::other(e),
                })?;
                Ok((l.starts_with('1'), rec))
            })
            .collect()
    });
    drop(lines);
    let (mut mine, mut passed) = (Vec::new(), Vec::new());
    for r in parsed {
        let (m, r) = r?;
        if m { mine.push(r) } else { passed.push(r) }
    }
    Ok(Some((mine, passed)))
}
