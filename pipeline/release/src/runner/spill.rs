//! What a streaming run puts on disk instead of holding it: the records that leave an
//! online corpus stage, as runs sorted by id and merged back in id order, and that stage's
//! decisions, replayed into the release after the decisions of the stages before it.
//! Everything lives in `.spill/` under the release's temporary directory and is removed
//! before the release files are listed; a killed run leaves it with the temporary
//! directory, which the next run clears. Every spill file is encrypted under a key held only
//! in memory (`kcurate_io::spill_crypt::SpillFile`): the records are from before the `pii` stage.

use super::memory::{Budget, record_bytes};
use super::*;
use crypt::{SpillFile, SpillReader};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::io::{BufRead, Write};

/// The spill's encryption (`kcurate_io::spill_crypt`, shared with the ingest's
/// duplicate-id runs).
pub(super) use kcurate_io::spill_crypt as crypt;

/// Records buffered beyond the memory budget (estimated bytes) before what is buffered is
/// sorted and written as one run: the budget, but at least [`MIN_RUN`] (when other holders
/// have the budget, or it is tiny, runs stay large enough that the merge does not open a
/// file per record) and at most [`MAX_LOOSE`].
const MIN_RUN: usize = 256 << 10;
/// See [`MIN_RUN`].
const MAX_LOOSE: usize = 8 << 20;

/// The spill directory of a release being written.
pub(super) fn spill_dir(release: &ReleaseDir) -> PathBuf {
    release.tmp_dir.join(".spill")
}

fn io_error(path: &Path) -> impl Fn(std::io::Error) -> RunError + '_ {
    move |e| RunError::Io {
        path: path.display().to_string(),
        source: e,
    }
}

/// Records in id order, whatever order they are pushed in: buffered, sorted and written
/// as runs of JSON lines, then merged. A record's place among equal ids is set by its
/// `late` flag (records an online stage passed by come before those it kept, as
/// [`run_corpus`] orders them) and then by push order.
pub(super) struct SortedRuns {
    dir: PathBuf,
    buf: Vec<(Record, bool)>,
    /// The run's memory budget, and the bytes of `buf` taken from it.
    budget: Budget,
    taken: usize,
    /// Bytes of `buf` held beyond the budget, and how many make a run.
    loose: usize,
    loose_max: usize,
    /// The runs written, each with its file's path.
    runs: Vec<(PathBuf, SpillFile)>,
    line: Vec<u8>,
}

impl SortedRuns {
    /// Runs under `dir`, written once the buffered records no longer fit `budget`.
    pub(super) fn new(dir: PathBuf, budget: Budget) -> Self {
        SortedRuns {
            dir,
            buf: Vec::new(),
            loose_max: budget.limit().clamp(MIN_RUN, MAX_LOOSE),
            budget,
            taken: 0,
            loose: 0,
            runs: Vec::new(),
            line: Vec::new(),
        }
    }

    pub(super) fn push(&mut self, rec: Record, late: bool) -> Result<(), RunError> {
        let n = record_bytes(&rec);
        if self.budget.take(n) {
            self.taken += n;
        } else {
            self.loose += n;
        }
        self.buf.push((rec, late));
        if self.loose >= self.loose_max {
            self.write_run()?;
        }
        Ok(())
    }

    /// Whether any run went to disk.
    pub(super) fn spilled(&self) -> bool {
        !self.runs.is_empty()
    }

    fn write_run(&mut self) -> Result<(), RunError> {
        if self.buf.is_empty() {
            return Ok(());
        }
        let path = self
            .dir
            .join(format!("records-{:05}.jsonl", self.runs.len()));
        let err = io_error(&path);
        let mut w = SpillFile::create(path.clone()).map_err(&err)?;
        // Stable: equal keys keep their push order.
        self.buf
            .sort_by(|(a, la), (b, lb)| a.id.cmp(&b.id).then(la.cmp(lb)));
        for (rec, late) in self.buf.drain(..) {
            self.line.clear();
            self.line.push(if late { b'1' } else { b'0' });
            serde_json::to_writer(&mut self.line, &rec).expect("records serialise");
            self.line.push(b'\n');
            w.write_all(&self.line).map_err(&err)?;
        }
        w.finish().map_err(&err)?;
        drop(err);
        self.budget.give_back(std::mem::take(&mut self.taken));
        self.loose = 0;
        self.runs.push((path, w));
        Ok(())
    }

    /// The records in id order. When every record is still in memory nothing is written;
    /// their share of the budget is given back as the merge hands them on.
    pub(super) fn into_merged(mut self) -> Result<Merged, RunError> {
        if self.runs.is_empty() {
            self.buf
                .sort_by(|(a, la), (b, lb)| a.id.cmp(&b.id).then(la.cmp(lb)));
            return Ok(Merged {
                memory: std::mem::take(&mut self.buf).into_iter(),
                budget: Some((self.budget.clone(), std::mem::take(&mut self.taken))),
                readers: Vec::new(),
                heads: Vec::new(),
                heap: BinaryHeap::new(),
                _files: Vec::new(),
            });
        }
        self.write_run()?;
        let mut m = Merged {
            memory: Vec::new().into_iter(),
            budget: None,
            readers: Vec::new(),
            heads: Vec::new(),
            heap: BinaryHeap::new(),
            _files: Vec::new(),
        };
        for (path, mut file) in std::mem::take(&mut self.runs) {
            let r = file.reader().map_err(io_error(&path))?;
            m.readers.push((path, r));
            m._files.push(file);
            m.heads.push(None);
            m.advance(m.readers.len() - 1)?;
        }
        Ok(m)
    }
}

/// The merge of [`SortedRuns`]: an iterator of records in id order.
pub(super) struct Merged {
    memory: std::vec::IntoIter<(Record, bool)>,
    /// The budget the records in `memory` hold a share of, and what remains of that share.
    budget: Option<(Budget, usize)>,
    readers: Vec<(PathBuf, SpillReader)>,
    heads: Vec<Option<Record>>,
    /// (id, late, run) of each run's next record.
    heap: BinaryHeap<Reverse<(String, bool, usize)>>,
    /// The runs' files, removed when the merge is dropped.
    _files: Vec<SpillFile>,
}

impl Merged {
    /// Reads run `k`'s next record into its head.
    fn advance(&mut self, k: usize) -> Result<(), RunError> {
        let (path, r) = &mut self.readers[k];
        let mut line = String::new();
        if r.read_line(&mut line).map_err(io_error(path))? == 0 {
            return Ok(());
        }
        let late = line.starts_with('1');
        let rec: Record = serde_json::from_str(&line[1..]).map_err(|e| RunError::Io {
            path: path.display().to_string(),
            source: std::io::Error::other(e),
        })?;
        self.heap.push(Reverse((rec.id.clone(), late, k)));
        self.heads[k] = Some(rec);
        Ok(())
    }
}

impl Iterator for Merged {
    type Item = Result<Record, RunError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.readers.is_empty() {
            let (r, _) = self.memory.next()?;
            if let Some((budget, taken)) = &mut self.budget {
                let n = record_bytes(&r).min(*taken);
                budget.give_back(n);
                *taken -= n;
            }
            return Some(Ok(r));
        }
        let Reverse((_, _, k)) = self.heap.pop()?;
        let rec = self.heads[k].take().expect("a run in the heap has a head");
        Some(self.advance(k).map(|()| rec))
    }
}

/// Decisions of an online corpus stage, held until the decisions of the stages before it
/// are written: scrubbed and serialised as the writer writes them (the release notes them
/// as they come, see [`ReleaseDir::note_decision`]), so only their lines wait, in memory
/// while they fit the run's budget, then in an encrypted file.
pub(super) struct DecisionSpill {
    path: PathBuf,
    /// The file, opened when the lines no longer fit in memory.
    file: Option<SpillFile>,
    /// Lines held in memory, in blocks of [`BLOCK`] bytes (a growing buffer would hold up to
    /// twice its lines), and the bytes they took from `budget`.
    held: Vec<Vec<u8>>,
    budget: Budget,
    taken: usize,
    line: Vec<u8>,
}

/// The size of a block of decision lines held in memory.
const BLOCK: usize = 1 << 20;

impl DecisionSpill {
    pub(super) fn new(dir: &Path, name: &str, budget: Budget) -> Self {
        DecisionSpill {
            path: dir.join(format!("decisions-{name}.jsonl")),
            file: None,
            held: Vec::new(),
            budget,
            taken: 0,
            line: Vec::new(),
        }
    }

    /// Holds the line of a decision already scrubbed.
    pub(super) fn push(&mut self, d: &Decision) -> Result<(), RunError> {
        self.line.clear();
        serde_json::to_writer(&mut self.line, d).expect("decisions serialise");
        self.line.push(b'\n');
        let n = self.line.len();
        if self.file.is_none() {
            if self.budget.take(n) {
                self.taken += n;
                match self.held.last_mut() {
                    Some(b) if b.len() + n <= b.capacity() => b.extend_from_slice(&self.line),
                    _ => {
                        let mut b = Vec::with_capacity(BLOCK.max(n));
                        b.extend_from_slice(&self.line);
                        self.held.push(b);
                    }
                }
                return Ok(());
            }
            self.open()?;
        }
        let err = io_error(&self.path);
        let w = self.file.as_mut().expect("opened above");
        w.write_all(&self.line).map_err(err)
    }

    /// Opens the file and moves the lines held in memory to it.
    fn open(&mut self) -> Result<(), RunError> {
        let err = io_error(&self.path);
        let mut w = SpillFile::create(self.path.clone()).map_err(&err)?;
        for b in std::mem::take(&mut self.held) {
            w.write_all(&b).map_err(&err)?;
        }
        self.budget.give_back(std::mem::take(&mut self.taken));
        self.file = Some(w);
        Ok(())
    }

    /// Writes the held lines to the release, in the order they came, and removes the file.
    pub(super) fn replay(mut self, release: &mut ReleaseDir) -> Result<(), RunError> {
        let Some(mut w) = self.file.take() else {
            for b in std::mem::take(&mut self.held) {
                for line in b.split_inclusive(|&c| c == b'\n') {
                    release.write_decision_line(line)?;
                }
            }
            self.budget.give_back(std::mem::take(&mut self.taken));
            return Ok(());
        };
        let err = io_error(&self.path);
        let mut r = w.reader().map_err(&err)?;
        let mut line = Vec::new();
        while r.read_until(b'\n', &mut line).map_err(&err)? > 0 {
            release.write_decision_line(&line)?;
            line.clear();
        }
        // Removes the file.
        drop(w);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(id: &str) -> Record {
        Record {
            id: id.into(),
            text: format!("text of {id}"),
            ..Record::default()
        }
    }

    /// Many runs merge into id order; among equal ids passed-by records come first, then
    /// push order, as `run_corpus`'s stable sort of passed + kept leaves them.
    #[test]
    fn runs_merge_in_id_order_with_ties_as_run_corpus_leaves_them() {
        let dir = std::env::temp_dir().join(format!("kcurate-spill-test-{}", std::process::id()));
        let mut runs = SortedRuns::new(dir.clone(), Budget::new(500));
        runs.loose_max = 500;
        let mut want = Vec::new();
        for i in 0..200u32 {
            let id = format!("r{:03}", (i * 37) % 101);
            let late = i % 3 == 0;
            let mut r = rec(&id);
            r.fields.insert("n".into(), serde_json::json!(i));
            want.push((id, late, i));
            runs.push(r, late).unwrap();
        }
        assert!(runs.runs.len() > 3, "the test spans several runs");
        want.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.cmp(&b.1)));
        let got: Vec<u32> = runs
            .into_merged()
            .unwrap()
            .map(|r| r.unwrap().fields["n"].as_u64().unwrap() as u32)
            .collect();
        assert_eq!(got, want.iter().map(|w| w.2).collect::<Vec<_>>());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Every byte of `dir`'s files.
    fn spilled_bytes(dir: &Path) -> Vec<u8> {
        let mut all = Vec::new();
        for e in std::fs::read_dir(dir).unwrap() {
            all.extend(std::fs::read(e.unwrap().path()).unwrap());
        }
        all
    }

    fn holds(hay: &[u8], needle: &str) -> bool {
        hay.windows(needle.len()).any(|w| w == needle.as_bytes())
    }

    /// The spill holds records from before the `pii` stage: a phone number planted in a
    /// record's text, id and fields, and in a decision's text, appears in no spill byte
    /// (while the records merge back whole).
    #[test]
    fn spilled_records_and_decisions_hold_no_pii_in_clear() {
        let dir = std::env::temp_dir().join(format!("kcurate-spill-pii-{}", std::process::id()));
        let phone = "010-9876-5432";
        let mut runs = SortedRuns::new(dir.clone(), Budget::new(2000));
        runs.loose_max = 2000;
        for i in 0..100u32 {
            let mut r = rec(&format!("r{i:03}-{phone}"));
            r.text = format!("연락처는 {phone} 입니다 ({i})");
            r.fields.insert("note".into(), serde_json::json!(phone));
            runs.push(r, false).unwrap();
        }
        let mut decisions = DecisionSpill::new(&dir, "pii-test", Budget::new(0));
        let d = Decision {
            item: format!("r000-{phone}"),
            stage: "noise".into(),
            rule: kcurate_core::RuleId::new("noise.test"),
            action: kcurate_core::Action::Drop,
            detail: format!("dropped: {phone}"),
            score: None,
            span: None,
            text: Some(phone.into()),
            source: "s".into(),
            origin: "s.jsonl:1".into(),
        };
        decisions.push(&d).unwrap();
        decisions.file.as_mut().unwrap().flush().unwrap();
        assert!(runs.runs.len() > 3, "the test spans several runs");
        let bytes = spilled_bytes(&dir);
        assert!(bytes.len() > 10_000);
        for needle in [phone, "010", "9876", "연락처", "note", "\"id\""] {
            assert!(!holds(&bytes, needle), "{needle:?} in the spill");
        }
        let back: Vec<Record> = runs.into_merged().unwrap().map(|r| r.unwrap()).collect();
        assert_eq!(back.len(), 100);
        assert_eq!(back[7].text, format!("연락처는 {phone} 입니다 (7)"));
        assert_eq!(back[7].fields["note"], phone);
        // The runs went with the merge, the decisions' file goes with its spill.
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
        drop(decisions);
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
